import { FIRST_LOCATIONS, LocationsScreen } from "@/ui/screens/locations/locations";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Ubicazioni" };

export default async function LocationsPage() {
  const session = await openScreen("/ubicazioni");
  return (
    <Prefetched session={session} queries={(t) => [t.locationsStock.screenLocations.queryOptions(FIRST_LOCATIONS)]}>
      <LocationsScreen />
    </Prefetched>
  );
}
