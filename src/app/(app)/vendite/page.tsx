import { Forbidden } from "@/ui/forbidden";
import { SalesListScreen } from "@/ui/screens/sales";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Documenti di vendita" };

export default async function SalesPage() {
  if (!(await pageAccess("responsabile"))?.allowed) return <Forbidden role="responsabile" />;
  return <SalesListScreen />;
}
