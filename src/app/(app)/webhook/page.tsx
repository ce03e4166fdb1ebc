import { WebhooksScreen } from "@/ui/screens/webhooks/webhooks-screen";
import { openScreen, Prefetched } from "@/ui/server/screen";

export const metadata = { title: "Webhook" };

export default async function WebhooksPage() {
  const session = await openScreen("/webhook", "amministratore");
  return (
    <Prefetched session={session} queries={(t) => [t.webhooks.list.queryOptions()]}>
      <WebhooksScreen />
    </Prefetched>
  );
}
