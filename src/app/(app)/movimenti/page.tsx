import { Forbidden } from "@/ui/forbidden";
import { MovementsScreen } from "@/ui/screens/movements";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Movimenti" };

export default async function MovementsPage() {
  if (!(await pageAccess("responsabile"))?.allowed) return <Forbidden role="responsabile" />;
  return <MovementsScreen />;
}
