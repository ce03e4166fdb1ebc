import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { AppFrame } from "@/ui/app-frame";
import { currentSession } from "@/ui/server/session";

export const dynamic = "force-dynamic";

/** Every operator screen: signed-in users only, in one frame with the navigation of their role. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  if (!session) redirect("/accesso");
  const { id, username, ruolo } = session.actor;
  return (
    <AppFrame user={{ id, username, ruolo }} csrf={session.csrf}>
      {children}
    </AppFrame>
  );
}
