import { Forbidden } from "@/ui/forbidden";
import { MovementFormScreen } from "@/ui/screens/movement-form";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Nuovo movimento" };

export default async function NewMovementPage() {
  if (!(await pageAccess("responsabile"))?.allowed) return <Forbidden role="responsabile" />;
  return <MovementFormScreen />;
}
