import type { ReactNode } from "react";
import { AppFrame } from "@/ui/app-frame";
import { SignInRedirect } from "@/ui/sign-in-redirect";
import { currentSession } from "@/ui/server/session";

export const dynamic = "force-dynamic";

/**
 * Every operator screen: signed-in users only, in one frame with the navigation of their role. A signed-out
 * visitor is sent to sign-in by the screen's own page (openScreen, which knows its path and brings them
 * back to it); the browser-side redirect here only backs that up.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  if (!session)
    return (
      <>
        {children}
        <SignInRedirect />
      </>
    );
  const { id, username, ruolo } = session.actor;
  return (
    <AppFrame user={{ id, username, ruolo }} csrf={session.csrf}>
      {children}
    </AppFrame>
  );
}
