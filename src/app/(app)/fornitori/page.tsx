import { SuppliersScreen } from "@/ui/screens/catalogue";
import { FIRST_LOOKUP } from "@/ui/screens/catalogue-lookup";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Fornitori" };

export default async function SuppliersPage() {
  const session = await openScreen("/fornitori");
  return (
    <Prefetched session={session} queries={(t) => [t.feeds.suppliers.queryOptions(FIRST_LOOKUP)]}>
      <SuppliersScreen />
    </Prefetched>
  );
}
