import type { Tx } from "../../db/client";
import { Prisma } from "../../db/client";
import { query, rows } from "../../db/sql";

/**
 * Lock order 5 for a writer that moves no stock but decides against it: a reservation (docs/api.md section 14)
 * takes the balances (`giacenze`) of every (article, warehouse) it holds, FOR UPDATE, sorted as the stock writer's
 * append takes them, and only then reads what is free. Every writer of that stock takes the same row lock at the
 * same level (the append's balance upsert), so a reservation and a movement queue on it, and two reservations
 * racing for the last pieces see each other's holds once the first commits. A pair without a balance row has
 * nothing to hold: it locks nothing, and what comes in later is read by the next reservation. Kept in the ledger
 * module, the one room that locks stock tables (stock-locks.test.ts).
 */
export async function lockBalancesForHolds(tx: Tx, pairs: { articolo: number; magazzino: number }[]): Promise<void> {
  if (pairs.length === 0) return;
  await rows(
    tx,
    query<{ articolo_id: number }>(Prisma.sql`
      SELECT g.articolo_id FROM giacenze g
       WHERE (g.articolo_id, g.magazzino_id) IN (SELECT * FROM unnest(${pairs.map((p) => p.articolo)}::int[], ${pairs.map((p) => p.magazzino)}::int[]))
       ORDER BY g.articolo_id, g.magazzino_id
         FOR UPDATE OF g`),
  );
}
