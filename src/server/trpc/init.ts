import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { assertNoNul, toErrorResponse } from "./errors";
import { DomainError } from "../lib/errors";
import { assertRole, hasScope, type Actor, type Role, type Scope } from "../modules/auth/actor";
import { authenticateApiKey, bearerToken } from "../modules/auth/api-keys.service";
import { authenticateSession, csrfMatches } from "../modules/auth/sessions.service";
import type { ResolvedSession } from "../modules/auth/sessions.types";
import type { Context } from "./context";

// A type alias, not an interface: trpc-to-openapi needs meta assignable to an index signature.
export type Meta = {
  /**
   * Success statuses of this endpoint (default [200]), for the OpenAPI document. With several, an output that
   * is a union of as many members answers one per status, in this order (openapi-shape.ts successByStatus).
   */
  successStatuses?: number[];
  /** Writes that accept Idempotency-Key. */
  idempotent?: boolean;
  /**
   * Answers a file, not JSON: the procedure leaves its bytes in `ctx.response.binary`. `true` a label (PDF or ZPL),
   * `image` a photo as it was sent (JPEG or PNG).
   */
  binary?: true | "image";
  /**
   * On REST the body is an image's bytes, not JSON (http/binary-body.ts): the procedure reads `{ tipo, dati }`
   * (the bytes in base64), the input the UI's tRPC mutation sends.
   */
  binaryBody?: "image";
  /**
   * A write of the screens alone (no `openapi` meta) that accepts Idempotency-Key: the path its keys are recorded
   * under, `{name}` filled from the write's input, as a REST route's are under its `openapi.path` (write.ts).
   */
  idempotencyPath?: string;
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
/** tRPC's supported server-side entry point: the REST facade calls procedures through it (http/rest-routes.ts). */
export const createCallerFactory = t.createCallerFactory;

/** Refuses any input string holding U+0000 (which PostgreSQL text cannot store), naming the field. */
async function refuseNulIn(getRawInput: () => Promise<unknown>, type: string): Promise<void> {
  let input: unknown;
  try {
    input = await getRawInput();
  } catch {
    // An input that cannot be read (the UI posts no body to a procedure without input) is not ours to
    // judge here: a procedure with an input parser meets the same failure there, as before.
    return;
  }
  assertNoNul(input, type === "query");
}

export const publicProcedure = t.procedure.use(async ({ getRawInput, next, type }) => {
  await refuseNulIn(getRawInput, type);
  return next();
});

/** Header in which the UI echoes its session's CSRF token on every mutation. */
export const CSRF_HEADER = "x-csrf-token";

/**
 * One auth path, for every channel. A preset actor (tests, the CLI); else a Bearer API key (REST, or
 * a script on the tRPC endpoint); else, on the UI's tRPC channel only, the session cookie. REST never
 * reads cookies, so a browser cannot be made to call it with someone's session.
 * A session-authenticated mutation must echo the session's CSRF token in a header: a cross-site page
 * can neither read that token nor, without a CORS preflight we never grant, send a custom header.
 */
async function authenticate(ctx: Context, type: string): Promise<{ actor: Actor; session: ResolvedSession | undefined }> {
  if (ctx.actor) return { actor: ctx.actor, session: undefined };
  const authorization = ctx.headers.get("authorization");
  if (ctx.channel === "trpc" && authorization === null) {
    const session = await authenticateSession(ctx.db, ctx.headers.get("cookie"));
    if (type === "mutation" && !csrfMatches(session.csrf, ctx.headers.get(CSRF_HEADER))) {
      throw new DomainError(
        "permesso_negato",
        "Richiesta rifiutata: manca il token di sicurezza della sessione (CSRF). Ricaricare la pagina.",
      );
    }
    return { actor: session.actor, session };
  }
  const actor = await authenticateApiKey(ctx.db, bearerToken(authorization), {
    perSecond: ctx.config.RATE_LIMIT_PER_SECOND,
    burst: ctx.config.RATE_LIMIT_BURST,
  });
  return { actor, session: undefined };
}

/**
 * Authentication, the caller's admission (`admit` throws to refuse) and the U+0000 guard, in that order,
 * as one middleware: every middleware of a chain costs tRPC a copy of the call's options and context,
 * on every request.
 */
const authenticated = <A extends Actor>(admit: (actor: Actor) => A) =>
  t.middleware(async ({ ctx, next, type, getRawInput, meta }) => {
    const authenticated = await authenticate(ctx, type);
    const actor = admit(authenticated.actor);
    const session = authenticated.session;
    await refuseNulIn(getRawInput, type);
    // The route a write's Idempotency-Key is recorded under, from its meta (write.ts idempotentWrite).
    const writeRoute = type === "mutation" ? (meta?.openapi?.path ?? meta?.idempotencyPath) : undefined;
    return next({ ctx: { ...ctx, actor, session, writeRoute } });
  });

const requireScope =
  (scope: Scope) =>
  (actor: Actor): Actor => {
    if (!hasScope(actor, scope)) {
      throw new DomainError(
        "permesso_negato",
        scope === "scrittura"
          ? "Questa chiave API ha solo il permesso di lettura: per scrivere serve una chiave con permesso 'scrittura'."
          : "Permesso di lettura mancante per questa chiave API.",
      );
    }
    return actor;
  };

/** Signed-in users need at least this role; API keys are governed by their scopes alone. */
export const requireRole = (role: Role) =>
  t.middleware(({ ctx, next }) => {
    assertRole((ctx as Context & { actor: Actor }).actor, role);
    return next();
  });

/** Users and API keys are managed by administrators from the UI (or the CLI), never with an API key. */
const requireUser = (actor: Actor): Extract<Actor, { kind: "utente" }> => {
  if (actor.kind !== "utente")
    throw new DomainError("permesso_negato", "Funzione riservata agli utenti dell'interfaccia: non è disponibile con una chiave API.");
  return actor;
};

/**
 * Webhook endpoints by REST (docs/api.md section 10): an API key that holds `webhook` and `lettura` (an endpoint
 * receives data, so creating one needs the right to read it). Users manage every endpoint on the screen.
 */
const requireWebhookKey = (actor: Actor): Extract<Actor, { kind: "chiave" }> => {
  if (actor.kind !== "chiave")
    throw new DomainError("permesso_negato", "I webhook si gestiscono dalla schermata Webhook: questi percorsi sono per le chiavi API.");
  if (!hasScope(actor, "webhook"))
    throw new DomainError(
      "permesso_negato",
      "Questa chiave API non ha il permesso 'webhook': per gestire i webhook serve una chiave con i permessi 'webhook' e 'lettura'.",
    );
  if (!hasScope(actor, "lettura"))
    throw new DomainError(
      "permesso_negato",
      "Questa chiave API ha il permesso 'webhook' ma non 'lettura': un webhook riceve i dati, quindi serve anche il permesso 'lettura'.",
    );
  return actor;
};

/** Reads: `lettura` for keys; every role for users unless the procedure adds requireRole. */
export const readProcedure = t.procedure.use(authenticated(requireScope("lettura")));
/** Writes: `scrittura` for keys; every role for users unless the procedure adds requireRole. */
export const writeProcedure = t.procedure.use(authenticated(requireScope("scrittura")));
/** Any signed-in user (their own session, profile). */
export const userProcedure = t.procedure.use(authenticated(requireUser));
/** A key's own webhook endpoints (scopes `webhook` and `lettura`). */
export const webhookKeyProcedure = t.procedure.use(authenticated(requireWebhookKey));
/** Users, API keys: administrators only. */
export const adminProcedure = userProcedure.use(requireRole("amministratore"));
