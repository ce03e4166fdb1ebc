import { AvailabilityScreen } from "@/ui/screens/availability";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Disponibilità" };

export default async function AvailabilityPage() {
  const session = await openScreen("/disponibilita", "responsabile");
  return (
    <Prefetched
      session={session}
      queries={(t) => [t.availability.list.queryOptions({ limite: "50", dopo: "0" }), t.catalogue.warehouses.queryOptions()]}
    >
      <AvailabilityScreen />
    </Prefetched>
  );
}
