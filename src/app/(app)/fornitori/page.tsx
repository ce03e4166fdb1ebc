import { SuppliersScreen } from "@/ui/screens/catalogue";

export const metadata = { title: "Fornitori" };

export default function SuppliersPage() {
  return <SuppliersScreen />;
}
