import { ReceivingScreen } from "@/ui/screens/receiving";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Ricevimento" };

export default async function ReceivingPage() {
  const session = await openScreen("/ricevimento");
  return (
    <Prefetched session={session} queries={(t) => [t.catalogue.warehouses.queryOptions()]}>
      <ReceivingScreen />
    </Prefetched>
  );
}
