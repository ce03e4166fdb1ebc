import type { Tx } from "../db/client";
import type { TransactionOptions } from "../db/transaction";
import { idempotencyScope, type Actor } from "../modules/auth/actor";
import { parseIdempotencyKey, runIdempotent, type WriteResult } from "../modules/idempotency/idempotency.service";
import type { Context } from "./context";

/**
 * The path a write's key is recorded under: its route (`/arrivi/{id}/annulla`) with each `{name}` the input's
 * value, as a client writes the path (`/arrivi/12/annulla`). The input is the one the fingerprint is taken of.
 */
export function recordedPath(route: string, input: unknown): string {
  if (!route.includes("{")) return route;
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = (input as Record<string, unknown> | undefined)?.[name];
    if (value === undefined) throw new Error(`idempotentWrite: l'input non ha '${name}' del percorso ${route}`);
    return String(value);
  });
}

/**
 * Every write endpoint runs its unit of work through here: one transaction, with the Idempotency-Key
 * record (when the caller sent one) committed inside it, under the path of the procedure's route (its meta's
 * `openapi.path` or `idempotencyPath`, set in ctx by init.ts). The success status goes to the response.
 */
export async function idempotentWrite<T>(
  ctx: Context & { actor: Actor; writeRoute?: string | undefined },
  spec: { input: unknown; txOptions?: TransactionOptions },
  work: (tx: Tx) => Promise<WriteResult<T>>,
): Promise<T> {
  if (ctx.writeRoute === undefined) throw new Error("idempotentWrite: la procedura non ha openapi.path né idempotencyPath nella meta");
  const percorso = recordedPath(ctx.writeRoute, spec.input);
  const chiave = parseIdempotencyKey(ctx.headers.get("idempotency-key"));
  const outcome = await runIdempotent(
    ctx.db,
    {
      ambito: idempotencyScope(ctx.actor),
      metodo: "POST",
      percorso,
      chiave,
      input: spec.input,
      retentionHours: ctx.config.IDEMPOTENCY_RETENTION_HOURS,
    },
    work,
    spec.txOptions,
  );
  ctx.response.status = outcome.status;
  if (outcome.replayed) ctx.response.headers["Idempotency-Replayed"] = "true";
  return outcome.body;
}

/** The channel decides the declared origin of what a write produces. */
export function originOf(ctx: Context): "api" | "schermo" {
  return ctx.channel === "trpc" ? "schermo" : "api";
}
