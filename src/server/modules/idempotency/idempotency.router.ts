import { syncParse } from "../../lib/zod";
import { router, writeProcedure } from "../../trpc/init";
import { idempotencyScope } from "../auth/actor";
import { settleInput, settleOutput } from "./idempotency.schemas";
import { parseIdempotencyKey, settleKey } from "./idempotency.service";

export const idempotencyRouter = router({
  /**
   * Settles a write whose outcome is unknown without running it (tRPC only): what it did, or it is
   * abandoned and will never run. A write permission, since it stores the abandonment.
   */
  settle: writeProcedure
    .input(syncParse(settleInput))
    .output(syncParse(settleOutput))
    .mutation(({ ctx, input }) =>
      settleKey(ctx.db, {
        ambito: idempotencyScope(ctx.actor),
        metodo: "POST",
        percorso: input.percorso,
        chiave: parseIdempotencyKey(input.chiave)!,
        retentionHours: ctx.config.IDEMPOTENCY_RETENTION_HOURS,
      }),
    ),
});
