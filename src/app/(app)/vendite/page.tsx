import { SalesListScreen } from "@/ui/screens/sales";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Documenti di vendita" };

export default async function SalesPage() {
  const session = await openScreen("/vendite", "responsabile");
  return (
    <Prefetched session={session} queries={(t) => [t.sales.list.queryOptions({ limite: "50", dopo: "0" })]}>
      <SalesListScreen />
    </Prefetched>
  );
}
