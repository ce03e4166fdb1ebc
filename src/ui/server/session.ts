import "server-only";
import { cookies } from "next/headers";
import { cache } from "react";
import { getDb } from "@/server/db/client";
import { resolveSession, SESSION_COOKIE } from "@/server/modules/auth/sessions.service";
import type { ResolvedSession } from "@/server/modules/auth/sessions.types";
import { createContextInner } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/router";

/** The session of the request being rendered, read once per request. */
export const currentSession = cache(async (): Promise<ResolvedSession | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  return resolveSession(getDb(), token);
});

/**
 * The same procedures the browser calls, called from a server component as the signed-in user:
 * the role checks of the procedures apply here too.
 */
export async function serverCaller() {
  const session = await currentSession();
  if (!session) throw new Error("nessuna sessione");
  return appRouter.createCaller(createContextInner({ channel: "trpc", actor: session.actor }));
}
