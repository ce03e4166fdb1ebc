import type { Tx } from "../../db/client";
import { first, rows, rowsInOrder, rowsThenCommit } from "../../db/sql";
import { compareCodePoints } from "../../lib/code-point-order";
import { formatDateOrNull } from "../../lib/dates";
import { canonical, Decimal } from "../../lib/decimal";
import { RowError } from "../../lib/errors";
import { authorColumns, type Actor } from "../auth/actor";
import * as q from "./ledger.queries";
import type { Natura, Origine, RiferimentoTipo } from "./ledger.queries";

/**
 * The stock ledger: how stock changes, for every writer (movements, arrivals and their cancellation,
 * the alignment, sales, the putaway, the locations switch). Stock is the sum of an append-only ledger of
 * movements (`movimenti`; a trigger refuses UPDATE, DELETE and TRUNCATE); the balances (`giacenze`), lot
 * residuals (`lotti.residua`) and, in a warehouse that manages locations, the location stock
 * (`giacenze_ubicazioni`, location-balances.service.ts) move in the same transaction as the movements, and CHECK
 * constraints make a negative lot or location, or an over-received order row, impossible even if a code
 * path forgot a lock. Every writer hands its changes to the stock writer (stock-writer.ts), which alone
 * calls the steps of this file and takes levels 3 to 5 below (stock-locks.test.ts).
 *
 * LOCK ORDER. Every writer takes its locks in this one order, so concurrent requests queue instead of
 * deadlocking:
 *   0. advisory keys, before any row lock (idempotency, demo, import, master data, order keys, notice
 *      keys: db/advisory-locks.ts declares each with its place) — order upserts: `lockOrderKeys`
 *   1. gates, taken first by a writer of stock:
 *      a. the warehouse gate: the warehouse's row (`magazzini`), FOR SHARE by every stock writer of it,
 *         by id (`loadArticles` with `warehouses`, or `lockWarehouses`); held exclusively (FOR NO KEY
 *         UPDATE) by the locations switch, so a movement commits before the switch or reads the new flag
 *         after it (a row lock re-reads the row it waited for; an advisory lock in the same statement
 *         would leave the statement's older snapshot): warehouse-gate.ts SHARED_WAREHOUSE_GATE
 *      b. location gates, advisory (class LOCATION_GATE, the location id), by id: shared by a writer that
 *         puts goods into the location (`resolveLocations`), exclusive by a complete count of it
 *         (`lockLocationExclusive`), which so holds the location against loads until it commits
 *   2. order rows (`righe_ordine`), by id                       — arrivals: `lockOrderRows`; order
 *      upserts and closings: `lockRowsOfOrders` (modules/orders)
 *      then reservations (`prenotazioni`), by id, FOR UPDATE   — their upsert, their cancel, and the unloads
 *      of POST /movimenti that name them (modules/reservations)
 *   3. lots (`lotti`), in `lotLockOrder`: article, then lot code by code points (COLLATE "C"); a
 *      transfer, which touches a lot in two warehouses, takes the lower warehouse id first
 *   4. location stock (`giacenze_ubicazioni`), in `locationLockOrder`: article, then location id, then
 *      lot code; a move between two locations takes the lower location first (stock-writer.ts takeLocations)
 *   5. balances (`giacenze`), by (article, warehouse)           — the append (`appendLedger`); a count: count-stock.ts;
 *      under them, after the append, the uncovering (uncover.ts): only when a share changes, held reservation
 *      rows FOR UPDATE, the reservations SKIP LOCKED (level 2: never waited for here)
 *   6. orders (`ordini_acquisto`), by id                        — arrivals and closings: `recomputeOrders`;
 *      order upserts: `lockOrders` then `updateOrders`
 * A writer that creates a row it will hold (a missing lot, location stock or balance) creates it at its
 * place in this order. A row refused after its lot moved (its location holds less) has its lot change
 * given back (`undoLotChange`). Deterministic tests (src/server/testing/locks.ts) hold one lock and check
 * that a request waits on it without holding the next.
 */

export type { Origine };

/** One movement to append to the ledger. */
export interface LedgerRow {
  natura: Natura;
  magazzino: number;
  articolo: number;
  /** Signed quantity, exact decimal string. */
  quantita: string;
  prezzo: string | null;
  lotto: number | null;
  /**
   * The location (`ubicazioni.id`) in a warehouse that manages locations, else null. The caller moves the
   * location's stock (location-balances.service.ts) before the append, as it moves lots. Optional: a writer
   * that never touches a location warehouse (and the floor's statements) leaves it out.
   */
  ubicazione?: number | null;
  riferimento?: { tipo: RiferimentoTipo; id: number };
  annulla?: number;
}

export interface LedgerContext {
  /** An existing operation, or "nuova": created in the same statement as the movements. */
  operazione: number | "nuova";
  origine: Origine;
  causale: string | null;
  data: string;
  actor: Actor;
}

/** Lock order 3: the order in which every writer takes lots (see the module comment). */
export function lotLockOrder(a: { article: { id: number }; lotto?: string | null; indice: number }, b: typeof a): number {
  return a.article.id - b.article.id || compareCodePoints(a.lotto ?? "", b.lotto ?? "") || a.indice - b.indice;
}

/** Lock order 5: balances by (article, warehouse), numerically. */
export function balanceLockOrder(a: { articolo: number; magazzino: number }, b: typeof a): number {
  return a.articolo - b.articolo || a.magazzino - b.magazzino;
}

/**
 * Appends movements and moves the balances with them, in the caller's transaction, in one statement
 * (ledgerAppend). `last`: the append ends the unit of work, and its COMMIT may go out with it
 * (sql.ts rowsThenCommit): the caller runs nothing on the transaction after it.
 */
export async function appendToLedger(
  tx: Tx,
  ctx: LedgerContext,
  ledger: LedgerRow[],
  opts: { last?: boolean } = {},
): Promise<{ operazione: number; ids: number[] }> {
  const statement = ledgerAppend(ctx, ledger);
  return appended(opts.last ? (await rowsThenCommit(tx, statement))[0] : await rows(tx, statement));
}

/** What an append wrote (the rows of ledgerAppend's statement): its operation, and its movements' ids in row order. */
export function appended(inserted: { id: number; operazione_id: number }[]): { operazione: number; ids: number[] } {
  // One statement in one session draws its ids in insertion order.
  return { operazione: inserted[0]!.operazione_id, ids: inserted.map((r) => r.id).sort((a, b) => a - b) };
}

/**
 * The one statement that appends `ledger` (ledger.queries.ts appendLedger), balance keys sorted in lock
 * order. Pure: the benchmark's floor runs the very statement appendToLedger runs.
 */
export function ledgerAppend(ctx: LedgerContext, ledger: LedgerRow[]) {
  if (ledger.length === 0) throw new Error("appendToLedger: nessun movimento da scrivere");
  const deltas = new Map<string, { articolo: number; magazzino: number; delta: Decimal }>();
  for (const r of ledger) {
    const key = `${r.articolo}:${r.magazzino}`;
    const d = deltas.get(key) ?? { articolo: r.articolo, magazzino: r.magazzino, delta: new Decimal(0) };
    deltas.set(key, { ...d, delta: d.delta.plus(r.quantita) });
  }
  const keys = [...deltas.values()].sort(balanceLockOrder);
  const nuova = ctx.operazione === "nuova";
  return q.appendLedger(
    { articolo: keys.map((k) => k.articolo), magazzino: keys.map((k) => k.magazzino), delta: keys.map((k) => k.delta.toFixed()) },
    {
      nuova,
      id: ctx.operazione === "nuova" ? null : ctx.operazione,
      origine: ctx.origine,
      causale: ctx.causale,
      data: ctx.data,
      author: authorColumns(ctx.actor),
    },
    {
      natura: ledger.map((r) => r.natura),
      magazzino: ledger.map((r) => r.magazzino),
      articolo: ledger.map((r) => r.articolo),
      quantita: ledger.map((r) => r.quantita),
      prezzo: ledger.map((r) => r.prezzo),
      lotto: ledger.map((r) => r.lotto),
      ubicazione: ledger.map((r) => r.ubicazione ?? null),
      rif_tipo: ledger.map((r) => r.riferimento?.tipo ?? null),
      rif_id: ledger.map((r) => r.riferimento?.id ?? null),
      annulla: ledger.map((r) => r.annulla ?? null),
    },
  );
}

/** A new operation of its own (a sales document takes its number between the operation and its movements). */
export async function createOperation(tx: Tx, origine: Origine, actor: Actor): Promise<number> {
  return (await first(tx, q.insertOperation(origine, authorColumns(actor))))!.id;
}

/** The operation of one supplier's delivery note, created by its first arrival. */
export async function deliveryNoteOperation(tx: Tx, fornitore: number, ddt: string, actor: Actor): Promise<number> {
  return (await first(tx, q.deliveryNoteOperation(fornitore, ddt, authorColumns(actor))))!.id;
}

/** Whether an operation exists that a caller of this channel may append to. */
export async function operationExists(tx: Tx, id: number, origine: Origine, actor: Actor): Promise<boolean> {
  return (await first(tx, q.operationOfOrigin(id, origine, authorColumns(actor)))) !== undefined;
}

/** Takes the lot's row lock, when the lot exists (a transfer's destination sorted before its source). */
export async function lockLot(tx: Tx, articolo: number, magazzino: number, codice: string): Promise<void> {
  await rows(tx, q.lockLot(articolo, magazzino, codice));
}

/** Lot taken from: the lot's residual moves with a guard, so it never goes negative. */
export async function unloadLot(tx: Tx, article: { id: number; codice: string }, magazzino: number, codice: string, quantita: string) {
  const lot = await first(tx, q.unloadLot(article.id, magazzino, codice, quantita));
  if (lot) return lot;
  const existing = await first(tx, q.lotResidual(article.id, magazzino, codice));
  if (!existing) {
    throw new RowError("lotto_non_trovato", `Il lotto '${codice}' di ${article.codice} non esiste nel magazzino ${magazzino}.`);
  }
  throw new RowError(
    "lotto_insufficiente",
    `Il lotto '${codice}' di ${article.codice} nel magazzino ${magazzino} ha ${canonical(existing.residua)} disponibili: richiesti ${canonical(quantita)}.`,
  );
}

/**
 * Creates the lot, or tops it up; an existing lot keeps its expiry unless it had none (then it takes the
 * given one). An expiry given for a lot that has another is scadenza_diversa (docs/api.md section 2), naming
 * both dates; no expiry given, or the same: accepted. `expiry: "keep"` (transfers: the client declares no
 * expiry, the source lot's travels) tops up a destination lot that has its own expiry and keeps it.
 */
export async function loadLot(
  tx: Tx,
  article: { id: number; codice: string },
  magazzino: number,
  codice: string,
  scadenza: string | null,
  quantita: string,
  expiry: "same" | "keep" = "same",
): Promise<number> {
  const lot = await first(tx, q.loadLot(article.id, magazzino, codice, scadenza, quantita, expiry === "same"));
  if (lot) return lot.id;
  const existing = await first(tx, q.lotExpiry(article.id, magazzino, codice));
  throw differentExpiry(article.codice, magazzino, codice, formatDateOrNull(existing?.scadenza), scadenza);
}

/** The expiry an existing lot has (null: no such lot, or a lot without expiry), for checks made before writing. */
export async function lotExpiry(tx: Tx, articolo: number, magazzino: number, codice: string): Promise<string | null> {
  return formatDateOrNull((await first(tx, q.lotExpiry(articolo, magazzino, codice)))?.scadenza);
}

/** scadenza_diversa when both the lot's and the given expiry are known and differ; else null. */
export function expiryConflict(
  articolo: string,
  magazzino: number,
  lotto: string,
  existing: string | null,
  given: string | null | undefined,
): RowError | null {
  if (!existing || !given || existing === given) return null;
  return differentExpiry(articolo, magazzino, lotto, existing, given);
}

function differentExpiry(articolo: string, magazzino: number, lotto: string, existing: string | null, given: string | null) {
  return new RowError(
    "scadenza_diversa",
    `Il lotto '${lotto}' di ${articolo} nel magazzino ${magazzino} scade il ${existing}, non il ${given}: correggere la scadenza, o indicare un altro lotto.`,
  );
}

/**
 * Gives back what an arrival put into a lot, guarded like an unload; when the lot no longer holds that
 * much, its residual comes back so the caller can say so.
 */
export async function takeBackFromLot(tx: Tx, lotId: number, quantita: string): Promise<{ ok: true } | { ok: false; residua: string }> {
  if (await first(tx, q.takeBackFromLot(lotId, quantita))) return { ok: true };
  return { ok: false, residua: canonical((await first(tx, q.lotResidualById(lotId)))!.residua) };
}

/**
 * Lock order 5 for a writer that moves no stock but decides against it: a reservation takes the balances of
 * every (article, warehouse) it holds before it reads what is free (reservations-upsert.service.ts), so a
 * reservation and a movement of that stock queue on the same row, and two reservations racing for the last
 * pieces read each other's holds once the first commits. A pair without a balance row has nothing to hold and
 * locks nothing: it answers the pairs it locked ("articolo:magazzino"), and the caller holds nothing of any other
 * (stock that a load commits between this statement and the read of what is free would be seen unlocked, by two
 * racing reservations at once).
 */
export async function lockBalancesForHolds(tx: Tx, pairs: { articolo: number; magazzino: number }[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const locked = await rows(
    tx,
    q.lockBalancesForHolds(
      pairs.map((p) => p.articolo),
      pairs.map((p) => p.magazzino),
    ),
  );
  return new Set(locked.map((r) => `${r.articolo_id}:${r.magazzino_id}`));
}

/**
 * lockBalancesForHolds for a writer that then recomputes what those holds leave uncovered (uncover.ts
 * uncoverPairs: a cancel, the expiry sweeps, a location retyped): the pairs of `pairs` whose balance it now
 * holds, in lock order; a pair without a balance row has no stock to cover anything and is left out.
 */
export async function lockHeldPairs<P extends { articolo: number; magazzino: number }>(tx: Tx, pairs: P[]): Promise<P[]> {
  const locked = await lockBalancesForHolds(tx, pairs);
  return pairs.filter((p) => locked.has(`${p.articolo}:${p.magazzino}`)).sort(balanceLockOrder);
}

/**
 * Lock order 5 for a writer that respects the holds (stock-holds.ts): the balances of every pair it writes,
 * FOR UPDATE in (article, warehouse) order (the reservations' lock, lockBalancesForHolds), then, in a statement
 * of its own sent in the same write, what is held and free of the pairs it takes out of (only those that hold
 * something). The append then finds its balance rows locked already.
 */
export async function heldUnderLock(
  tx: Tx,
  lock: { articolo: number; magazzino: number }[],
  check: { articolo: number; magazzino: number }[],
  oggi: string,
): Promise<q.HeldRow[]> {
  const [, held] = await rowsInOrder(
    tx,
    q.lockBalancesForHolds(
      lock.map((p) => p.articolo),
      lock.map((p) => p.magazzino),
    ),
    q.heldOfPairs(
      check.map((p) => p.articolo),
      check.map((p) => p.magazzino),
      oggi,
    ),
  );
  return held;
}
