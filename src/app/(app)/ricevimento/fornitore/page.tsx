import { ReceivingBySupplierScreen } from "@/ui/screens/receiving-by-supplier";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Ricevimento per fornitore" };

export default async function ReceivingBySupplierPage() {
  const session = await openScreen("/ricevimento/fornitore");
  return (
    <Prefetched session={session} queries={(t) => [t.catalogue.suppliers.queryOptions(), t.catalogue.warehouses.queryOptions()]}>
      <ReceivingBySupplierScreen />
    </Prefetched>
  );
}
