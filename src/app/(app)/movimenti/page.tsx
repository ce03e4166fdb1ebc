import { MovementsScreen } from "@/ui/screens/movements";
import { movementsPageInput } from "@/ui/screens/movements/newest-page";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Movimenti" };

export default async function MovementsPage() {
  const session = await openScreen("/movimenti", "responsabile");
  return (
    <Prefetched
      session={session}
      queries={(t) => [t.movements.newest.queryOptions(movementsPageInput({}, null)), t.catalogue.warehouses.queryOptions()]}
    >
      <MovementsScreen />
    </Prefetched>
  );
}
