import { z } from "zod";
import { STATI_PRENOTAZIONE } from "../../../lib/domain-lists";
import { decimalString, instantString, queryInt } from "../../lib/zod";
import { newestParams, newestShape } from "../lists/lists.schemas";

/**
 * The screens' reads of reservations (docs/api.md section 14, "the screens"): the manager's list newest first,
 * and who holds an article. Not REST: the contract's list is GET /prenotazioni; these add the names a person reads.
 */

export const RESERVATIONS_SCREEN_PAGE = 100;

export const newestReservationsInput = z.strictObject({
  limite: queryInt(1, RESERVATIONS_SCREEN_PAGE)
    .optional()
    .meta({ description: `Prenotazioni per pagina, 1..${RESERVATIONS_SCREEN_PAGE} (predefinito 50)` }),
  ...newestParams("le prenotazioni"),
  magazzino: queryInt(1, 2_147_483_647).optional().meta({ description: "Id magazzino" }),
  stato: z
    .enum(STATI_PRENOTAZIONE, { error: `deve essere uno tra ${STATI_PRENOTAZIONE.join(", ")}` })
    .optional()
    .meta({ description: "Lo stato come lo mostra lo schermo: una `attiva` oltre `scade_il` è `scaduta`" }),
});
export type NewestReservationsInput = z.infer<typeof newestReservationsInput>;
/** What a caller sends: the query's strings, as the screen holds them. */
export type NewestReservationsParams = z.input<typeof newestReservationsInput>;

const named = z.object({ id: z.number().int(), codice: z.string(), nome: z.string() });

export const screenReservationOutput = z.object({
  id: z.number().int(),
  riferimento: z.string(),
  stato: z.enum(STATI_PRENOTAZIONE).meta({ description: "Lo stato in vigore: una `attiva` oltre `scade_il` è `scaduta`" }),
  scade_il: instantString().nullable(),
  magazzino: named,
  cliente: named,
  autore: z
    .object({ tipo: z.enum(["chiave", "utente"]), nome: z.string() })
    .nullable()
    .meta({ description: "Chi l'ha scritta: la chiave API (il suo nome) o l'utente" }),
  righe: z.array(
    z.object({
      numero_riga: z.number().int(),
      articolo: z.object({ id: z.number().int(), codice: z.string(), descrizione: z.string() }),
      lotto: z.string().nullable(),
      richiesta: decimalString(),
      prenotata: decimalString(),
      prelevata: decimalString(),
      spedita: decimalString(),
      scoperta: decimalString(),
    }),
  ),
});
export type ScreenReservationOutput = z.infer<typeof screenReservationOutput>;

export const newestReservationsOutput = z.object({ prenotazioni: z.array(screenReservationOutput), ...newestShape });

export const HOLDERS_SHOWN = 50;

export const holdersInput = z.strictObject({ articolo: z.number().int().min(1).max(2_147_483_647) });

export const holdersOutput = z.object({
  /** The rows that hold the article now, oldest reservation first, at most HOLDERS_SHOWN. */
  righe: z.array(
    z.object({
      prenotazione: z.number().int(),
      riferimento: z.string(),
      numero_riga: z.number().int(),
      cliente: named,
      magazzino: named,
      lotto: z.string().nullable(),
      prenotata: decimalString(),
    }),
  ),
  /** Every row that holds it, and their sum, beyond the ones shown too. */
  totale_righe: z.number().int(),
  totale_prenotata: decimalString(),
});
export type HoldersOutput = z.infer<typeof holdersOutput>;
