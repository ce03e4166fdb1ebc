import { AvailabilityScreen } from "@/ui/screens/availability";
import { Forbidden } from "@/ui/forbidden";
import { pageAccess } from "@/ui/server/session";

export const metadata = { title: "Disponibilità" };

export default async function AvailabilityPage() {
  if (!(await pageAccess("responsabile"))?.allowed) return <Forbidden role="responsabile" />;
  return <AvailabilityScreen />;
}
