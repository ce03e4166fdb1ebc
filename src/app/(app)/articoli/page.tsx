import { ArticlesScreen } from "@/ui/screens/catalogue";
import { FIRST_LOOKUP } from "@/ui/screens/catalogue-lookup";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Articoli" };

export default async function ArticlesPage() {
  const session = await openScreen("/articoli");
  return (
    <Prefetched session={session} queries={(t) => [t.feeds.articleLookup.queryOptions(FIRST_LOOKUP)]}>
      <ArticlesScreen />
    </Prefetched>
  );
}
