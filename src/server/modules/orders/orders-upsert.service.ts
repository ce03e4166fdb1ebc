import type { Tx } from "../../db/client";
import { rows, rowsInOrder } from "../../db/sql";
import { DomainError, RowError } from "../../lib/errors";
import { malformedRow } from "../../lib/rows";
import {
  MAX_ORDER_ROWS_PER_CALL,
  MAX_ORDERS_PER_CALL,
  type OrderUpsertInput,
  purchaseOrderStrict,
  type UpsertOrdersInput,
  type UpsertOrdersOutput,
} from "./orders.schemas";
import { type Change, type Checked, checkOrder, inactive, key, planChange, type Refs } from "./orders-upsert-rows";
import { writeChanges, writeCreations } from "./orders-upsert-writes";
import * as q from "./purchase-orders.queries";

/**
 * POST /ordini-acquisto (docs/api.md section 9): creates an order, or replaces the rows of an order not yet
 * closed, identified by (supplier, number). Each order is all-or-nothing: every check runs before any
 * write, and a refused row refuses its order, naming the row.
 *
 * - The call's envelope was parsed by the procedure (an array of objects); here each order is parsed
 *   strictly on its own (orders.schemas.ts purchaseOrderStrict): a malformed one (an impossible date, a
 *   mistyped or unknown field, a missing one) is refused as `campo_non_valido` with the field in the
 *   message and in `errore.campo` (its path inside the order), and the other orders are written. The
 *   limits (orders, rows in all) are the envelope's: over them the call is refused.
 *
 * - A row is identified across replacements by its `numero_riga`: it keeps its id (`riga`, the R<riga>
 *   label) for as long as the number stays. A number the order did not have is a new row; a number the
 *   request leaves out removes its row.
 * - A row never drops below what arrived (`quantita_sotto_arrivata`). A row that a movement points at
 *   (an arrival, even one cancelled since: the ledger's history names the row and its article) can be
 *   neither removed nor moved to another article (`riga_con_arrivi`): close it short instead.
 * - A new quantity on a row closed short reopens it (the closing is cleared): the integrator's latest
 *   quantity is what is expected. A new price alone keeps the closing.
 * - An inactive article is not ordered: refused on a new row, on a row moved to it, or on a row whose
 *   quantity grows (`articolo_non_attivo`); an existing row of an article deactivated since may stay or shrink.
 * - "Not yet closed" means not `evaso`: once everything arrived or was closed short, a call that would
 *   change the order is refused (`ordine_evaso`). The same order sent again is still `invariato`.
 * - The same order twice in one call: every occurrence refused (`ordine_ripetuto`); the same line number
 *   twice in an order: `numero_riga_ripetuto`.
 * - Nothing changed: `invariato`, and nothing is written (no version drawn).
 *
 * Locks: the orders' keys (lockOrderKeys: replacements of one order queue), then their rows by id
 * (lock order 1), the row writes, and the orders by id last (lock order 4; the UPDATE takes the version).
 */

type Outcome = UpsertOrdersOutput["righe"][number];

export async function upsertPurchaseOrders(tx: Tx, input: UpsertOrdersInput): Promise<UpsertOrdersOutput> {
  const totalRows = input.ordini.reduce((n, o) => n + (Array.isArray(o.righe) ? o.righe.length : 0), 0);
  if (input.ordini.length > MAX_ORDERS_PER_CALL || totalRows > MAX_ORDER_ROWS_PER_CALL) {
    throw new DomainError(
      "troppe_righe",
      `Al massimo ${MAX_ORDERS_PER_CALL} ordini e ${MAX_ORDER_ROWS_PER_CALL} righe in tutto per chiamata: ricevuti ${input.ordini.length} ordini con ${totalRows} righe. Dividere l'invio in più chiamate.`,
      { campo: "ordini" },
    );
  }
  const outcomes = new Map<number, Outcome>();
  const numeroOf = (indice: number) => {
    const n = input.ordini[indice]!.numero;
    return typeof n === "string" ? n.trim() : null;
  };
  const refuse = (indice: number, e: RowError) =>
    outcomes.set(indice, { indice, numero: numeroOf(indice), esito: "rifiutato", errore: e.toBody() });

  const wellFormed: { indice: number; o: OrderUpsertInput }[] = [];
  for (const [indice, raw] of input.ordini.entries()) {
    const parsed = purchaseOrderStrict.safeParse(raw);
    if (parsed.success) wellFormed.push({ indice, o: parsed.data });
    else refuse(indice, malformedRow(`Ordine ${numeroOf(indice) ?? "senza numero"} (ordini[${indice}])`, parsed.error.issues));
  }
  const refs = await loadRefs(
    tx,
    wellFormed.map((w) => w.o),
  );
  const checked: Checked[] = [];
  for (const { indice, o } of wellFormed) {
    try {
      checked.push(checkOrder(indice, o, refs));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      refuse(indice, e);
    }
  }
  // The same order twice in one call: which one should win is not ours to guess.
  const occurrences = new Map<string, number>();
  for (const c of checked) occurrences.set(key(c.fornitore, c.input.numero), (occurrences.get(key(c.fornitore, c.input.numero)) ?? 0) + 1);
  const unique = checked.filter((c) => {
    if (occurrences.get(key(c.fornitore, c.input.numero))! === 1) return true;
    refuse(
      c.indice,
      new RowError(
        "ordine_ripetuto",
        `L'ordine ${c.input.numero} del fornitore ${c.input.fornitore} compare più volte in questa chiamata: inviarlo una volta sola.`,
      ),
    );
    return false;
  });

  if (unique.length > 0) {
    await rows(
      tx,
      q.lockOrderKeys(
        unique.map((c) => c.fornitore),
        unique.map((c) => c.input.numero),
      ),
    );
  }
  const existing = new Map(
    (
      await rows(
        tx,
        q.ordersByKey(
          unique.map((c) => c.fornitore),
          unique.map((c) => c.input.numero),
        ),
      )
    ).map((o) => [key(o.fornitore_id, o.numero), o]),
  );
  const lockedRows =
    existing.size > 0
      ? await lockRows(
          tx,
          [...existing.values()].map((o) => o.id),
        )
      : [];
  const rowsOf = new Map<number, q.LockedOrderRow[]>();
  for (const r of lockedRows) rowsOf.set(r.ordine_id, [...(rowsOf.get(r.ordine_id) ?? []), r]);

  const creations: Checked[] = [];
  const changes: Change[] = [];
  const untouched: { c: Checked; id: number }[] = [];
  for (const c of unique) {
    const known = existing.get(key(c.fornitore, c.input.numero));
    try {
      if (!known) {
        for (const r of c.rows) if (!r.attivo) throw inactive(r);
        creations.push(c);
        continue;
      }
      const change = planChange(c, known, rowsOf.get(known.id) ?? []);
      if (change) changes.push(change);
      else untouched.push({ c, id: known.id });
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      refuse(c.indice, e);
    }
  }

  await writeChanges(tx, changes);
  const created = await writeCreations(tx, creations);

  const ids = [...created.map((x) => x.id), ...changes.map((x) => x.id), ...untouched.map((x) => x.id)];
  const rowIds = ids.length > 0 ? await rows(tx, q.rowIdsOfOrders(ids)) : [];
  const listed = (id: number) =>
    rowIds.filter((r) => r.ordine_id === id).map((r) => ({ numero_riga: r.numero_riga, riga: r.id, etichetta: `R${r.id}` }));
  const done = (c: Checked, id: number, esito: "creato" | "aggiornato" | "invariato") =>
    outcomes.set(c.indice, { indice: c.indice, numero: c.input.numero, id, esito, righe: listed(id) });
  for (const x of created) done(x.c, x.id, "creato");
  for (const x of changes) done(x.c, x.id, "aggiornato");
  for (const x of untouched) done(x.c, x.id, "invariato");

  const righe = input.ordini.map((_, i) => outcomes.get(i)!);
  const count = (esito: Outcome["esito"]) => righe.filter((r) => r.esito === esito).length;
  return { creati: count("creato"), aggiornati: count("aggiornato"), invariati: count("invariato"), rifiutati: count("rifiutato"), righe };
}

async function loadRefs(tx: Tx, ordini: OrderUpsertInput[]): Promise<Refs> {
  const distinct = (values: string[]) => [...new Set(values)];
  const fornitori = await rows(tx, q.suppliersByCode(distinct(ordini.map((o) => o.fornitore))));
  const magazzini = await rows(tx, q.warehousesByCode(distinct(ordini.map((o) => o.magazzino))));
  const articoli = await rows(tx, q.articlesByCode(distinct(ordini.flatMap((o) => o.righe.map((r) => r.articolo)))));
  return {
    fornitori: new Map(fornitori.map((f) => [f.codice, f.id])),
    magazzini: new Map(magazzini.map((m) => [m.codice, m.id])),
    articoli: new Map(articoli.map((a) => [a.codice, a])),
  };
}
/** The rows of existing orders, locked, each with the notice that announces it (read after the lock: the queries say why). */
async function lockRows(tx: Tx, ordini: number[]): Promise<q.LockedOrderRow[]> {
  const [locked, announced] = await rowsInOrder(tx, q.lockRowsOfOrders(ordini), q.announcedRows(ordini));
  const notices = new Map(announced.map((a) => [a.id, a.in_avviso]));
  return locked.map((r) => ({ ...r, in_avviso: notices.get(r.id) ?? null }));
}
