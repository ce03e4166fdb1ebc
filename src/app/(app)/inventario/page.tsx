import { InventoryScreen } from "@/ui/screens/inventory";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Inventario" };

export default async function InventoryPage() {
  const session = await openScreen("/inventario");
  return (
    <Prefetched session={session} queries={(t) => [t.catalogue.warehouses.queryOptions()]}>
      <InventoryScreen />
    </Prefetched>
  );
}
