import { z } from "zod";
import { STATI_PRENOTAZIONE } from "../../../lib/domain-lists";
import { decimalString, idNumber, instantString, pathId, priceString, queryInt, rawNumber, shortText, typeError } from "../../lib/zod";
import { feedPageShape, modificatiDopoParam } from "../feeds/feeds.schemas";
import { listParams } from "../lists/lists.schemas";

/** Reservations and available-to-promise (docs/api.md section 14). */

export const MAX_RESERVATIONS_PER_CALL = 100;
export const MAX_RESERVATION_ROWS_PER_CALL = 500;
export const MAX_RESERVATION_PAGE = 100;

/** One row as the service checks it, strictly: a fault is its reservation's `campo_non_valido`. */
export const reservationRowStrict = z.strictObject({
  numero_riga: idNumber().meta({ description: "Numero di riga del chiamante (≥ 1): la chiave stabile della riga tra un invio e l'altro" }),
  codice: shortText(64).optional().meta({ description: "Codice articolo (una variante, non un modello)" }),
  ean: shortText(64).optional().meta({ description: "EAN dell'articolo, in alternativa a `codice`" }),
  quantita: rawNumber().meta({ description: "Quantità richiesta: maggiore di zero, al massimo 3 decimali" }),
  lotto: shortText(64).optional().meta({ description: "Il lotto da tenere; assente, l'articolo senza lotto" }),
  prezzo: priceString().optional(),
});

export const reservationStrict = z.strictObject({
  riferimento: shortText(64).meta({ description: "Il numero d'ordine del chiamante: unico tra le prenotazioni della chiave" }),
  magazzino: shortText(64).meta({ description: "Codice del magazzino da cui si tiene la merce" }),
  cliente: shortText(64).meta({ description: "Codice del cliente" }),
  scade_il: z.iso
    .datetime({ offset: true, error: "deve essere un istante ISO 8601 con fuso" })
    .optional()
    .meta({
      description:
        "Da quest'istante (orologio del database) la prenotazione non tiene più nulla e diventa `scaduta` entro 60 secondi; " +
        "un istante già passato è rifiutato (`campo_non_valido`, campo `scade_il`)",
    }),
  parziale: z
    .boolean({ error: typeError("deve essere true o false") })
    .optional()
    .meta({
      description: "true: ogni riga tiene quanto è disponibile, fino alla quantità; assente o false: tutte le righe per intero o niente",
    }),
  righe: z.array(reservationRowStrict, { error: typeError("deve essere un elenco [ … ] di righe") }).min(1, "almeno una riga"),
});
export type ReservationInput = z.infer<typeof reservationStrict>;

const reservationEnvelopeRow = z.looseObject({}).meta({
  description:
    "Una prenotazione. Una prenotazione malformata è rifiutata da sola con `campo_non_valido` e il campo in `errore.campo`; le altre si scrivono.",
});

export const upsertReservationsInput = z.strictObject({
  prenotazioni: z
    .array(reservationEnvelopeRow, { error: typeError("deve essere un elenco [ … ] di prenotazioni (oggetti)") })
    .min(1, "almeno una prenotazione"),
});
export type UpsertReservationsInput = z.infer<typeof upsertReservationsInput>;

const heldRow = z.object({ numero_riga: z.number().int(), richiesta: decimalString(), prenotata: decimalString() });

export const upsertReservationsOutput = z.object({
  create: z.number().int(),
  aggiornate: z.number().int(),
  invariate: z.number().int(),
  rifiutate: z.number().int(),
  righe: z.array(
    z.object({
      indice: z.number().int(),
      riferimento: z.string().nullable().meta({ description: "Il riferimento; null quando manca o non è una stringa" }),
      id: z.number().int().optional().meta({ description: "Id della prenotazione (assente se rifiutata prima di esistere)" }),
      esito: z.enum(["creata", "aggiornata", "invariata", "rifiutata"]),
      righe: z.array(heldRow).optional().meta({ description: "Le righe: quanto è richiesto e quanto è tenuto ora" }),
      errore: z
        .object({
          codice: z.string(),
          messaggio: z.string(),
          campo: z.string().optional(),
          righe: z
            .array(z.object({ numero_riga: z.number().int(), richiesta: decimalString(), disponibile: decimalString() }))
            .optional()
            .meta({ description: "Con `disponibilita_insufficiente`: ogni riga scoperta con quanto era disponibile" }),
        })
        .optional(),
    }),
  ),
});
export type UpsertReservationsOutput = z.infer<typeof upsertReservationsOutput>;

export const cancelReservationInput = z.strictObject({
  id: pathId(),
  righe: z
    .array(idNumber())
    .min(1, "almeno una riga; per annullare tutte le righe omettere 'righe'")
    .optional()
    .meta({ description: "Numeri di riga (`numero_riga`) da rilasciare; assente: tutte" }),
});
export type CancelReservationInput = z.infer<typeof cancelReservationInput>;

export const reservationOutput = z.object({
  id: z.number().int(),
  riferimento: z.string(),
  magazzino: z.number().int(),
  cliente: z.number().int(),
  stato: z.enum(STATI_PRENOTAZIONE),
  scade_il: instantString().nullable(),
  versione: z.number().int(),
  righe: z.array(
    z.object({
      numero_riga: z.number().int(),
      articolo: z.object({ id: z.number().int(), codice: z.string() }),
      lotto: z.string().nullable(),
      richiesta: decimalString(),
      prenotata: decimalString().meta({ description: "Tenuta ora (non ancora spedita)" }),
      prelevata: decimalString().meta({ description: "Prelevata, entro `prenotata`" }),
      spedita: decimalString(),
      scoperta: decimalString().meta({ description: "Tenuta ma non più coperta dalla merce" }),
    }),
  ),
});
export type ReservationOutput = z.infer<typeof reservationOutput>;

export const listReservationsInput = z.strictObject({
  ...listParams(MAX_RESERVATION_PAGE),
  modificati_dopo: modificatiDopoParam(),
  magazzino: queryInt(1, 2_147_483_647).optional().meta({ description: "Id magazzino" }),
  cliente: queryInt(1, 2_147_483_647).optional().meta({ description: "Id cliente" }),
  stato: z.enum(STATI_PRENOTAZIONE, { error: `deve essere uno tra ${STATI_PRENOTAZIONE.join(", ")}` }).optional(),
  riferimento: shortText(64).optional().meta({ description: "Il riferimento del chiamante (esatto)" }),
});
export type ListReservationsInput = z.infer<typeof listReservationsInput>;

export const listReservationsOutput = z.object({ prenotazioni: z.array(reservationOutput), ...feedPageShape });
