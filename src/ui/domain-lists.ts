import type { EventType } from "@/server/modules/events/events.schemas";
import type { ORIGINI as SERVER_ORIGINI } from "@/server/modules/movements/movements.schemas";

/**
 * Lists of the contract the screens offer as choices, written here rather than imported from the
 * server's schemas: importing a value from a schema module brings zod and the schemas into the
 * screen's JavaScript (about 80 kB on the wire). Typed as records of the server's unions, so a value
 * added or removed there is a type error here until this list follows.
 */
type Origine = (typeof SERVER_ORIGINI)[number];

const ORIGINI_ALL: Record<Origine, true> = {
  api: true,
  schermo: true,
  vendita: true,
  arrivo: true,
  annullamento: true,
  correzione: true,
};
export const ORIGINI = Object.keys(ORIGINI_ALL) as Origine[];

const EVENT_TYPES_ALL: Record<EventType, true> = {
  "movimenti.registrati": true,
  "arrivo.registrato": true,
  "arrivo.annullato": true,
  "giacenze.allineate": true,
  "documento_vendita.emesso": true,
  "ordine_acquisto.modificato": true,
  "articolo.modificato": true,
  "cliente.modificato": true,
  "fornitore.modificato": true,
};
export const EVENT_TYPES = Object.keys(EVENT_TYPES_ALL) as EventType[];
