import { Forbidden } from "@/ui/forbidden";
import { currentSession } from "@/ui/server/session";

export const metadata = { title: "Accesso non consentito" };

/** A screen above the user's role (openScreen's forbidden()): answered 403, inside the frame with the user's own menu. */
export default async function ForbiddenPage() {
  const session = await currentSession();
  return <Forbidden role={session?.actor.ruolo ?? null} />;
}
