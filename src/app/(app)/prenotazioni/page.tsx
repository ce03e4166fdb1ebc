import { reservationsPageInput } from "@/ui/screens/reservations/newest-page";
import { ReservationsScreen } from "@/ui/screens/reservations/reservations";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Prenotazioni" };

export default async function ReservationsPage() {
  const session = await openScreen("/prenotazioni", "responsabile");
  return (
    <Prefetched
      session={session}
      queries={(t) => [t.reservations.newest.queryOptions(reservationsPageInput({}, null)), t.catalogue.warehouses.queryOptions()]}
    >
      <ReservationsScreen />
    </Prefetched>
  );
}
