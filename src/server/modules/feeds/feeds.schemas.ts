import { z } from "zod";
import { TIPI_UBICAZIONE } from "../../../lib/domain-lists";
import { dateString, decimalString, queryBool, queryInt } from "../../lib/zod";
import { listParams, periodParams } from "../lists/lists.schemas";

/**
 * Master data and purchase orders as lists (docs/api.md section 9): paged by id as in section 4, or, with
 * `modificati_dopo`, a change feed ordered by `versione`.
 */

export const MAX_FEED_PAGE = 100;

/** The highest version a client can send: versions are JSON numbers, exact up to 2^53 - 1. */
const MAX_VERSION = Number.MAX_SAFE_INTEGER;

/** `modificati_dopo`: the change feed's cursor (also for GET /clienti). */
export const modificatiDopoParam = () =>
  z
    .string()
    .regex(/^\d{1,16}$/, "deve essere un numero intero")
    .transform(Number)
    .pipe(z.number().int().min(0).max(MAX_VERSION, `deve essere al massimo ${MAX_VERSION}`))
    .optional()
    .meta({
      description:
        "Feed delle modifiche: solo le righe create o cambiate dopo questa versione, in ordine di `versione`, ciascuna nel suo stato attuale; " +
        "si riparte dal `cursore_versione` della risposta (0 dall'inizio). Non si combina con `dopo`.",
    });

const feedParams = {
  ...listParams(MAX_FEED_PAGE),
  modificati_dopo: modificatiDopoParam(),
  cerca: z.string().trim().min(1, "non può essere vuoto").max(100, "al massimo 100 caratteri").optional().meta({
    description: "Solo le righe il cui codice o la cui descrizione (nome) contiene questo testo, senza distinguere maiuscole e minuscole",
  }),
};

const attivo = queryBool().optional().meta({ description: "true: solo gli attivi; false: solo i disattivati" });

export const listArticlesInput = z.strictObject({
  ...feedParams,
  cerca: feedParams.cerca.meta({
    description:
      "Solo gli articoli il cui codice o la cui descrizione contiene questo testo, senza distinguere maiuscole e minuscole (docs/api.md section 9). " +
      "L'EAN non è cercato: il contratto limita `cerca` a codice e descrizione, e ogni riga porta il suo `ean`.",
  }),
  attivo,
});
export const listSuppliersInput = z.strictObject({ ...feedParams, attivo });
export const listWarehousesInput = z.strictObject({ ...feedParams, attivo });

const LOCATION_TYPES = TIPI_UBICAZIONE;

/** GET /ubicazioni (docs/api.md section 11): filters `magazzino` (id), `tipo`, `attiva`, `cerca`. */
export const listLocationsInput = z.strictObject({
  ...feedParams,
  cerca: feedParams.cerca.meta({
    description: "Solo le ubicazioni il cui codice o la cui descrizione contiene questo testo, senza distinguere maiuscole e minuscole",
  }),
  magazzino: queryInt(1, 2_147_483_647).optional().meta({ description: "Id magazzino" }),
  tipo: z.enum(LOCATION_TYPES, { error: `deve essere uno tra ${LOCATION_TYPES.join(", ")}` }).optional(),
  attiva: queryBool().optional().meta({ description: "true: solo le attive; false: solo le disattivate" }),
});
export type ListLocationsInput = z.infer<typeof listLocationsInput>;

export const ORDER_STATES = ["aperto", "parziale", "evaso"] as const;

export const listPurchaseOrdersInput = z.strictObject({
  ...feedParams,
  cerca: feedParams.cerca.meta({
    description: "Solo gli ordini il cui numero, o il codice o il nome del fornitore, contiene questo testo",
  }),
  ...periodParams,
  fornitore: queryInt(1, 2_147_483_647).optional().meta({ description: "Id fornitore" }),
  stato: z.enum(ORDER_STATES, { error: `deve essere uno tra ${ORDER_STATES.join(", ")}` }).optional(),
});

export type ListArticlesInput = z.infer<typeof listArticlesInput>;
export type ListSuppliersInput = z.infer<typeof listSuppliersInput>;
export type ListWarehousesInput = z.infer<typeof listWarehousesInput>;
export type ListPurchaseOrdersInput = z.infer<typeof listPurchaseOrdersInput>;
/** What every list of this module accepts. */
export type FeedInput = Pick<ListArticlesInput, "limite" | "dopo" | "modificati_dopo" | "cerca">;

/** Every synced row's `versione` (also on GET /clienti). */
export const versione = z
  .number()
  .int()
  .meta({ description: "Versione: presa di nuovo da ogni modifica della riga (una sequenza unica del servizio)" });

export const articleRowOutput = z.object({
  id: z.number().int(),
  codice: z.string(),
  descrizione: z.string(),
  ean: z.string().nullable(),
  gestione_lotti: z.boolean(),
  costo: decimalString().nullable().meta({ description: "Costo standard" }),
  unita: z.string(),
  modello: z.string().nullable().meta({ description: "Codice del modello di cui l'articolo è una variante; null se non è una variante" }),
  attivo: z.boolean(),
  versione,
  confezione: decimalString().meta({ description: "Confezione: quante unità conta una lettura al ricevimento e negli inventari" }),
  ubicazioni_preferite: z
    .array(z.object({ magazzino: z.number().int().meta({ description: "Id magazzino" }), ubicazione: z.string() }))
    .meta({ description: "Dove proporre lo stoccaggio, al più una per magazzino: il codice dell'ubicazione" }),
});

/** A supplier or a warehouse: both are a code, a name and a state. */
const namedRowOutput = z.object({ id: z.number().int(), codice: z.string(), nome: z.string(), attivo: z.boolean(), versione });
export const supplierRowOutput = namedRowOutput;
export const warehouseRowOutput = namedRowOutput.extend({
  gestione_ubicazioni: z.boolean().meta({ description: "Il magazzino tiene la giacenza per ubicazione (docs/api.md section 11)" }),
  ubicazione_ricevimento: z
    .string()
    .nullable()
    .meta({ description: "Codice dell'ubicazione dove arriva la merce quando un arrivo non ne indica una" }),
});

export const locationRowOutput = z.object({
  id: z.number().int(),
  magazzino: z.number().int().meta({ description: "Id magazzino" }),
  codice: z.string(),
  descrizione: z.string().nullable(),
  tipo: z.enum(LOCATION_TYPES),
  attiva: z.boolean(),
  versione,
});
export type LocationRowOutput = z.infer<typeof locationRowOutput>;
export type WarehouseRowOutput = z.infer<typeof warehouseRowOutput>;

export const purchaseOrderRowOutput = z.object({
  id: z.number().int(),
  numero: z.string(),
  fornitore: z.object({ id: z.number().int(), codice: z.string(), nome: z.string() }),
  data: dateString(),
  magazzino: z.number().int(),
  stato: z.enum(ORDER_STATES),
  versione,
  righe: z.array(
    z.object({
      numero_riga: z.number().int(),
      riga: z.number().int(),
      etichetta: z.string(),
      articolo: z.object({ id: z.number().int(), codice: z.string() }),
      ordinata: decimalString(),
      arrivata: decimalString(),
      chiusa: decimalString(),
      motivo_chiusura: z.string().nullable().meta({
        description:
          "Il motivo dato quando la riga è stata chiusa senza consegna (POST /ordini-acquisto/{id}/chiudi); null se non è chiusa",
      }),
      residua: decimalString().meta({ description: "ordinata - arrivata - chiusa" }),
      prezzo: decimalString(),
    }),
  ),
});

export type ArticleRowOutput = z.infer<typeof articleRowOutput>;
export type SupplierRowOutput = z.infer<typeof supplierRowOutput>;
export type PurchaseOrderRowOutput = z.infer<typeof purchaseOrderRowOutput>;

/** Section 4's page, plus the feed's cursor: `cursore` pages by id, `cursore_versione` (only) answers `modificati_dopo`. */
export const feedPageShape = {
  altri: z.boolean(),
  cursore: z
    .number()
    .int()
    .optional()
    .meta({ description: "Paginazione per id: l'id dell'ultima riga (sulla pagina vuota il `dopo` inviato)" }),
  cursore_versione: z
    .number()
    .int()
    .optional()
    .meta({ description: "Solo con `modificati_dopo`: la `versione` dell'ultima riga (sulla pagina vuota il `modificati_dopo` inviato)" }),
};

export const listArticlesOutput = z.object({ articoli: z.array(articleRowOutput), ...feedPageShape });
export const listSuppliersOutput = z.object({ fornitori: z.array(supplierRowOutput), ...feedPageShape });
export const listWarehousesOutput = z.object({ magazzini: z.array(warehouseRowOutput), ...feedPageShape });
export const listLocationsOutput = z.object({ ubicazioni: z.array(locationRowOutput), ...feedPageShape });
export const listPurchaseOrdersOutput = z.object({ ordini: z.array(purchaseOrderRowOutput), ...feedPageShape });
