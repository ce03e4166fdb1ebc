import { ReceivingScreen } from "@/ui/screens/receiving";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Ricevimento" };

export default async function ReceivingPage() {
  const session = await openScreen("/ricevimento");
  return (
    <Prefetched
      session={session}
      // The label's reads (use-label-print.ts) come with the page too: the printers, and the operator's own
      // arrivals of today, which tell a new registration from those already there.
      queries={(t) => [
        t.catalogue.warehouses.queryOptions(),
        t.printers.list.queryOptions({}),
        t.arrivals.today.queryOptions({ mine: true }),
      ]}
    >
      <ReceivingScreen />
    </Prefetched>
  );
}
