import type { Tx } from "../../db/client";
import { first, rows, rowsInOrder } from "../../db/sql";
import { canonical, Decimal, type DecimalLike } from "../../lib/decimal";
import * as q from "./arrivals.queries";
import type { LockedRow, OrderState } from "./arrivals.queries";

/**
 * Order rows as registering and cancelling arrivals move them: the row locks (lock order 1, see
 * modules/ledger/ledger.service.ts), the arrived quantity, and the orders' states (lock order 4).
 */

export type { LockedRow, OrderState };

/**
 * The row lock serialises every arrival and cancellation on one order row, across instances. A
 * request's rows are locked in one statement, in id order (ORDER BY sorts before FOR UPDATE locks), so two
 * multi-row arrivals naming the same rows in different orders queue instead of deadlocking.
 */
export async function lockOrderRows(tx: Tx, righe: number[]): Promise<Map<number, LockedRow>> {
  const ids = [...new Set(righe)].sort((a, b) => a - b);
  const locked = await rows(tx, q.lockOrderRows(ids));
  return new Map(locked.map((r) => [r.id, r]));
}

/**
 * Moves a row's arrived quantity; the guard and the CHECK (arrivata + chiusa <= ordinata) make
 * over-receipt, closed quantities included, impossible even if a lock were missed.
 */
export async function moveArrived(tx: Tx, riga: number, delta: string) {
  const row = await first(tx, q.moveArrived(riga, delta));
  if (!row) throw new Error(`riga ${riga}: aggiornamento della quantità arrivata non applicabile`);
  return { arrivata: canonical(row.arrivata), residua: canonical(remaining(row)) };
}

/** What a row still expects: ordered, less arrived, less closed short. */
export function remaining(row: { ordinata: DecimalLike; arrivata: DecimalLike; chiusa: DecimalLike }): Decimal {
  return new Decimal(row.ordinata.toString()).minus(row.arrivata.toString()).minus(row.chiusa.toString());
}

/** Recomputes order states after their rows moved; the order lock makes concurrent writers see each other. */
export async function recomputeOrders(tx: Tx, orderIds: number[]): Promise<Map<number, OrderState>> {
  const [, states] = await rowsInOrder(tx, ...recomputeOrdersStatements(orderIds));
  return statesOf(states);
}

/**
 * recomputeOrders' two statements, the lock first, for a caller that sends them in one write with
 * others (the end of an arrival): each still runs after the one before it.
 */
export function recomputeOrdersStatements(orderIds: number[]) {
  const ids = [...new Set(orderIds)].sort((a, b) => a - b);
  return [q.lockOrders(ids), q.recomputeOrders(ids)] as const;
}

export function statesOf(recomputed: { id: number; stato: OrderState }[]): Map<number, OrderState> {
  return new Map(recomputed.map((r) => [r.id, r.stato]));
}
