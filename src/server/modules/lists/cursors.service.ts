import type { Db } from "../../db/client";
import { first } from "../../db/sql";
import type { StartingCursors } from "./cursors.schemas";
import { SYNC_TABLES } from "../../db/advisory-locks";
import type { SyncGate } from "./lists";
import * as q from "./lists.queries";

/**
 * GET /cursori (docs/api.md section 9): for every list paged by `dopo` that a client syncs (not /disponibilita,
 * a snapshot), every change feed and the events, the cursor to store to start "from now". Each is its
 * gate's sync bound, read as the list reads it (lists.ts syncBound): every id or version at or below it
 * has committed or never will, so a client that pages on from it misses nothing committed afterwards, and
 * may see a row committed just before (never one twice). Every `modificati_dopo` is the same value: the
 * versions come from one service-wide sequence.
 */
export async function startingCursors(db: Db): Promise<StartingCursors> {
  const gates = (Object.keys(SYNC_TABLES) as SyncGate[]).map((name) => ({ name, ...SYNC_TABLES[name] }));
  const row = await first(db, q.startingCursors(gates));
  const at = (gate: SyncGate) => Number(row?.[gate] ?? 0);
  const feed = (gate: SyncGate) => ({ dopo: at(gate), modificati_dopo: at("versioni") });
  return {
    movimenti: at("movimenti"),
    documenti_vendita: at("documenti_vendita"),
    clienti: feed("clienti"),
    articoli: feed("articoli"),
    fornitori: feed("fornitori"),
    magazzini: feed("magazzini"),
    ordini_acquisto: feed("ordini_acquisto"),
    ubicazioni: feed("ubicazioni"),
    // Shipping notices and receiving differences (docs/api.md section 12): GET /giacenze-ubicazioni is left out,
    // it requires a warehouse.
    avvisi_spedizione: feed("avvisi_spedizione"),
    differenze_ricevimento: at("differenze_ricevimento"),
    // Reservations (docs/api.md section 14).
    prenotazioni: feed("prenotazioni"),
    eventi: at("eventi"),
  };
}
