import { ArticlesScreen } from "@/ui/screens/catalogue";

export const metadata = { title: "Articoli" };

export default function ArticlesPage() {
  return <ArticlesScreen />;
}
