import { PutawayScreen } from "@/ui/screens/putaway";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Stoccaggio" };

export default async function PutawayPage() {
  const session = await openScreen("/stoccaggio");
  return (
    <Prefetched session={session} queries={(t) => [t.putaway.warehouses.queryOptions()]}>
      <PutawayScreen />
    </Prefetched>
  );
}
