import { SalesListScreen } from "@/ui/screens/sales";
import { salesPageInput } from "@/ui/screens/sales/newest-page";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Documenti di vendita" };

export default async function SalesPage() {
  const session = await openScreen("/vendite", "responsabile");
  return (
    <Prefetched session={session} queries={(t) => [t.sales.newest.queryOptions(salesPageInput(null))]}>
      <SalesListScreen />
    </Prefetched>
  );
}
