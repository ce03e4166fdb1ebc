import type { Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import type { Prisma } from "../../db/client";
import * as q from "./count.queries";

/**
 * What a count (the alignment) reads and, with `write`, locks of the stock, each step at its place in the
 * lock order (ledger.service.ts): the counted locations' gates (1b), the lots (3), the location stock (4),
 * the balances (5). With `write`, missing rows are created at their place first, so that they are locked
 * like the others: a new row is held until commit, and creating it out of order would deadlock with a
 * movement that holds a lot and waits for a balance.
 */

/** The counted locations' state and, with `lock`, their gates: exclusive for `whole` (a complete count), shared for the others. */
export async function countedLocationGates(tx: Tx, ids: number[], whole: number | null, lock: boolean) {
  return rows(tx, q.countedLocations(ids, whole, lock));
}

/** The units' lots, in lot lock order; `articoli` and `codici` are the units, sorted by lotLockOrder. */
export async function countedLots(
  tx: Tx,
  magazzino: number,
  articoli: number[],
  codici: string[],
  write: boolean,
): Promise<{ id: number; articolo_id: number; codice: string; residua: Prisma.Decimal }[]> {
  if (write) await execute(tx, q.createMissingLots(magazzino, articoli, codici));
  return rows(tx, q.lots(magazzino, articoli, codici, write));
}

/** The units' location stock, in lock order 4. */
export async function countedLocationStock(
  tx: Tx,
  magazzino: number,
  articoli: number[],
  ubicazioni: number[],
  lotti: (number | null)[],
  write: boolean,
): Promise<{ articolo_id: number; ubicazione_id: number; lotto_id: number | null; quantita: Prisma.Decimal }[]> {
  if (write) await execute(tx, q.createMissingLocationRows(magazzino, articoli, ubicazioni, lotti));
  return rows(tx, q.locationRows(articoli, ubicazioni, lotti, write));
}

/**
 * The balances of `compared` (with `write`, locked); with `write`, the missing balances of every article
 * the count moves (`moved`) are created first, in balance lock order.
 */
export async function countedBalances(
  tx: Tx,
  magazzino: number,
  moved: number[],
  compared: number[],
  write: boolean,
): Promise<{ articolo_id: number; quantita: Prisma.Decimal }[]> {
  if (write && moved.length > 0) await execute(tx, q.createMissingBalances(magazzino, moved));
  return compared.length > 0 ? rows(tx, q.balances(magazzino, compared, write)) : [];
}

/** Sets counted lots to their count (their locks are held: countedLots with `write`). */
export async function setCountedLots(tx: Tx, ids: number[], residue: string[]): Promise<void> {
  await execute(tx, q.setLotResiduals(ids, residue));
}
