import { readProcedure, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { cancelInput, cancelOutput, isSingleArrival, registerInput, registerOutput, searchInput, searchOutput } from "./arrivals.schemas";
import { cancelArrival } from "./cancel.service";
import { registerArrivals } from "./register.service";
import { searchExpected } from "./search.service";
import { syncParse } from "../../lib/zod";

export const arrivalsRouter = router({
  search: readProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/arrivi/cerca",
        tags: ["Arrivi"],
        summary: "Cerca la merce attesa: per filtri, o per codice letto (EAN, etichetta R<riga>, GS1)",
        description:
          "Un codice non atteso non è un errore: `ordini` vuoto con `motivo` (per l'operatore) e `motivo_codice`. Con `barcode`: la prima riga attesa dell'articolo, ordine più vecchio per primo.",
        protect: true,
      },
    })
    .input(syncParse(searchInput))
    .output(syncParse(searchOutput))
    .mutation(({ ctx, input }) => searchExpected(ctx.db, input)),

  register: writeProcedure
    .meta({
      idempotent: true,
      successStatuses: [201, 200],
      openapi: {
        method: "POST",
        path: "/arrivi",
        tags: ["Arrivi"],
        summary: "Registra arrivi su righe d'ordine",
        description:
          "Una riga (`riga`): 201, o 422 con il codice della riga. Più righe (`righe`): 200 con esiti per riga. Un DDT di un fornitore è una sola operazione. `quantita` assente: tutto il residuo.",
        protect: true,
      },
    })
    .input(syncParse(registerInput))
    .output(syncParse(registerOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { path: "/arrivi", input }, async (tx) => ({
        status: isSingleArrival(input) ? 201 : 200,
        body: await registerArrivals(tx, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  cancel: writeProcedure
    .meta({
      idempotent: true,
      openapi: {
        method: "POST",
        path: "/arrivi/{id}/annulla",
        tags: ["Arrivi"],
        summary: "Annulla un arrivo registrato (movimento di storno)",
        protect: true,
      },
    })
    .input(syncParse(cancelInput))
    .output(syncParse(cancelOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { path: `/arrivi/${input.id}/annulla`, input }, async (tx) => ({
        status: 200,
        body: await cancelArrival(tx, ctx.actor, input.id, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),
});
