import type { Tx } from "../../db/client";
import { execute, first, rows } from "../../db/sql";
import { businessDate } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { RowError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import * as q from "./location-balances.queries";
import { type StockIntent, writeStock } from "./stock-writer";
import type { WarehouseRow } from "./warehouse-gate";

export const SWITCH_ON_CAUSALE = "Attivazione ubicazioni";
export const SWITCH_OFF_CAUSALE = "Disattivazione ubicazioni";

/**
 * Switches a warehouse's `gestione_ubicazioni` (docs/api.md section 11, "Switching on"). The caller (the POST
 * /magazzini upsert) stores `ubicazione_ricevimento_id` first and calls this in the same transaction; this
 * function alone sets the flag. It takes the warehouse gate exclusively first (its row, FOR NO KEY UPDATE:
 * see warehouse-gate.ts), so every stock writer of the warehouse either committed before (and its
 * stock is moved here) or waits and then reads the new flag, and is checked by the new rules.
 *
 * On: refused without a receiving location (ubicazione_ricevimento_mancante) and while a balance (of an
 * article, or the part of it no lot explains) is below zero (giacenza_negativa); the stock is already in
 * the warehouse, so one operation (`correzione`, "Attivazione ubicazioni") moves each (article, lot)
 * from "no location" into the receiving location: a transfer inside the warehouse, −q without location
 * and +q in the receiving location. The balance does not change; the ledger explains the location stock.
 * Off: refused while the stock lies in more than one location (ubicazioni_in_uso); what lies in one is
 * moved back out to "no location" the same way, so `verify` stays exact.
 * Nothing to do (the flag is already `on`): no write. Returns the operation written, or null.
 */
export async function setLocationManagement(
  tx: Tx,
  actor: Actor,
  magazzinoId: number,
  on: boolean,
  opts: { timeZone: string },
): Promise<{ operazione: number | null }> {
  const warehouse = await first(tx, q.lockWarehouseExclusive(magazzinoId));
  if (!warehouse) throw new Error(`setLocationManagement: il magazzino ${magazzinoId} non esiste`);
  if (warehouse.gestione_ubicazioni === on) return { operazione: null };
  const moves = on ? await placeInReceiving(tx, warehouse) : await takeOutOfLocations(tx, warehouse);
  let operazione: number | null = null;
  if (moves.length > 0) {
    const written = await writeStock(
      tx,
      {
        operazione: "nuova",
        origine: "correzione",
        causale: on ? SWITCH_ON_CAUSALE : SWITCH_OFF_CAUSALE,
        data: businessDate(opts.timeZone),
        actor,
      },
      moves,
    );
    operazione = written.operazione;
  }
  await execute(tx, q.setWarehouseLocations(magazzinoId, on));
  return { operazione };
}

async function placeInReceiving(tx: Tx, warehouse: WarehouseRow): Promise<StockIntent[]> {
  if (warehouse.ubicazione_ricevimento_id === null) {
    throw new RowError(
      "ubicazione_ricevimento_mancante",
      `Il magazzino ${warehouse.id} non ha un'ubicazione di ricevimento: indicarla in 'ubicazione_ricevimento' per gestire le ubicazioni.`,
    );
  }
  const ricevimento = { id: warehouse.ubicazione_ricevimento_id, codice: warehouse.ubicazione_ricevimento! };
  const stock = await rows(tx, q.warehouseStockByLot(warehouse.id));
  const negative = stock.filter((s) => s.quantita.startsWith("-"));
  if (negative.length > 0) {
    const named = negative
      .slice(0, 5)
      .map((s) => `${s.articolo_codice}${s.lotto_codice ? ` (lotto '${s.lotto_codice}')` : ""}: ${canonical(s.quantita)}`);
    throw new RowError(
      "giacenza_negativa",
      `Il magazzino ${warehouse.id} ha giacenze sotto zero (${named.join("; ")}${negative.length > 5 ? "; …" : ""}): allinearle prima di attivare le ubicazioni.`,
    );
  }
  return stock.map((s) => move(warehouse.id, s, null, ricevimento));
}

async function takeOutOfLocations(tx: Tx, warehouse: WarehouseRow): Promise<StockIntent[]> {
  const stock = await rows(tx, q.warehouseLocationStock(warehouse.id));
  const locations = [...new Set(stock.map((s) => s.ubicazione_codice))];
  if (locations.length > 1) {
    const named = locations.slice(0, 10).join(", ");
    throw new RowError(
      "ubicazioni_in_uso",
      `Il magazzino ${warehouse.id} ha merce in ${locations.length} ubicazioni (${named}${locations.length > 10 ? ", …" : ""}): raccoglierla in una sola prima di disattivare le ubicazioni.`,
    );
  }
  return stock.map((s) => move(warehouse.id, s, { id: s.ubicazione, codice: s.ubicazione_codice }, null));
}

/**
 * A transfer inside one warehouse, from one location (null: none) to another: the balance does not move,
 * and the lot (by id) stays as it is.
 */
function move(
  magazzino: number,
  s: { articolo: number; articolo_codice: string; lotto: number | null; lotto_codice: string | null; quantita: string },
  from: { id: number; codice: string } | null,
  to: { id: number; codice: string } | null,
): StockIntent {
  return {
    natura: "trasferimento",
    magazzino,
    articolo: s.articolo,
    codice: s.articolo_codice,
    quantita: s.quantita,
    prezzo: null,
    lotto: s.lotto === null ? null : { id: s.lotto, codice: s.lotto_codice! },
    ubicazione: to,
    da: { magazzino, ubicazione: from },
  };
}

/** A warehouse's locations setting written alone, when it holds no stock to move (the warehouses' upsert). */
export async function setWarehouseLocations(tx: Tx, id: number, on: boolean): Promise<void> {
  await execute(tx, q.setWarehouseLocations(id, on));
}
