import { Forbidden } from "@/ui/forbidden";
import { WebhooksScreen } from "@/ui/screens/webhooks";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Webhook" };

export default async function WebhooksPage() {
  if (!(await pageAccess("amministratore"))?.allowed) return <Forbidden role="amministratore" />;
  return <WebhooksScreen />;
}
