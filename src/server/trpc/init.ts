import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { toErrorResponse } from "../http/errors";
import { DomainError } from "../lib/errors";
import { hasScope, type Actor, type Scope } from "../modules/auth/actor";
import { authenticateApiKey, bearerToken } from "../modules/auth/api-keys.service";
import type { Context } from "./context";

// A type alias, not an interface: trpc-to-openapi needs meta assignable to an index signature.
export type Meta = {
  /** Success statuses of this endpoint (default [200]), for the OpenAPI document. */
  successStatuses?: number[];
  /** Writes that accept Idempotency-Key. */
  idempotent?: boolean;
};

const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta<Meta>>()
  .create({
    // The UI receives the same codes and Italian messages as REST clients.
    errorFormatter({ shape, error, ctx, type }) {
      // REST logs and answers in its own wrapper; only the UI channel logs here.
      const mapped = toErrorResponse(error, { requestId: ctx?.requestId ?? "-", isQuery: type === "query", log: ctx?.channel === "trpc" });
      return {
        message: mapped.body.messaggio,
        code: shape.code,
        data: { httpStatus: mapped.status, codice: mapped.body.codice, campo: mapped.body.campo, dettagli: mapped.body.dettagli },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;

/** One auth path: a preset actor (tests, CLI), or a Bearer API key. UI sessions join in the UI issue. */
const authenticated = t.middleware(async ({ ctx, next }) => {
  let actor: Actor | undefined = ctx.actor;
  if (!actor) {
    const token = bearerToken(ctx.headers.get("authorization"));
    actor = await authenticateApiKey(ctx.db, token, {
      perSecond: ctx.config.RATE_LIMIT_PER_SECOND,
      burst: ctx.config.RATE_LIMIT_BURST,
    });
  }
  return next({ ctx: { ...ctx, actor } });
});

const requireScope = (scope: Scope) =>
  t.middleware(({ ctx, next }) => {
    const actor = (ctx as Context & { actor: Actor }).actor;
    if (!hasScope(actor, scope)) {
      throw new DomainError(
        "permesso_negato",
        scope === "scrittura"
          ? "Questa chiave API ha solo il permesso di lettura: per scrivere serve una chiave con permesso 'scrittura'."
          : "Permesso di lettura mancante per questa chiave API.",
      );
    }
    return next();
  });

export const readProcedure = t.procedure.use(authenticated).use(requireScope("lettura"));
export const writeProcedure = t.procedure.use(authenticated).use(requireScope("scrittura"));
