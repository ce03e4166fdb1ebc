import type { Tx } from "../../db/client";
import { execute, rows, rowsInOrder } from "../../db/sql";
import { canonical, Decimal, priceFromString, quantityFromNumber } from "../../lib/decimal";
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

interface Refs {
  fornitori: Map<string, number>;
  magazzini: Map<string, number>;
  articoli: Map<string, { id: number; attivo: boolean; ha_varianti: boolean }>;
}

/** A row as the request wants it: ids resolved, decimals canonical. */
interface WantedRow {
  at: string;
  numero_riga: number;
  articolo: number;
  codice: string;
  attivo: boolean;
  ordinata: string;
  prezzo: string;
}

/** An order whose request passed the checks that need no database state. */
interface Checked {
  indice: number;
  input: OrderUpsertInput;
  fornitore: number;
  magazzino: number;
  rows: WantedRow[];
}

/** What to write for an existing order. */
interface Change {
  c: Checked;
  id: number;
  header: boolean;
  update: { id: number; articolo: number; ordinata: string; prezzo: string; riapri: boolean }[];
  insert: WantedRow[];
  remove: number[];
}

const key = (fornitore: number, numero: string) => `${fornitore}/${numero}`;

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

/** The checks that need no order state: references, line numbers, quantities and prices. */
function checkOrder(indice: number, o: OrderUpsertInput, refs: Refs): Checked {
  const fornitore = refs.fornitori.get(o.fornitore);
  if (fornitore === undefined) {
    throw new RowError(
      "fornitore_non_trovato",
      `Ordine ${o.numero} (ordini[${indice}]): il fornitore '${o.fornitore}' non esiste: crearlo prima con POST /fornitori.`,
    );
  }
  const magazzino = refs.magazzini.get(o.magazzino);
  if (magazzino === undefined) {
    throw new RowError(
      "magazzino_non_trovato",
      `Ordine ${o.numero} (ordini[${indice}]): il magazzino '${o.magazzino}' non esiste: crearlo prima con POST /magazzini.`,
    );
  }
  const seen = new Set<number>();
  const wanted = o.righe.map((r, i): WantedRow => {
    const at = `Ordine ${o.numero}, riga ${r.numero_riga} (ordini[${indice}].righe[${i}])`;
    if (seen.has(r.numero_riga))
      throw new RowError("numero_riga_ripetuto", `${at}: il numero di riga ${r.numero_riga} compare più volte nell'ordine.`);
    seen.add(r.numero_riga);
    const a = refs.articoli.get(r.articolo);
    if (!a) throw new RowError("articolo_non_trovato", `${at}: l'articolo '${r.articolo}' non esiste: crearlo prima con POST /articoli.`);
    if (a.ha_varianti)
      throw new RowError("articolo_con_varianti", `${at}: l'articolo '${r.articolo}' è un modello con varianti: ordinare una variante.`);
    const ordinata = quantityFromNumber(r.quantita);
    if (ordinata === null) {
      throw new RowError(
        "quantita_non_valida",
        `${at}: quantità ${r.quantita} non valida: deve essere maggiore di zero, con al massimo 3 decimali.`,
      );
    }
    const prezzo = priceFromString(r.prezzo);
    if (prezzo === null)
      throw new RowError(
        "prezzo_non_valido",
        `${at}: prezzo '${r.prezzo}' non valido: decimale semplice con il punto, al massimo 4 decimali.`,
      );
    return {
      at,
      numero_riga: r.numero_riga,
      articolo: a.id,
      codice: r.articolo,
      attivo: a.attivo,
      ordinata: canonical(ordinata),
      prezzo: canonical(prezzo),
    };
  });
  return { indice, input: o, fornitore, magazzino, rows: wanted };
}

const inactive = (r: WantedRow) =>
  new RowError("articolo_non_attivo", `${r.at}: l'articolo '${r.codice}' non è attivo e non si ordina: riattivarlo o togliere la riga.`);

/** What changes on an existing order, or null when the request says what the order already is. */
/** The rows of existing orders, locked, each with the notice that announces it (read after the lock: the queries say why). */
async function lockRows(tx: Tx, ordini: number[]): Promise<q.LockedOrderRow[]> {
  const [locked, announced] = await rowsInOrder(tx, q.lockRowsOfOrders(ordini), q.announcedRows(ordini));
  const notices = new Map(announced.map((a) => [a.id, a.in_avviso]));
  return locked.map((r) => ({ ...r, in_avviso: notices.get(r.id) ?? null }));
}

/** A row announced by a shipping notice not yet received keeps its place and its article (docs/api.md section 12). */
const announced = (c: Checked, r: q.LockedOrderRow) =>
  new RowError(
    "riga_in_avviso",
    `Ordine ${c.input.numero}, riga ${r.numero_riga} (R${r.id}, ${r.codice}): è annunciata dall'avviso di spedizione ${r.in_avviso}, non ancora ricevuto; non si toglie né cambia articolo finché l'avviso la annuncia.`,
  );

function planChange(c: Checked, known: q.ExistingOrderRow, current: q.LockedOrderRow[]): Change | null {
  const byNumber = new Map(current.map((r) => [r.numero_riga, r]));
  const change: Change = {
    c,
    id: known.id,
    header: known.data !== c.input.data || known.magazzino_id !== c.magazzino,
    update: [],
    insert: [],
    remove: [],
  };
  // The notice was checked against the order's warehouse (magazzino_diverso) and its pallets land there: while
  // one not yet received announces a row, the order keeps its warehouse (the contract's rule, by its reason).
  const held = known.magazzino_id !== c.magazzino ? current.find((r) => r.in_avviso !== null) : undefined;
  if (held)
    throw new RowError(
      "riga_in_avviso",
      `Ordine ${c.input.numero}: la riga ${held.numero_riga} (R${held.id}, ${held.codice}) è annunciata dall'avviso di spedizione ${held.in_avviso}, non ancora ricevuto, nel magazzino attuale dell'ordine; il magazzino non cambia finché l'avviso la annuncia (riceverlo, o sostituire l'avviso senza la riga).`,
    );
  for (const w of c.rows) {
    const r = byNumber.get(w.numero_riga);
    if (!r) {
      if (!w.attivo) throw inactive(w);
      change.insert.push(w);
      continue;
    }
    const ordinata = new Decimal(w.ordinata);
    const sameQuantity = ordinata.eq(r.ordinata);
    if (r.articolo_id === w.articolo && sameQuantity && new Decimal(w.prezzo).eq(r.prezzo)) continue;
    if (r.articolo_id !== w.articolo && r.movimentata) {
      throw new RowError(
        "riga_con_arrivi",
        `${w.at}: la riga R${r.id} ha arrivi registrati per l'articolo '${r.codice}' e non può passare a '${w.codice}': chiuderla e aggiungere una riga nuova.`,
      );
    }
    if (r.articolo_id !== w.articolo && r.in_avviso !== null) throw announced(c, r);
    if (ordinata.lt(r.arrivata)) {
      throw new RowError(
        "quantita_sotto_arrivata",
        `${w.at}: quantità ${w.ordinata} inferiore a quella già arrivata sulla riga R${r.id} (${canonical(r.arrivata)}).`,
      );
    }
    if (!w.attivo && (r.articolo_id !== w.articolo || ordinata.gt(r.ordinata))) throw inactive(w);
    change.update.push({
      id: r.id,
      articolo: w.articolo,
      ordinata: w.ordinata,
      prezzo: w.prezzo,
      riapri: !sameQuantity && !new Decimal(r.chiusa).isZero(),
    });
  }
  const wanted = new Set(c.rows.map((w) => w.numero_riga));
  for (const r of current) {
    if (wanted.has(r.numero_riga)) continue;
    if (r.movimentata) {
      throw new RowError(
        "riga_con_arrivi",
        `Ordine ${c.input.numero}, riga ${r.numero_riga} (R${r.id}, ${r.codice}): ha arrivi registrati e non può essere tolta; per non attenderne altri, chiuderla con POST /ordini-acquisto/${known.id}/chiudi.`,
      );
    }
    if (r.in_avviso !== null) throw announced(c, r);
    change.remove.push(r.id);
  }
  if (!change.header && change.update.length === 0 && change.insert.length === 0 && change.remove.length === 0) return null;
  if (known.stato === "evaso") {
    throw new RowError(
      "ordine_evaso",
      `Ordine ${c.input.numero} (ordini[${c.indice}]): è evaso (tutto arrivato o chiuso) e non si modifica più: per altra merce creare un ordine nuovo.`,
    );
  }
  return change;
}

/** Rows first (removed, changed, added), the orders by id last: the ledger's lock order. */
async function writeChanges(tx: Tx, changes: Change[]) {
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

async function writeCreations(tx: Tx, creations: Checked[]): Promise<{ c: Checked; id: number }[]> {
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
