import { z } from "zod";
import { rowErrorOutput, rowsOf } from "../../lib/rows";
import { articoloRef, dateString, decimalString, instantString, queryInt, rawNumber, shortText, typeError } from "../../lib/zod";
import { listParams, periodParams } from "../lists/lists.schemas";

/** docs/api.md section 12: a pallet (SSCC) received and cancelled, receiving differences. */

export const MAX_DIFFERENCE_PAGE = 100;
export const PALLET_STATES = ["atteso", "ricevuto"] as const;
export const MOTIVI_DIFFERENZA = ["mancante", "danneggiato", "eccedente", "errato"] as const;
export type MotivoDifferenza = (typeof MOTIVI_DIFFERENZA)[number];

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
  ...listParams(MAX_DIFFERENCE_PAGE),
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

/** A difference declared beside an arrival of POST /arrivi (section 12: it needs its quantita). */
export const arrivalDifference = z.strictObject({
  quantita: rawNumber(),
  motivo: z.enum(MOTIVI_DIFFERENZA, { error: `deve essere uno tra ${MOTIVI_DIFFERENZA.join(", ")}` }),
  nota: shortText(500).optional(),
});
