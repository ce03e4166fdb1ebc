import { DomainError } from "../../lib/errors";
import { publicProcedure, router, userProcedure } from "../../trpc/init";
import type { Context } from "../../trpc/context";
import { sessionOutput, signInInput } from "./sessions.schemas";
import {
  clearedSessionCookie,
  clientAddress,
  isSecureRequest,
  readCookie,
  sessionCookie,
  SESSION_COOKIE,
  signIn,
  signOut,
} from "./sessions.service";
import { syncParse } from "../../lib/zod";

/**
 * A sign-in form posted from another site must not sign the browser into our service (login CSRF):
 * browsers send Origin on every POST, and it must name this host.
 */
function assertSameOrigin(ctx: Context): void {
  const origin = ctx.headers.get("origin");
  if (origin === null) return;
  const host = ctx.headers.get("x-forwarded-host") ?? ctx.headers.get("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    originHost = "";
  }
  if (!host || originHost !== host) {
    throw new DomainError("permesso_negato", "Accesso rifiutato: la richiesta non proviene da questa applicazione.");
  }
}

export const sessionsRouter = router({
  signIn: publicProcedure
    .input(syncParse(signInInput))
    .output(syncParse(sessionOutput))
    .mutation(async ({ ctx, input }) => {
      assertSameOrigin(ctx);
      const opened = await signIn(ctx.db, { ...input, address: clientAddress(ctx.headers) });
      ctx.response.headers["Set-Cookie"] = sessionCookie(opened.token, { secure: isSecureRequest(ctx.headers), expires: opened.scadeIl });
      return { utente: opened.utente, csrf: opened.csrf, scade_il: opened.scadeIl.toISOString() };
    }),

  signOut: userProcedure.mutation(async ({ ctx }) => {
    const token = readCookie(ctx.headers.get("cookie"), SESSION_COOKIE);
    if (token) await signOut(ctx.db, token);
    ctx.response.headers["Set-Cookie"] = clearedSessionCookie({ secure: isSecureRequest(ctx.headers) });
    return { uscito: true };
  }),

  me: userProcedure.output(syncParse(sessionOutput)).query(({ ctx }) => {
    if (!ctx.session) throw new DomainError("non_autenticato", "Nessuna sessione: accedere dall'interfaccia.");
    return {
      utente: { id: ctx.actor.id, username: ctx.actor.username, ruolo: ctx.actor.ruolo },
      csrf: ctx.session.csrf,
      scade_il: ctx.session.scadeIl.toISOString(),
    };
  }),
});
