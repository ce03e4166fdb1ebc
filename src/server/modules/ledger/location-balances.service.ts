import type { Tx } from "../../db/client";
import { execute, first, rows } from "../../db/sql";
import { compareCodePoints } from "../../lib/code-point-order";
import { canonical } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import * as q from "./location-balances.queries";
import type { WarehouseRow } from "./warehouse-gate";

/**
 * Stock by location (docs/api.md section 11, design24.md "The ledger with locations"). In a warehouse that
 * manages locations every movement names its location, and `giacenze_ubicazioni` holds what each
 * location has of each (article, lot), never below zero (a CHECK, and the guarded unload below). The stock
 * writer (stock-writer.ts) alone moves it, through `loadLocation` / `unloadLocation`, in the caller's
 * transaction, BEFORE the ledger append, in lock order 4 (ledger.service.ts); every writer takes the gates
 * (lock order 1) first:
 * `lockWarehouses` (or `loadArticles` with `warehouses`, which folds the same gate into its statement),
 * then `resolveLocations` (the location gates of the locations goods go into).
 */

/** A warehouse as a stock writer sees it, read under its shared gate. */
export interface WarehouseInfo {
  id: number;
  gestione_ubicazioni: boolean;
  /** Where arrivals land unless they name a location (null: the warehouse does not manage locations, or has none yet). */
  ricevimento: { id: number; codice: string } | null;
}

export function warehouseInfo(r: WarehouseRow): WarehouseInfo {
  return {
    id: r.id,
    gestione_ubicazioni: r.gestione_ubicazioni,
    ricevimento: r.ubicazione_ricevimento_id === null ? null : { id: r.ubicazione_ricevimento_id, codice: r.ubicazione_ricevimento! },
  };
}

/**
 * The shared warehouse gate (lock order 1a) of the warehouses a request names, by field (`magazzino`,
 * `magazzino_origine`), and what a writer needs of each; refuses the request (magazzino_non_trovato)
 * when one does not exist. A writer that already runs `loadArticles` with `warehouses` has it from there.
 * @public the writers without an article lookup (arrivals and their cancellation) take the gate here
 */
export async function lockWarehouses(tx: Tx, fields: Record<string, number | undefined>): Promise<Map<number, WarehouseInfo>> {
  const ids = [...new Set(Object.values(fields).filter((v): v is number => v !== undefined))];
  const found = new Map((await rows(tx, q.lockWarehousesShared(ids))).map((r) => [r.id, warehouseInfo(r)]));
  for (const [campo, id] of Object.entries(fields)) {
    if (id !== undefined && !found.has(id)) throw new DomainError("magazzino_non_trovato", `Il magazzino ${id} non esiste.`, { campo });
  }
  return found;
}

/** One row's location, as the request names it. */
export interface LocationRef {
  /** A warehouse of the map given to resolveLocations. */
  magazzino: number;
  codice: string | undefined;
  /** Goods come in (a load, a transfer's destination, an arrival, a count): an inactive location refuses them. */
  entrata: boolean;
  /** Missing code: the warehouse's receiving location (arrivals) rather than ubicazione_obbligatoria. */
  ricevimento?: boolean;
  /** The field named in messages: `ubicazione` (default) or `ubicazione_origine`. */
  campo?: string;
}

/** A resolved location: null in a warehouse without locations. */
export type ResolvedLocation = { id: number; codice: string } | null;

/**
 * The location of each ref, or the row's refusal: in a warehouse with `gestione_ubicazioni`, missing →
 * ubicazione_obbligatoria (an arrival: the receiving location), unknown, or inactive for goods coming in
 * → ubicazione_non_trovata (a code is looked up in the ref's own warehouse only, so another warehouse's
 * location is unknown here); in a warehouse without, a code given → ubicazione_non_prevista. One
 * statement, only when a location warehouse is named; it takes the shared gates (lock order 1b) of the
 * locations goods go into, so call it right after the warehouse gate, before any row lock.
 */
export async function resolveLocations(
  tx: Tx,
  warehouses: Map<number, WarehouseInfo>,
  refs: LocationRef[],
): Promise<(ResolvedLocation | RowError)[]> {
  const codeOf = (r: LocationRef) => r.codice ?? (r.ricevimento ? warehouses.get(r.magazzino)?.ricevimento?.codice : undefined);
  const wanted = refs.filter((r) => warehouses.get(r.magazzino)?.gestione_ubicazioni && codeOf(r) !== undefined);
  const found = new Map<string, q.LocationRow>();
  if (wanted.length > 0) {
    const located = await rows(
      tx,
      q.locationsForWrite({
        magazzino: wanted.map((r) => r.magazzino),
        codice: wanted.map((r) => codeOf(r)!),
        entrata: wanted.map((r) => r.entrata),
      }),
    );
    for (const l of located) found.set(`${l.magazzino_id}\u0000${l.codice}`, l);
  }
  return refs.map((r) => {
    const campo = r.campo ?? "ubicazione";
    const warehouse = warehouses.get(r.magazzino);
    if (!warehouse) throw new Error(`resolveLocations: magazzino ${r.magazzino} non letto`);
    if (!warehouse.gestione_ubicazioni) {
      if (r.codice === undefined) return null;
      return new RowError("ubicazione_non_prevista", `Il magazzino ${r.magazzino} non gestisce le ubicazioni: togliere '${campo}'.`);
    }
    const codice = codeOf(r);
    if (codice === undefined) {
      return new RowError(
        "ubicazione_obbligatoria",
        `Il magazzino ${r.magazzino} gestisce le ubicazioni: indicare '${campo}' (il codice dell'ubicazione).`,
      );
    }
    const location = found.get(`${r.magazzino}\u0000${codice}`);
    if (!location) {
      return new RowError("ubicazione_non_trovata", `L'ubicazione '${codice}' non esiste nel magazzino ${r.magazzino}.`);
    }
    if (r.entrata && !location.attiva) {
      return new RowError(
        "ubicazione_non_trovata",
        `L'ubicazione '${codice}' del magazzino ${r.magazzino} non è attiva: non riceve merce (può solo cederla).`,
      );
    }
    return { id: location.id, codice: location.codice };
  });
}

/**
 * The exclusive gate of one location (lock order 1b): a complete count takes it before anything else.
 * @public the alignment's complete count (`completa`) takes it
 */
export async function lockLocationExclusive(tx: Tx, ubicazione: number): Promise<void> {
  await first(tx, q.lockLocationExclusive(ubicazione));
}

/** What a location-stock change names: the codes are for the refusal's message. */
export interface LocationKey {
  articolo: { id: number; codice: string };
  magazzino: number;
  ubicazione: { id: number; codice: string };
  lotto: { id: number; codice: string } | null;
}

/** Lock order 4: location stock by article, then location id, then lot code (code points). */
export function locationLockOrder(a: LocationKey, b: LocationKey): number {
  return (
    a.articolo.id - b.articolo.id || a.ubicazione.id - b.ubicazione.id || compareCodePoints(a.lotto?.codice ?? "", b.lotto?.codice ?? "")
  );
}

/**
 * Goods out of a location: one guarded statement, so what the location holds never goes below zero under
 * any concurrency (the row lock queues the others, which re-check the guard); else
 * quantita_insufficiente_ubicazione, naming what it holds and what was asked.
 */
export async function unloadLocation(tx: Tx, key: LocationKey, quantita: string): Promise<void> {
  if (await first(tx, q.unloadLocation(key.articolo.id, key.ubicazione.id, key.lotto?.id ?? null, quantita))) return;
  const held = await first(tx, q.locationHolding(key.articolo.id, key.ubicazione.id, key.lotto?.id ?? null));
  const lot = key.lotto ? ` (lotto '${key.lotto.codice}')` : "";
  throw new RowError(
    "quantita_insufficiente_ubicazione",
    `L'ubicazione '${key.ubicazione.codice}' ha ${canonical(held?.quantita ?? "0")} di ${key.articolo.codice}${lot}: richiesti ${canonical(quantita)}.`,
  );
}

/** Goods into a location: creates its row for that article and lot, or tops it up. */
export async function loadLocation(tx: Tx, key: LocationKey, quantita: string): Promise<void> {
  await first(tx, q.loadLocation(key.articolo.id, key.magazzino, key.ubicazione.id, key.lotto?.id ?? null, quantita));
}

/**
 * Takes the row lock of a location's stock, when it exists: a move whose destination comes before its
 * source in lock order 4 (like a transfer's lots).
 */
export async function lockLocation(tx: Tx, key: LocationKey): Promise<void> {
  await rows(tx, q.lockLocationRow(key.articolo.id, key.ubicazione.id, key.lotto?.id ?? null));
}

/**
 * Gives back a lot change made earlier in the transaction for a row that a later step refused (a
 * location that holds less): lots come before location stock in the lock order, so a row's lot moves
 * first and is undone when its location refuses it. The lot's row lock is already held.
 */
export async function undoLotChange(tx: Tx, lotto: number, delta: string): Promise<void> {
  await execute(tx, q.adjustLot(lotto, delta));
  // A destination lot the row created (a transfer's) goes with it, so a refused row leaves nothing behind.
  if (delta.startsWith("-")) await execute(tx, q.dropUnusedLot(lotto));
}

/**
 * Gives back a location change made earlier in the transaction for a row that a later step refused (what the
 * reservations hold): its row lock is already held. A row the change created, left empty, goes with it.
 */
export async function undoLocationChange(tx: Tx, key: LocationKey, delta: string): Promise<void> {
  await execute(tx, q.adjustLocation(key.articolo.id, key.ubicazione.id, key.lotto?.id ?? null, delta));
  if (delta.startsWith("-")) await execute(tx, q.dropEmptyLocation(key.articolo.id, key.ubicazione.id, key.lotto?.id ?? null));
}
