import { DomainError } from "../../lib/errors";
import { publicProcedure, router, userProcedure } from "../../trpc/init";
import { sessionOutput, signInInput } from "./sessions.schemas";
import {
  assertSameOrigin,
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

export const sessionsRouter = router({
  signIn: publicProcedure
    .input(syncParse(signInInput))
    .output(syncParse(sessionOutput))
    .mutation(async ({ ctx, input }) => {
      const trustProxy = ctx.config.TRUST_PROXY === "true";
      assertSameOrigin(ctx.headers, { trustProxy });
      const opened = await signIn(ctx.db, { ...input, address: clientAddress(ctx.headers) });
      ctx.response.headers["Set-Cookie"] = sessionCookie(opened.token, {
        secure: isSecureRequest(ctx.headers, { trustProxy }),
        expires: opened.scadeIl,
      });
      return { utente: opened.utente, csrf: opened.csrf, scade_il: opened.scadeIl.toISOString() };
    }),

  signOut: userProcedure.mutation(async ({ ctx }) => {
    const token = readCookie(ctx.headers.get("cookie"), SESSION_COOKIE);
    if (token) await signOut(ctx.db, token);
    ctx.response.headers["Set-Cookie"] = clearedSessionCookie({
      secure: isSecureRequest(ctx.headers, { trustProxy: ctx.config.TRUST_PROXY === "true" }),
    });
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
