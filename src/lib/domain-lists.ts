/**
 * Lists of the contract that both the server (its zod schemas, the command line) and the screens (their
 * choices) need: plain constants, no imports, so that a screen taking one does not bring zod and the
 * server's schemas into its JavaScript.
 */

/** Who wrote a movement: `origine` of docs/api.md section 4. */
export const ORIGINI = [
  "api",
  "schermo",
  "vendita",
  "arrivo",
  "annullamento",
  "correzione",
  // Putaway and moves from the putaway screen (docs/api.md section 11).
  "stoccaggio",
  // Returns to the supplier (docs/api.md section 12).
  "reso_fornitore",
] as const;
export type Origine = (typeof ORIGINI)[number];

/** The event types of docs/api.md section 10. */
export const EVENT_TYPES = [
  "movimenti.registrati",
  "arrivo.registrato",
  "arrivo.annullato",
  "giacenze.allineate",
  "documento_vendita.emesso",
  "ordine_acquisto.modificato",
  "articolo.modificato",
  "cliente.modificato",
  "fornitore.modificato",
  "magazzino.modificato",
  // Locations (docs/api.md section 11).
  "ubicazione.modificato",
  "avviso_spedizione.modificato",
  "ricevimento.differenza",
  "reso_fornitore.registrato",
  // Reservations (docs/api.md section 14).
  "prenotazione.modificata",
  "prenotazione.scoperta",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The kinds of location of docs/api.md section 11. */
export const TIPI_UBICAZIONE = ["ricevimento", "stoccaggio", "quarantena"] as const;
export type TipoUbicazione = (typeof TIPI_UBICAZIONE)[number];

/** The states of a reservation (docs/api.md section 14). */
export const STATI_PRENOTAZIONE = ["attiva", "in_prelievo", "evasa", "annullata", "scaduta"] as const;
