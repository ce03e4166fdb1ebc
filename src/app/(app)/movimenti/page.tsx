import { MovementsScreen } from "@/ui/screens/movements";
import { newestMovementsQuery } from "@/ui/screens/movements/newest-page";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Movimenti" };

export default async function MovementsPage() {
  const session = await openScreen("/movimenti", "responsabile");
  return (
    <Prefetched
      session={session}
      queries={(t, caller) => [
        newestMovementsQuery(t, (input) => caller.movements.list(input), {}, null),
        t.catalogue.warehouses.queryOptions(),
      ]}
    >
      <MovementsScreen />
    </Prefetched>
  );
}
