import type { Tx } from "../../db/client";
import { rows } from "../../db/sql";
import type { LedgerRow } from "./ledger.service";
import * as q from "./uncover.queries";

/**
 * Facts may uncover a reservation (docs/api.md section 14, "The promise"): a count, a cancelled arrival or
 * pallet, a move into a `quarantena` location leave less to cover what the reservations hold. After every write of
 * stock, in its transaction and under the balance rows its append holds (lock order 5), the held rows of each
 * (article, warehouse) it wrote get `scoperta` = their share of max(0, held − what can cover it), newest
 * reservations first, and each reservation whose rows changed records prenotazione.scoperta and takes a new
 * version (the database function banchina_scopri says how, and why it takes no lock in another order).
 * One statement, sent in the append's write: the last of it, after the caller's own statements (so a hold an
 * unload consumes is read as consumed). Its cost is what a movement pays for the reservations (docs/performance.md: at most
 * 10% more CPU than where nothing is held), so it reads before it locks: a pair where nothing is held costs one
 * aggregate over the holds' index, a pair whose holds are all covered, none marked uncovered, that aggregate and what
 * can cover them; only a share that changes locks the held rows (migration 20261203010000_scopri_senza_blocchi,
 * which says why reading them unlocked under the caller's balance rows is safe). So every caller holds the
 * balance rows of each pair it names, FOR UPDATE, before it calls (lock order 5).
 */

type Pair = { articolo: number; magazzino: number };

/** The uncovering of the pairs a ledger append writes (a move's source and destination alike), for its write. */
export function uncoverAfterAppend(ledger: readonly Pick<LedgerRow, "articolo" | "magazzino">[], oggi: string) {
  const pairs = new Map<string, Pair>();
  for (const r of ledger) pairs.set(`${r.articolo}:${r.magazzino}`, { articolo: r.articolo, magazzino: r.magazzino });
  const sorted = [...pairs.values()];
  return q.uncoverPairs(
    sorted.map((p) => p.articolo),
    sorted.map((p) => p.magazzino),
    oggi,
  );
}

/**
 * For a writer that holds the balances of the pairs already (a reservation upsert: lockBalancesForHolds) and has
 * changed what is held: the reservations whose `scoperta` changed.
 */
export async function uncoverPairs(tx: Tx, pairs: Pair[], oggi: string): Promise<number[]> {
  if (pairs.length === 0) return [];
  const changed = await rows(
    tx,
    q.uncoverPairs(
      pairs.map((p) => p.articolo),
      pairs.map((p) => p.magazzino),
      oggi,
    ),
  );
  return changed.map((r) => r.prenotazione);
}

/** verify: holds neither covered nor marked uncovered, by pair and by lot. */
export async function holdsNotCovered(tx: Tx, oggi: string) {
  return rows(tx, q.holdsNotCovered(oggi));
}
