import { router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { alignInput, alignOutput } from "./alignment.schemas";
import { alignStock, assertMayAlign } from "./alignment.service";
import { syncParse } from "../../lib/zod";

export const alignmentRouter = router({
  align: writeProcedure
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/giacenze/allinea",
        tags: ["Giacenze"],
        summary: "Allinea le giacenze ai valori contati (inventario)",
        description:
          "Il servizio legge la quantità attuale e scrive la differenza come movimento `correzione`, atomicamente. Ripetere la stessa chiamata non scrive nulla (tutte `invariata`). `simula: true` risponde senza scrivere. Fino a 10.000 righe. Nei magazzini con ubicazioni si conta per (articolo, lotto, ubicazione); con `completa: true` l'ubicazione indicata è contata per intero: ciò che contiene e le righe non nominano è contato zero (righe `implicita`, dopo quelle della richiesta).",
        protect: true,
      },
    })
    .input(syncParse(alignInput))
    .output(syncParse(alignOutput))
    .mutation(({ ctx, input }) => {
      // Before the write opens: a refused role is neither a transaction nor the Idempotency-Key's stored outcome.
      assertMayAlign(ctx.actor, input);
      return idempotentWrite(ctx, { input, txOptions: { timeout: 120_000 } }, async (tx) => ({
        status: 200,
        body: await alignStock(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      }));
    }),
});
