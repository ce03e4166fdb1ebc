import { MovementFormScreen } from "@/ui/screens/movement-form";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Nuovo movimento" };

export default async function NewMovementPage() {
  const session = await openScreen("/movimenti/nuovo", "responsabile");
  return (
    <Prefetched session={session} queries={(t) => [t.catalogue.warehouses.queryOptions()]}>
      <MovementFormScreen />
    </Prefetched>
  );
}
