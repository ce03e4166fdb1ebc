import { Forbidden } from "@/ui/forbidden";
import { SaleFormScreen } from "@/ui/screens/sales";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Nuovo documento di vendita" };

export default async function NewSalePage() {
  if (!(await pageAccess("responsabile"))?.allowed) return <Forbidden role="responsabile" />;
  return <SaleFormScreen />;
}
