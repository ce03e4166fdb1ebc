import { NoticesScreen } from "@/ui/screens/notices";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Avvisi e differenze" };

export default async function NoticesPage() {
  const session = await openScreen("/avvisi", "responsabile");
  return (
    <Prefetched session={session} queries={(t) => [t.notices.list.queryOptions({}), t.notices.differences.queryOptions({})]}>
      <NoticesScreen />
    </Prefetched>
  );
}
