import { assertRole, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { alignInput, alignOutput } from "./alignment.schemas";
import { alignStock } from "./alignment.service";
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
          "Il servizio legge la quantità attuale e scrive la differenza come movimento `correzione`, atomicamente. Ripetere la stessa chiamata non scrive nulla (tutte `invariata`). `simula: true` risponde senza scrivere. Fino a 10.000 righe.",
        protect: true,
      },
    })
    .input(syncParse(alignInput))
    .output(syncParse(alignOutput))
    .mutation(({ ctx, input }) => {
      // Operators count and preview; writing the corrections is a manager's decision.
      if (!input.simula) assertRole(ctx.actor, "responsabile", "La conferma dell'allineamento");
      return idempotentWrite(ctx, { path: "/giacenze/allinea", input, txOptions: { timeout: 120_000 } }, async (tx) => ({
        status: 200,
        body: await alignStock(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      }));
    }),
});
