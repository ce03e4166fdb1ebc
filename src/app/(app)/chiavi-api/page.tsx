import { Forbidden } from "@/ui/forbidden";
import { ApiKeysScreen } from "@/ui/screens/admin";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Chiavi API" };

export default async function ApiKeysPage() {
  if (!(await pageAccess("amministratore"))?.allowed) return <Forbidden role="amministratore" />;
  return <ApiKeysScreen />;
}
