import { z } from "zod";
import { rowErrorOutput, rowsOf } from "../../lib/rows";
import {
  articoloRef,
  dateString,
  decimalString,
  idNumber,
  instantString,
  isoDate,
  queryInt,
  rawNumber,
  shortText,
  typeError,
} from "../../lib/zod";
import { feedPageShape, modificatiDopoParam, versione } from "../feeds/feeds.schemas";
import { listParams, periodParams } from "../lists/lists.schemas";

/** docs/api.md section 12: shipping notices, pallets (SSCC), receiving differences. */

export const MAX_NOTICES_PER_CALL = 100;
export const MAX_NOTICE_ROWS_PER_CALL = 500;
export const MAX_NOTICE_PAGE = 100;
export const NOTICE_STATES = ["atteso", "in_ricevimento", "ricevuto"] as const;
export const PALLET_STATES = ["atteso", "ricevuto"] as const;
export const MOTIVI_DIFFERENZA = ["mancante", "danneggiato", "eccedente", "errato"] as const;
export type MotivoDifferenza = (typeof MOTIVI_DIFFERENZA)[number];

// ---------------------------------------------------------------- POST /avvisi-spedizione

const noticeRow = z.strictObject({
  ordine: shortText(64).meta({ description: "Numero dell'ordine d'acquisto (dello stesso fornitore)" }),
  numero_riga: idNumber().meta({ description: "Il `numero_riga` della riga d'ordine" }),
  quantita: rawNumber(),
  lotto: shortText(64).optional(),
  scadenza: isoDate().optional(),
});

const noticePallet = z.strictObject({
  sscc: z.string({ error: typeError("deve essere una stringa") }).meta({ description: "SSCC di 18 cifre con la cifra di controllo GS1" }),
  righe: z.array(noticeRow).min(1, "almeno una riga"),
});

/** One notice, parsed strictly on its own (a malformed one is that notice's outcome, as orders are). */
export const noticeStrict = z.strictObject({
  numero: shortText(64),
  fornitore: shortText(64).meta({ description: "Codice del fornitore" }),
  magazzino: shortText(64).meta({ description: "Codice del magazzino" }),
  data_prevista: isoDate().optional(),
  colli: z.array(noticePallet).min(1, "almeno un collo"),
});
export type NoticeInput = z.infer<typeof noticeStrict>;

export const upsertNoticesInput = z.strictObject({
  avvisi: z
    .array(z.looseObject({}).meta({ description: "Un avviso: vedi AvvisoSpedizioneIn" }))
    .min(1, "almeno un avviso")
    .meta({ description: `Fino a ${MAX_NOTICES_PER_CALL} avvisi, ${MAX_NOTICE_ROWS_PER_CALL} righe in tutto` }),
});
export type UpsertNoticesInput = z.infer<typeof upsertNoticesInput>;

const errorBody = z.object({ codice: z.string(), messaggio: z.string(), campo: z.string().optional() });

export const upsertNoticesOutput = z.object({
  creati: z.number().int(),
  aggiornati: z.number().int(),
  invariati: z.number().int(),
  rifiutati: z.number().int(),
  righe: z.array(
    z.object({
      indice: z.number().int(),
      numero: z.string().nullable(),
      id: z.number().int().optional(),
      esito: z.enum(["creato", "aggiornato", "invariato", "rifiutato"]),
      errore: errorBody.optional(),
    }),
  ),
});
export type UpsertNoticesOutput = z.infer<typeof upsertNoticesOutput>;

// ---------------------------------------------------------------- GET /avvisi-spedizione

export const noticeOutput = z.object({
  id: z.number().int(),
  numero: z.string(),
  fornitore: z.object({ id: z.number().int(), codice: z.string(), nome: z.string() }),
  magazzino: z.number().int(),
  data_prevista: dateString().nullable(),
  stato: z.enum(NOTICE_STATES),
  versione,
  colli: z.array(
    z.object({
      sscc: z.string(),
      stato: z.enum(PALLET_STATES),
      righe: z.array(
        z.object({
          indice: z.number().int(),
          riga: z.number().int(),
          ordine: z.object({ id: z.number().int(), numero: z.string() }),
          numero_riga: z.number().int(),
          articolo: articoloRef,
          quantita: decimalString(),
          lotto: z.string().nullable(),
          scadenza: dateString().nullable(),
        }),
      ),
    }),
  ),
});
export type NoticeOutput = z.infer<typeof noticeOutput>;

export const listNoticesInput = z.strictObject({
  ...listParams(MAX_NOTICE_PAGE),
  modificati_dopo: modificatiDopoParam(),
  fornitore: queryInt(1, 2_147_483_647).optional().meta({ description: "Id fornitore" }),
  stato: z.enum(NOTICE_STATES, { error: `deve essere uno tra ${NOTICE_STATES.join(", ")}` }).optional(),
});
export type ListNoticesInput = z.infer<typeof listNoticesInput>;

export const listNoticesOutput = z.object({ avvisi: z.array(noticeOutput), ...feedPageShape });

// ---------------------------------------------------------------- pallets

/** The pallet a scan of its SSCC answers (POST /arrivi/cerca `collo`). */
export const palletOutput = z.object({
  sscc: z.string(),
  avviso: z.object({ id: z.number().int(), numero: z.string() }),
  stato: z.enum(PALLET_STATES),
  ricevuto: z
    .object({
      da: z.string().meta({ description: "Chi l'ha ricevuto: il nome della chiave API o dell'utente" }),
      ddt: z.string().meta({ description: "Il DDT con cui è stato ricevuto" }),
      il: instantString().meta({ description: "Quando (ISO 8601 con il fuso del servizio)" }),
    })
    .optional()
    .meta({ description: "Solo con `stato` `ricevuto`: chi l'ha ricevuto, con quale DDT, quando" }),
  righe: z.array(
    z.object({
      indice: z.number().int(),
      riga: z.number().int(),
      ordine: z.object({ id: z.number().int(), numero: z.string() }),
      articolo: articoloRef,
      quantita: decimalString(),
      lotto: z.string().nullable(),
      scadenza: dateString().nullable(),
      residua: decimalString(),
    }),
  ),
});
export type PalletOutput = z.infer<typeof palletOutput>;

export const palletInput = z.strictObject({ sscc: z.string().regex(/^\d{18}$/, "18 cifre") });

const ssccPath = z.string().meta({ description: "SSCC di 18 cifre" });

/** A declared difference of a pallet row, as the service checks it (lib/rows.ts); the OpenAPI document describes it so. */
export const palletDifferenceInput = z.strictObject({
  indice: z
    .number({ error: typeError("deve essere un numero intero") })
    .transform((n) => n)
    .pipe(z.number().int("deve essere un numero intero").min(0, "non può essere negativo").max(499, "al massimo 499"))
    .meta({ type: "integer", minimum: 0, maximum: 499 } as Record<string, unknown>),
  quantita: rawNumber(),
  motivo: z.enum(MOTIVI_DIFFERENZA, { error: `deve essere uno tra ${MOTIVI_DIFFERENZA.join(", ")}` }),
  nota: shortText(500).optional(),
});

export type PalletDifference = z.output<typeof palletDifferenceInput>;

export const receivePalletInput = z.strictObject({
  sscc: ssccPath,
  ddt: shortText(64).meta({ description: "Riferimento del documento di trasporto del fornitore" }),
  ubicazione: shortText(64)
    .optional()
    .meta({ description: "Codice dell'ubicazione (magazzini con ubicazioni); assente: quella di ricevimento" }),
  differenze: rowsOf(
    palletDifferenceInput,
    "differenze",
    "Una differenza dichiarata su una riga del collo. Una differenza malformata (un campo mancante, di tipo sbagliato o sconosciuto) " +
      "rifiuta da sola la riga del collo che nomina (`indice`), con `campo_non_valido` e il campo in `errore.campo`; le altre righe si ricevono.",
  ).optional(),
});
export type ReceivePalletInput = z.infer<typeof receivePalletInput>;
/** What a caller sends (a screen's queued receipt): the differences typed as the service checks them. */
export type ReceivePalletRequest = z.input<typeof receivePalletInput>;

export const cancelPalletInput = z.strictObject({ sscc: ssccPath });

const palletRowOutcome = z.object({
  indice: z.number().int(),
  riga: z.number().int(),
  esito: z.enum(["registrata", "rifiutata", "non_ricevuta"]),
  movimento: z.number().int().optional(),
  arrivata: decimalString().optional(),
  residua: decimalString().optional(),
  ricevuta: decimalString().optional().meta({ description: "Quanto della riga del collo è entrato" }),
  differenze: z.array(z.object({ id: z.number().int(), motivo: z.enum(MOTIVI_DIFFERENZA), quantita: decimalString() })).optional(),
  errore: rowErrorOutput.optional(),
});

export const receivePalletOutput = z.object({
  operazione: z.number().int().nullable(),
  registrate: z.number().int(),
  rifiutate: z.number().int(),
  righe: z.array(palletRowOutcome),
  collo: z.object({ sscc: z.string(), stato: z.enum(PALLET_STATES) }),
});
export type ReceivePalletOutput = z.infer<typeof receivePalletOutput>;

export const cancelPalletOutput = z.object({
  annullati: z.number().int(),
  righe: z.array(
    z.object({
      annullato: z.number().int(),
      movimento: z.number().int(),
      riga: z.object({ riga: z.number().int(), arrivata: decimalString(), residua: decimalString() }),
    }),
  ),
  differenze_annullate: z.number().int(),
  collo: z.object({ sscc: z.string(), stato: z.enum(PALLET_STATES) }),
});
export type CancelPalletOutput = z.infer<typeof cancelPalletOutput>;

// ---------------------------------------------------------------- differences

export const differenceOutput = z.object({
  id: z.number().int(),
  data: dateString(),
  fornitore: z.object({ id: z.number().int(), codice: z.string() }),
  avviso: z.object({ id: z.number().int(), numero: z.string() }).nullable(),
  sscc: z.string().nullable(),
  riga: z.number().int(),
  articolo: articoloRef,
  attesa: decimalString().nullable().meta({ description: "La quantità annunciata (dall'avviso) o attesa; null se non nota" }),
  ricevuta: decimalString(),
  quantita: decimalString(),
  motivo: z.enum(MOTIVI_DIFFERENZA),
  nota: z.string().nullable(),
  annullata: z.boolean().meta({ description: "true: il ricevimento del suo collo è stato annullato, la differenza non conta più" }),
  autore: z.object({ tipo: z.enum(["chiave", "utente"]), id: z.number().int(), nome: z.string() }).nullable(),
  foto: z.number().int().meta({ description: "Quante foto ha (0..5): GET /differenze-ricevimento/{id}/foto/{n}, n da 1" }),
});
export type DifferenceOutput = z.infer<typeof differenceOutput>;

export const listDifferencesInput = z.strictObject({
  ...listParams(MAX_NOTICE_PAGE),
  ...periodParams,
  fornitore: queryInt(1, 2_147_483_647).optional().meta({ description: "Id fornitore" }),
  motivo: z.enum(MOTIVI_DIFFERENZA, { error: `deve essere uno tra ${MOTIVI_DIFFERENZA.join(", ")}` }).optional(),
});
export type ListDifferencesInput = z.infer<typeof listDifferencesInput>;

export const listDifferencesOutput = z.object({
  differenze: z.array(differenceOutput),
  altri: z.boolean(),
  cursore: z.number().int(),
});

/**
 * Each supplier's fill rate over a period: GET /differenze-ricevimento/tasso-riempimento and the managers' screen
 * (the screen passes no `fornitore`; REST sends every parameter as text, hence the string pipes).
 */
export const fillRateInput = z.strictObject({
  da: isoDate().meta({ description: "Primo giorno del periodo (AAAA-MM-GG), sulla data prevista degli avvisi (o di creazione)" }),
  a: isoDate().meta({ description: "Ultimo giorno del periodo (AAAA-MM-GG), incluso" }),
  fornitore: queryInt(1, 2_147_483_647).optional().meta({ description: "Id fornitore: solo il suo tasso" }),
});
export const fillRateOutput = z.object({
  fornitori: z.array(
    z.object({
      fornitore: z.object({ id: z.number().int(), codice: z.string() }),
      annunciata: decimalString().meta({ description: "Quantità annunciata dagli avvisi del periodo" }),
      ricevuta: decimalString().meta({ description: "Quantità ricevuta dai loro colli (ricevimenti non annullati)" }),
      tasso: decimalString()
        .nullable()
        .meta({ description: 'ricevuta / annunciata, fino a 4 decimali ("0.95" = 95%); null se nulla è annunciato' }),
      differenze: z
        .object(
          Object.fromEntries(MOTIVI_DIFFERENZA.map((m) => [m, decimalString().optional()])) as Record<
            MotivoDifferenza,
            z.ZodOptional<z.ZodString>
          >,
        )
        .meta({
          description:
            "Quantità delle differenze non annullate per motivo (mancante, danneggiato, eccedente, errato); un motivo senza differenze manca",
        }),
    }),
  ),
});
export type FillRateOutput = z.infer<typeof fillRateOutput>;

/** A difference declared beside an arrival of POST /arrivi (section 12: it needs its quantita). */
export const arrivalDifference = z.strictObject({
  quantita: rawNumber(),
  motivo: z.enum(MOTIVI_DIFFERENZA, { error: `deve essere uno tra ${MOTIVI_DIFFERENZA.join(", ")}` }),
  nota: shortText(500).optional(),
});
