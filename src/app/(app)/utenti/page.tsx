import { Forbidden } from "@/ui/forbidden";
import { UsersScreen } from "@/ui/screens/admin";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Utenti" };

export default async function UsersPage() {
  if (!(await pageAccess("amministratore"))?.allowed) return <Forbidden role="amministratore" />;
  return <UsersScreen />;
}
