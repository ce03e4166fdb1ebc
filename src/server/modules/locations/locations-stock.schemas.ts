import { z } from "zod";
import { articoloRef, dateString, decimalString, instantString, pathId, queryBool, queryInt } from "../../lib/zod";
import { listParams, pageShape } from "../lists/lists.schemas";

/** Reads of stock by location (docs/api.md section 11): what each location holds, where one article lies, what waits for putaway. */

/** A snapshot of stock, like /disponibilita: pages of up to 500 rows, so a full scan costs few round trips. */
export const MAX_LOCATION_STOCK_PAGE = 500;

const warehouseParam = () =>
  queryInt(1, 2_147_483_647).meta({ description: "Id del magazzino (obbligatorio): un magazzino senza ubicazioni non ha righe" });

const codeFilter = (what: string) =>
  z.string().trim().min(1, "non può essere vuoto").max(100, "al massimo 100 caratteri").optional().meta({ description: what });

export const listLocationStockInput = z.strictObject({
  ...listParams(MAX_LOCATION_STOCK_PAGE),
  magazzino: warehouseParam(),
  ubicazione: codeFilter("Solo questa ubicazione (codice, come lo legge la sua etichetta)"),
  articolo: queryInt(1, 2_147_483_647).optional().meta({ description: "Solo questo articolo (id)" }),
  lotto: codeFilter("Solo questo lotto (codice)"),
});
export type ListLocationStockInput = z.infer<typeof listLocationStockInput>;

export const locationStockRowOutput = z.object({
  id: z.number().int().meta({ description: "Stabile per (articolo, ubicazione, lotto): il cursore della lista" }),
  ubicazione: z.string(),
  articolo: articoloRef,
  lotto: z.string().nullable(),
  scadenza: dateString().nullable().meta({ description: "Scadenza del lotto (AAAA-MM-GG), o null" }),
  quantita: decimalString(),
});

export const listLocationStockOutput = z.object({ giacenze: z.array(locationStockRowOutput), ...pageShape });

export const articleLocationsInput = z.strictObject({ id: pathId(), magazzino: warehouseParam() });

const articleOutput = z.object({ id: z.number().int(), codice: z.string(), descrizione: z.string() });

const warehouseLocations = {
  giacenza: decimalString().meta({ description: "Quanto ne tengono in tutto le ubicazioni del magazzino" }),
  ubicazioni: z.array(
    z.object({
      ubicazione: z.string(),
      descrizione: z.string().nullable(),
      tipo: z.enum(["ricevimento", "stoccaggio", "quarantena"]),
      attiva: z.boolean(),
      quantita: decimalString(),
      lotti: z
        .array(z.object({ lotto: z.string(), scadenza: dateString().nullable(), quantita: decimalString() }))
        .meta({ description: "I lotti in quell'ubicazione, scadenza più vicina prima; vuoto per un articolo non gestito a lotti" }),
    }),
  ),
};

export const articleLocationsOutput = z.object({ articolo: articleOutput, magazzino: z.number().int(), ...warehouseLocations });
export type ArticleLocationsOutput = z.infer<typeof articleLocationsOutput>;

export const MAX_PUTAWAY_ROWS = 500;

export const awaitingPutawayInput = z.strictObject({
  magazzino: warehouseParam(),
  limite: queryInt(1, MAX_PUTAWAY_ROWS)
    .optional()
    .meta({ description: `Righe per pagina, le più vecchie prima, 1..${MAX_PUTAWAY_ROWS} (predefinito ${MAX_PUTAWAY_ROWS})` }),
  dopo: queryInt(0, 2_147_483_647)
    .optional()
    .meta({ description: "Il `cursore` della pagina precedente (il `movimento` della sua ultima riga); omesso o 0: dall'inizio" }),
});

export const awaitingPutawayOutput = z.object({
  da_stoccare: z.array(
    z.object({
      id: z.number().int().meta({ description: "La riga di giacenza per ubicazione (come in GET /giacenze-ubicazioni)" }),
      movimento: z.number().int().meta({
        description:
          "Il movimento che ha portato la merce nell'ubicazione quando era vuota: la chiave di paginazione (`dopo`, `cursore`), stabile finché la riga attende",
      }),
      articolo: articleOutput,
      lotto: z.string().nullable(),
      scadenza: dateString().nullable(),
      ubicazione: z.string().meta({ description: "L'ubicazione di ricevimento dove si trova la merce" }),
      quantita: decimalString(),
      arrivato_il: instantString().meta({ description: "Quando la merce è entrata in quell'ubicazione vuota (ISO 8601)" }),
      sscc: z.string().nullable().meta({ description: "Il collo (pallet) da cui viene, quando noto (sezione 12); altrimenti null" }),
    }),
  ),
  altri: z.boolean().meta({ description: "true quando c'è altra merce da stoccare dopo questa pagina: richiedere con `dopo` = `cursore`" }),
  cursore: z.number().int().meta({ description: "Il `movimento` dell'ultima riga; su una pagina vuota il `dopo` inviato" }),
});
export type AwaitingPutawayOutput = z.infer<typeof awaitingPutawayOutput>;

// ---- the screens' reads (tRPC only) ----

/** "Dov'è?": an article in every warehouse that manages locations. */
export const whereIsInput = z.strictObject({ id: pathId() });
export const whereIsOutput = z.object({
  articolo: articleOutput,
  magazzini: z.array(z.object({ magazzino: z.object({ id: z.number().int(), codice: z.string() }), ...warehouseLocations })),
});
export type WhereIsOutput = z.infer<typeof whereIsOutput>;

export const LOCATION_TYPES = ["ricevimento", "stoccaggio", "quarantena"] as const;

export const screenLocationsInput = z.strictObject({
  magazzino: queryInt(1, 2_147_483_647).optional(),
  cerca: z.string().trim().min(1).max(100).optional(),
  tipo: z.enum(LOCATION_TYPES).optional(),
  attiva: queryBool().optional(),
  limite: queryInt(1, 100).optional(),
  dopo: queryInt(0, 2_147_483_647).optional(),
});
export type ScreenLocationsInput = z.infer<typeof screenLocationsInput>;

const namedWarehouse = z.object({ id: z.number().int(), codice: z.string(), nome: z.string() });
export const screenLocationsOutput = z.object({
  magazzini: z.array(namedWarehouse),
  magazzino: z.number().int().nullable(),
  ubicazioni: z.array(
    z.object({
      id: z.number().int(),
      codice: z.string(),
      descrizione: z.string().nullable(),
      tipo: z.enum(LOCATION_TYPES),
      attiva: z.boolean(),
      righe: z.number().int(),
      articoli: z.number().int(),
    }),
  ),
  ...pageShape,
});
export type ScreenLocationsOutput = z.infer<typeof screenLocationsOutput>;
