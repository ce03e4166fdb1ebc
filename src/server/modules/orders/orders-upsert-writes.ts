import type { Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { type Change, type Checked, key, type WantedRow } from "./orders-upsert-rows";
import * as q from "./purchase-orders.queries";

/** The upsert's writes, once every order of the call is checked (orders-upsert.service.ts says the lock order). */

/** Rows first (removed, changed, added), the orders by id last: the ledger's lock order. */
export async function writeChanges(tx: Tx, changes: Change[]) {
  if (changes.length === 0) return;
  const remove = changes.flatMap((x) => x.remove);
  if (remove.length > 0) await execute(tx, q.deleteRows(remove));
  const update = changes.flatMap((x) => x.update);
  if (update.length > 0) {
    await execute(
      tx,
      q.updateRows({
        id: update.map((u) => u.id),
        articolo: update.map((u) => u.articolo),
        ordinata: update.map((u) => u.ordinata),
        prezzo: update.map((u) => u.prezzo),
        riapri: update.map((u) => u.riapri),
      }),
    );
  }
  await insertRows(
    tx,
    changes.flatMap((x) => x.insert.map((w) => ({ ordine: x.id, w }))),
  );
  const sorted = [...changes].sort((a, b) => a.id - b.id);
  await rows(tx, q.lockOrders(sorted.map((x) => x.id)));
  await rows(
    tx,
    q.updateOrders({
      id: sorted.map((x) => x.id),
      data: sorted.map((x) => x.c.input.data),
      magazzino: sorted.map((x) => x.c.magazzino),
    }),
  );
}

export async function writeCreations(tx: Tx, creations: Checked[]): Promise<{ c: Checked; id: number }[]> {
  if (creations.length === 0) return [];
  const inserted = await rows(
    tx,
    q.insertOrders({
      numero: creations.map((c) => c.input.numero),
      fornitore: creations.map((c) => c.fornitore),
      magazzino: creations.map((c) => c.magazzino),
      data: creations.map((c) => c.input.data),
    }),
  );
  const idOf = new Map(inserted.map((o) => [key(o.fornitore_id, o.numero), o.id]));
  const out = creations.map((c) => ({ c, id: idOf.get(key(c.fornitore, c.input.numero))! }));
  await insertRows(
    tx,
    out.flatMap((x) => x.c.rows.map((w) => ({ ordine: x.id, w }))),
  );
  return out;
}

async function insertRows(tx: Tx, list: { ordine: number; w: WantedRow }[]) {
  if (list.length === 0) return;
  await execute(
    tx,
    q.insertRows({
      ordine: list.map((x) => x.ordine),
      numero_riga: list.map((x) => x.w.numero_riga),
      articolo: list.map((x) => x.w.articolo),
      ordinata: list.map((x) => x.w.ordinata),
      prezzo: list.map((x) => x.w.prezzo),
    }),
  );
}
