import { SaleFormScreen } from "@/ui/screens/sales";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Nuovo documento di vendita" };

export default async function NewSalePage() {
  const session = await openScreen("/vendite/nuovo", "responsabile");
  return (
    <Prefetched session={session} queries={(t) => [t.catalogue.warehouses.queryOptions(), t.clients.search.queryOptions({ cerca: "" })]}>
      <SaleFormScreen />
    </Prefetched>
  );
}
