import { z } from "zod";
import { articoloRef, dateString, decimalString, idNumber, isoDate, queryInt, rawNumber, shortText, typeError } from "../../lib/zod";
import { feedPageShape, modificatiDopoParam, versione } from "../feeds/feeds.schemas";
import { listParams } from "../lists/lists.schemas";
import { MOTIVI_DIFFERENZA, type MotivoDifferenza, PALLET_STATES } from "../arrivals/receiving.schemas";

/** docs/api.md section 12: shipping notices and their fill rate (pallets and differences: arrivals/receiving.schemas.ts). */

export const MAX_NOTICES_PER_CALL = 100;
export const MAX_NOTICE_ROWS_PER_CALL = 500;
export const MAX_NOTICE_PAGE = 100;
export const NOTICE_STATES = ["atteso", "in_ricevimento", "ricevuto"] as const;

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
