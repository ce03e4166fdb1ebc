import { OrdersScreen } from "@/ui/screens/orders";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Ordini" };

export default async function OrdersPage() {
  const session = await openScreen("/ordini");
  // The screen's first list: orders still to receive, no search.
  return (
    <Prefetched session={session} queries={(t) => [t.orders.list.queryOptions({})]}>
      <OrdersScreen />
    </Prefetched>
  );
}
