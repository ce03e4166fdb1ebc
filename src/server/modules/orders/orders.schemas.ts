import { z } from "zod";
import { dateString, decimalString, idNumber, isoDate, pathId, priceString, rawNumber, shortText, typeError } from "../../lib/zod";

export const STATI_ORDINE = ["aperto", "parziale", "evaso"] as const;

export const listOrdersInput = z.strictObject({
  cerca: shortText(64).optional().meta({
    description:
      "Numero d'ordine, codice o nome del fornitore (contiene); oppure l'EAN o il codice GS1 di un articolo delle righe, o l'etichetta R<riga>",
  }),
  stato: z.enum(STATI_ORDINE).optional().meta({ description: "Solo gli ordini in questo stato (anche `evaso`)" }),
  includi_evasi: z
    .boolean()
    .transform((b) => b)
    .optional(),
  limite: idNumber().pipe(z.number().max(200)).optional(),
});
export type ListOrdersInput = z.infer<typeof listOrdersInput>;

export const orderSummaryOutput = z.object({
  id: z.number().int(),
  numero: z.string(),
  data: dateString(),
  stato: z.enum(STATI_ORDINE),
  fornitore: z.object({ id: z.number().int(), nome: z.string() }),
  magazzino: z.object({ id: z.number().int(), codice: z.string() }),
  righe: z.number().int(),
});
export const listOrdersOutput = z.object({ ordini: z.array(orderSummaryOutput) });

export const getOrderInput = z.strictObject({ id: idNumber() });

/** An order as printed for the receiving bay: every row with its label and the article's EAN. */
export const printableOrderOutput = orderSummaryOutput.omit({ righe: true }).extend({
  righe: z.array(
    z.object({
      riga: z.number().int(),
      posizione: z.number().int(),
      etichetta: z.string(),
      articolo: z.object({
        id: z.number().int(),
        codice: z.string(),
        ean: z.string().nullable(),
        descrizione: z.string(),
        unita: z.string(),
      }),
      ordinata: decimalString(),
      arrivata: decimalString(),
      residua: decimalString(),
    }),
  ),
});
export type PrintableOrder = z.infer<typeof printableOrderOutput>;

/**
 * The order screen's detail: every row with its closed quantity and reason, and every arrival on it (a
 * cancelled one with `annullato_da`, its reversing movement).
 */
export const orderDetailOutput = orderSummaryOutput.omit({ righe: true }).extend({
  fornitore: z.object({ id: z.number().int(), codice: z.string(), nome: z.string() }),
  righe: z.array(
    z.object({
      numero_riga: z.number().int(),
      riga: z.number().int(),
      etichetta: z.string(),
      articolo: z.object({ id: z.number().int(), codice: z.string(), descrizione: z.string(), unita: z.string() }),
      ordinata: decimalString(),
      arrivata: decimalString(),
      chiusa: decimalString(),
      residua: decimalString(),
      prezzo: decimalString(),
      motivo_chiusura: z.string().nullable(),
      arrivi: z.array(
        z.object({
          movimento: z.number().int(),
          data: dateString(),
          quantita: decimalString(),
          lotto: z.string().nullable(),
          autore: z.object({ tipo: z.enum(["chiave", "utente"]), nome: z.string() }).nullable(),
          annullato_da: z.number().int().nullable(),
        }),
      ),
    }),
  ),
});
export type OrderDetail = z.infer<typeof orderDetailOutput>;

// ---------------------------------------------------------------- POST /ordini-acquisto (docs/api.md section 9)

export const MAX_ORDERS_PER_CALL = 100;
export const MAX_ORDER_ROWS_PER_CALL = 500;

/**
 * One order as the service checks it, strictly: a fault here is that order's outcome (`campo_non_valido`,
 * naming the field), never the call's (docs/api.md sections 2 and 9). Exported for the OpenAPI document, which
 * describes the rows a client sends this way.
 */
export const purchaseOrderRowStrict = z.strictObject({
  numero_riga: idNumber().meta({
    description: "Numero di riga dell'integratore (≥ 1): la chiave stabile della riga tra una sostituzione e l'altra",
  }),
  articolo: shortText(64).meta({ description: "Codice articolo (una variante, non un modello)" }),
  quantita: rawNumber().meta({ description: "Quantità ordinata: maggiore di zero, al massimo 3 decimali" }),
  prezzo: priceString(),
});

export const purchaseOrderStrict = z.strictObject({
  numero: shortText(64).meta({ description: "Numero d'ordine: con il fornitore, identifica l'ordine" }),
  fornitore: shortText(64).meta({ description: "Codice fornitore" }),
  data: isoDate(),
  magazzino: shortText(64).meta({ description: "Codice del magazzino di destinazione" }),
  righe: z.array(purchaseOrderRowStrict, { error: typeError("deve essere un elenco [ … ] di righe") }).min(1, "almeno una riga"),
});
export type OrderUpsertInput = z.infer<typeof purchaseOrderStrict>;

/**
 * The request as the procedure parses it: the envelope strictly (an object with `ordini`, an array of
 * objects), each order loosely, so that the service refuses a malformed order as that order's outcome. The
 * OpenAPI document describes each order with purchaseOrderStrict (trpc/openapi-shape.ts).
 */
const orderEnvelopeRow = z.looseObject({}).meta({
  description:
    "Un ordine. Un ordine malformato (un campo mancante, di tipo sbagliato o sconosciuto, una data impossibile) è rifiutato da solo " +
    "con `campo_non_valido` e il campo in `errore.campo`; gli altri ordini della chiamata si scrivono.",
});

export const upsertOrdersInput = z.strictObject({
  ordini: z.array(orderEnvelopeRow, { error: typeError("deve essere un elenco [ … ] di ordini (oggetti)") }).min(1, "almeno un ordine"),
});
export type UpsertOrdersInput = z.infer<typeof upsertOrdersInput>;

const rowError = z.object({
  codice: z.string(),
  messaggio: z.string(),
  campo: z
    .string()
    .optional()
    .meta({ description: "Con `campo_non_valido`: il campo dell'ordine in errore (`data`, `righe[0].quantita`)" }),
});

export const upsertOrdersOutput = z.object({
  creati: z.number().int(),
  aggiornati: z.number().int(),
  invariati: z.number().int(),
  rifiutati: z.number().int(),
  righe: z.array(
    z.object({
      indice: z.number().int(),
      numero: z.string().nullable().meta({ description: "Il numero dell'ordine; null quando manca o non è una stringa" }),
      id: z.number().int().optional().meta({ description: "Id dell'ordine (assente se rifiutato prima di esistere)" }),
      esito: z.enum(["creato", "aggiornato", "invariato", "rifiutato"]),
      righe: z
        .array(z.object({ numero_riga: z.number().int(), riga: z.number().int(), etichetta: z.string() }))
        .optional()
        .meta({ description: "Le righe dell'ordine: `riga` è l'id usato da POST /arrivi e dall'etichetta R<riga>" }),
      errore: rowError.optional(),
    }),
  ),
});
export type UpsertOrdersOutput = z.infer<typeof upsertOrdersOutput>;

// ---------------------------------------------------------------- POST /ordini-acquisto/{id}/chiudi

export const closeOrderInput = z.strictObject({
  id: pathId(),
  righe: z
    .array(idNumber())
    .min(1, "almeno una riga; per chiudere tutte le righe omettere 'righe'")
    .optional()
    .meta({ description: "Numeri di riga (`numero_riga`) da chiudere; assente: tutte le righe" }),
  motivo: shortText(500).optional().meta({ description: "Motivo della chiusura, conservato sulla riga" }),
});
export type CloseOrderInput = z.infer<typeof closeOrderInput>;

export const closeOrderOutput = z.object({
  ordine: z.object({ id: z.number().int(), numero: z.string(), stato: z.enum(STATI_ORDINE) }),
  chiusi: z.number().int(),
  invariati: z.number().int(),
  righe: z.array(
    z.object({
      numero_riga: z.number().int(),
      riga: z.number().int(),
      esito: z
        .enum(["chiuso", "invariato"])
        .meta({ description: "`invariato`: nulla restava da chiudere (riga già chiusa o ricevuta per intero)" }),
      ordinata: decimalString(),
      arrivata: decimalString(),
      chiusa: decimalString(),
      residua: decimalString(),
      motivo: z.string().nullable(),
    }),
  ),
});
export type CloseOrderOutput = z.infer<typeof closeOrderOutput>;
