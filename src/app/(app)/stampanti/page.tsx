import { PrintersScreen } from "@/ui/screens/printers";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Stampanti" };

export default async function PrintersPage() {
  const session = await openScreen("/stampanti", "amministratore");
  return (
    <Prefetched
      session={session}
      queries={(t) => [
        t.printers.list.queryOptions({}),
        t.printers.recent.queryOptions({ limite: 30 }),
        t.audit.list.queryOptions({ limite: 25 }),
      ]}
    >
      <PrintersScreen />
    </Prefetched>
  );
}
