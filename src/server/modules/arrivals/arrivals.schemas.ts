import { z } from "zod";
import { arrivalDifference, palletOutput } from "./receiving.schemas";
import { rowErrorOutput, rowsOf } from "../../lib/rows";
import {
  articoloRef,
  dateString,
  decimalString,
  idNumber,
  instantString,
  isoDate,
  pathId,
  priceString,
  rawNumber,
  shortText,
  typeError,
} from "../../lib/zod";

export const MAX_ARRIVAL_ROWS = 500;
export const MOTIVI = ["codice_sconosciuto", "non_atteso", "riga_evasa"] as const;

/** JSON booleans as a pipe: trpc-to-openapi would otherwise coerce "false" into true. */
const bool = () => z.boolean({ error: typeError("deve essere true o false") }).transform((b) => b);

const barcode = () =>
  z
    .string({ error: typeError("deve essere una stringa") })
    .min(1, "non può essere vuoto")
    .max(200, "al massimo 200 caratteri");
const BARCODE_META = { description: "Codice letto: EAN, etichetta d'ordine R<riga>, GS1-128/DataMatrix con (01), (10), (17)" };

export const searchInput = z
  .strictObject({
    barcode: barcode().optional().meta(BARCODE_META),
    fornitore: idNumber().optional(),
    articolo: idNumber().optional(),
    codice: shortText(64).optional(),
    ordine: idNumber().optional(),
    magazzino: idNumber().optional(),
    da: isoDate().optional(),
    a: isoDate().optional(),
    includi_evase: bool().optional(),
    limite: idNumber()
      .pipe(z.number().max(100, "al massimo 100"))
      .meta({ type: "integer", minimum: 1, maximum: 100 } as Record<string, unknown>)
      .optional(),
    dopo: z
      .number({ error: typeError("deve essere un numero intero") })
      .transform((n) => n)
      // An order id: beyond PostgreSQL's integer the comparison would fail in the database, not here.
      .pipe(
        z
          .number()
          .int("deve essere un numero intero")
          .min(0, "non può essere negativo")
          .max(2_147_483_647, "deve essere al massimo 2147483647"),
      )
      .meta({ type: "integer", minimum: 0, maximum: 2_147_483_647 } as Record<string, unknown>)
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.barcode !== undefined) {
      const others = Object.keys(b).filter((k) => k !== "barcode");
      for (const k of others)
        ctx.addIssue({ code: "custom", path: [k], message: "non ammesso insieme a 'barcode': il codice letto basta da solo" });
    }
    if (b.da && b.a && b.da > b.a) ctx.addIssue({ code: "custom", path: ["da"], message: `successivo ad 'a' (${b.a})` });
  });
export type SearchInput = z.infer<typeof searchInput>;

const registrato = z.object({ movimento: z.number().int(), data: dateString(), quantita: decimalString() });

export const expectedRow = z.object({
  riga: z.number().int(),
  etichetta: z.string().meta({ description: "Etichetta da stampare sull'ordine: R<riga>" }),
  articolo: articoloRef,
  descrizione: z.string(),
  ordinata: decimalString(),
  arrivata: decimalString(),
  residua: decimalString(),
  prezzo_proposto: decimalString(),
  chiede_lotto: z.boolean(),
  registrati: z.array(registrato),
});

export const expectedOrder = z.object({
  id: z.number().int(),
  numero: z.string(),
  data: dateString(),
  stato: z.enum(["aperto", "parziale", "evaso"]),
  fornitore: z.object({ id: z.number().int(), nome: z.string() }),
  magazzino: z.number().int(),
  righe: z.array(expectedRow),
});
export type ExpectedOrder = z.infer<typeof expectedOrder>;

export const searchOutput = z.object({
  ordini: z.array(expectedOrder),
  totale_ordini: z.number().int(),
  totale_righe: z.number().int(),
  altri: z.boolean(),
  cursore: z.number().int(),
  motivo: z.string().optional(),
  motivo_codice: z.enum(MOTIVI).optional(),
  lettura: z.object({ gtin: z.string(), lotto: z.string().nullable(), scadenza: dateString().nullable() }).optional(),
  collo: palletOutput.optional().meta({ description: "Con un SSCC (18 cifre, o GS1 con (00)): il collo annunciato e le sue righe" }),
});
export type SearchOutput = z.infer<typeof searchOutput>;

const arrivalFields = {
  riga: idNumber(),
  quantita: rawNumber().optional().meta({ description: "Assente: tutta la quantità residua della riga" }),
  lotto: shortText(64).optional(),
  scadenza: isoDate().optional(),
  prezzo: priceString().optional(),
  ubicazione: shortText(64)
    .optional()
    .meta({ description: "Magazzini con ubicazioni: dove arriva la merce (codice); assente: l'ubicazione di ricevimento del magazzino" }),
  differenza: arrivalDifference
    .optional()
    .meta({ description: "Differenza dichiarata accanto all'arrivo (mancante, danneggiato, eccedente, errato): non ricevuta, registrata" }),
};

/** One row of a multi-row call, as the service checks it (lib/rows.ts); the OpenAPI document describes rows with it. */
export const arrivalRowInput = z.strictObject(arrivalFields);

export const registerInput = z
  .strictObject({
    magazzino: idNumber(),
    ddt: shortText(64).meta({ description: "Riferimento del documento di trasporto del fornitore" }),
    riga: arrivalFields.riga.optional(),
    quantita: arrivalFields.quantita,
    lotto: arrivalFields.lotto,
    scadenza: arrivalFields.scadenza,
    prezzo: arrivalFields.prezzo,
    ubicazione: arrivalFields.ubicazione,
    differenza: arrivalFields.differenza,
    righe: rowsOf(
      arrivalRowInput,
      "righe",
      "Una riga d'arrivo. Una riga malformata (un campo mancante, di tipo sbagliato o sconosciuto, una data impossibile) è rifiutata " +
        "da sola con `campo_non_valido` e il campo in `errore.campo`; le altre righe si registrano.",
    )
      .min(1, "almeno una riga")
      .optional(),
  })
  .superRefine((b, ctx) => {
    const single = ["riga", "quantita", "lotto", "scadenza", "prezzo", "ubicazione", "differenza"].filter(
      (k) => (b as Record<string, unknown>)[k] !== undefined,
    );
    if (b.righe !== undefined && single.length > 0)
      for (const k of single)
        ctx.addIssue({ code: "custom", path: [k], message: "con 'righe' i campi di riga vanno dentro ciascuna riga" });
    if (b.righe === undefined && b.riga === undefined)
      ctx.addIssue({ code: "custom", path: ["riga"], message: "indicare 'riga' (una riga d'ordine) oppure 'righe'" });
  });
export type RegisterInput = z.infer<typeof registerInput>;
export type ArrivalRowInput = z.output<typeof arrivalRowInput>;

/** One row (`riga`: 201, or the row's refusal as the request's) or several (`righe`: 200, an outcome per row). */
export function isSingleArrival(input: RegisterInput): boolean {
  return input.righe === undefined;
}

/** The row of a single-row call, as a row of several is. */
export function singleArrivalRow(input: RegisterInput): ArrivalRowInput {
  const { riga, quantita, lotto, scadenza, prezzo, ubicazione, differenza } = input;
  return { riga: riga!, quantita, lotto, scadenza, prezzo, ubicazione, differenza };
}

const orderState = z.object({ id: z.number().int(), stato: z.enum(["aperto", "parziale", "evaso"]) });

export const registerOutput = z.union([
  z.object({
    movimento: z.number().int().nullable().meta({ description: "null: quantità 0 con la sola differenza, nessun movimento" }),
    operazione: z.number().int().nullable(),
    riga: z.number().int(),
    arrivata: decimalString(),
    residua: decimalString(),
    ordine: orderState,
    differenza: z
      .number()
      .int()
      .optional()
      .meta({ description: "Id della differenza registrata con la riga (GET /differenze-ricevimento)" }),
  }),
  z.object({
    operazione: z.number().int().nullable(),
    registrate: z.number().int(),
    rifiutate: z.number().int(),
    righe: z.array(
      z.object({
        indice: z.number().int(),
        riga: z.number().int().nullable().meta({ description: "La riga d'ordine; null quando manca o non è un id (riga rifiutata)" }),
        esito: z.enum(["registrata", "rifiutata"]),
        movimento: z.number().int().optional().meta({ description: "Assente con quantità 0 e la sola differenza" }),
        arrivata: decimalString().optional(),
        residua: decimalString().optional(),
        differenza: z.number().int().optional().meta({ description: "Id della differenza registrata con la riga" }),
        errore: rowErrorOutput.optional(),
      }),
    ),
  }),
]);

export type RegisterOutput = z.infer<typeof registerOutput>;

export const cancelInput = z.strictObject({ id: pathId() });
export const cancelOutput = z.object({
  annullato: z.number().int(),
  movimento: z.number().int(),
  riga: z.object({ riga: z.number().int(), arrivata: decimalString(), residua: decimalString() }),
  ordine: orderState,
});
export type CancelOutput = z.infer<typeof cancelOutput>;

// ---------------------------------------------------------------- the receiving screen's reads (tRPC only)

/** arrivals.scan: POST /arrivi/cerca by barcode, from the warehouse the screen receives in. */
export const scanInput = z.strictObject({
  barcode: barcode().meta(BARCODE_META),
  magazzino: idNumber().optional().meta({ description: "Il magazzino in cui si riceve: proposte e totali solo delle sue righe" }),
});
export type ScanInput = z.infer<typeof scanInput>;

export const scanOutput = searchOutput.extend({
  motivo_codice: z.enum([...MOTIVI, "altro_magazzino"]).optional(),
  /** The article is expected only in other warehouses: the oldest such row, never proposed (`ordini` is empty). */
  altro_magazzino: z.object({ ordini: z.array(expectedOrder), totale_righe: z.number().int() }).optional(),
  /** A label R<riga> of an order of another warehouse than `magazzino`: answered, but it is not received here. */
  magazzino_diverso: z.literal(true).optional(),
});
export type ScanOutput = z.infer<typeof scanOutput>;

/** arrivals.today: the arrivals registered today (business date), from any device. */
export const todayInput = z.strictObject({
  ddt: shortText(64).optional(),
  mine: bool().optional(),
  magazzino: idNumber().optional(),
});
export type TodayInput = z.infer<typeof todayInput>;

export const MAX_TODAY_ARRIVALS = 500;

export const todayArrival = z.object({
  movimento: z.number().int(),
  operazione: z.number().int(),
  riga: z.number().int(),
  etichetta: z.string(),
  articolo: articoloRef,
  descrizione: z.string(),
  quantita: decimalString(),
  /** The article's unit of measure. */
  unita: z.string(),
  lotto: z.string().nullable(),
  scadenza: dateString().nullable(),
  ddt: z.string(),
  ordine: z.object({ id: z.number().int(), numero: z.string() }),
  fornitore: z.object({ id: z.number().int(), nome: z.string() }),
  magazzino: z.number().int(),
  utente: z.object({ id: z.number().int(), username: z.string() }).nullable(),
  registrato_il: instantString(),
  annullato: z.boolean(),
  annullabile: z.boolean(),
});
export type TodayArrival = z.infer<typeof todayArrival>;

export const todayOutput = z.object({ arrivi: z.array(todayArrival), altri: z.boolean() });
export type TodayOutput = z.infer<typeof todayOutput>;

/** arrivals.expected: a warehouse's open expected rows, the handheld's offline copy. */
export const expectedInput = z.strictObject({ magazzino: idNumber() });

export const MAX_OFFLINE_ROWS = 5_000;

/** An expected row as a scan answers it, less its arrivals, with its EAN and its order's header. */
export const offlineRow = expectedRow.omit({ registrati: true }).extend({
  ean: z.string().nullable(),
  ordine: expectedOrder.omit({ righe: true }),
});

export const expectedOutput = z.object({
  magazzino: z.number().int(),
  al: z.string(),
  righe: z.array(offlineRow),
  completo: z.boolean(),
});
export type ExpectedOutput = z.infer<typeof expectedOutput>;
