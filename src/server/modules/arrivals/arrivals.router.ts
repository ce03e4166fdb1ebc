import { isZodError, validationError } from "../../trpc/errors";
import { readProcedure, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import {
  cancelInput,
  cancelOutput,
  expectedInput,
  expectedOutput,
  isSingleArrival,
  registerInput,
  registerOutput,
  scanInput,
  scanOutput,
  searchInput,
  searchOutput,
  todayInput,
  todayOutput,
} from "./arrivals.schemas";
import { cancelArrival } from "./cancel.service";
import { expectedRowsOf } from "./expected.service";
import { registerArrivals } from "./register.service";
import { scanExpected, searchExpected } from "./search.service";
import { todaysArrivals } from "./today.service";
import { syncParse } from "../../lib/zod";

/**
 * docs/api.md section 2: the body of a search by filters is a list's parameters, and a badly written filter
 * (a date that is no date, `limite: 101`, an unknown name) is `filtro_non_valido`, always. A search by
 * `barcode` is not a list: a bad barcode, or filters beside it, stay `richiesta_non_valida`.
 * Refused here, where the input is parsed, as syncParse does for speed: the schema (and so the
 * OpenAPI document) stays the one in arrivals.schemas.ts.
 */
function refusingFiltersAsFilters(schema: typeof searchInput): typeof searchInput {
  const parse = schema.parse.bind(schema);
  schema.parse = (data, params) => {
    try {
      return parse(data, params);
    } catch (e) {
      if (!isZodError(e)) throw e;
      const byBarcode = typeof data === "object" && data !== null && "barcode" in data;
      throw validationError(e.issues, !byBarcode);
    }
  };
  return schema;
}

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
    .input(syncParse(refusingFiltersAsFilters(searchInput)))
    .output(syncParse(searchOutput))
    .mutation(({ ctx, input }) => searchExpected(ctx.db, input, { timeZone: ctx.config.SERVICE_TIME_ZONE })),

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
      idempotentWrite(ctx, { input }, async (tx) => ({
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
        description:
          "Nei magazzini con ubicazioni la merce torna indietro dall'ubicazione in cui l'arrivo l'ha messa; se lì non c'è più, 409 `merce_spostata` dice dove si trova: riportarla, poi annullare.",
        protect: true,
      },
    })
    .input(syncParse(cancelInput))
    .output(syncParse(cancelOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await cancelArrival(tx, ctx.actor, input.id, { timeZone: ctx.config.SERVICE_TIME_ZONE }),
      })),
    ),

  // The receiving screen's reads (tRPC only, no openapi meta: /api/v1 is unchanged).

  /** A scan from the warehouse the screen receives in; a mutation, as `search` is, for its body. */
  scan: readProcedure
    .input(syncParse(scanInput))
    .output(syncParse(scanOutput))
    .mutation(({ ctx, input }) => scanExpected(ctx.db, input, { timeZone: ctx.config.SERVICE_TIME_ZONE })),

  today: readProcedure
    .input(syncParse(todayInput))
    .output(syncParse(todayOutput))
    .query(({ ctx, input }) => todaysArrivals(ctx.db, ctx.actor, input, { timeZone: ctx.config.SERVICE_TIME_ZONE })),

  expected: readProcedure
    .input(syncParse(expectedInput))
    .output(syncParse(expectedOutput))
    .query(({ ctx, input }) => expectedRowsOf(ctx.db, input.magazzino, { timeZone: ctx.config.SERVICE_TIME_ZONE })),
});
