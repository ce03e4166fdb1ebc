import type { Tx } from "../db/client";
import type { TransactionOptions } from "../db/transaction";
import { idempotencyScope, type Actor } from "../modules/auth/actor";
import { parseIdempotencyKey, runIdempotent, type WriteResult } from "../modules/idempotency/idempotency.service";
import type { Context } from "./context";

/**
 * Every write endpoint runs its unit of work through here: one transaction, with the Idempotency-Key
 * record (when the caller sent one) committed inside it. The success status goes to the response.
 */
export async function idempotentWrite<T>(
  ctx: Context & { actor: Actor },
  spec: { path: string; input: unknown; txOptions?: TransactionOptions },
  work: (tx: Tx) => Promise<WriteResult<T>>,
): Promise<T> {
  const chiave = parseIdempotencyKey(ctx.headers.get("idempotency-key"));
  const outcome = await runIdempotent(
    ctx.db,
    {
      ambito: idempotencyScope(ctx.actor),
      metodo: "POST",
      percorso: spec.path,
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
