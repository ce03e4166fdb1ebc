import type { Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { RowError } from "../../lib/errors";
import { locationCodeProblem } from "../../../lib/barcode";
import type { TipoUbicazione } from "../../../lib/domain-lists";
import { type CheckedRow, UpsertRows, type UpsertOutput, type Written } from "../../lib/upsert-rows";
import { locationKey, locationRowCheck, type LocationRowCheck } from "./locations.schemas";
import { lockHeldPairs } from "../ledger/ledger.service";
import { uncoverPairs } from "../ledger/uncover";
import * as lq from "./locations.queries";
import type { KnownLocation } from "./locations.queries";

/**
 * POST /ubicazioni (docs/api.md section 11), and the import's `ubicazioni`: locations upserted by (warehouse code,
 * location code), each row checked on its own as in the other master-data upserts (section 9), the rows that
 * pass written in a fixed number of statements. What the contract leaves open, decided here:
 * - `tipo` is required for a new location and may change later, but a warehouse's receiving location stays of
 *   tipo `ricevimento` (GET /da-stoccare lists what lies in those): `campo_non_valido`;
 * - deactivating (`attiva: false`) a location that holds goods, or its warehouse's receiving location, is
 *   `ubicazione_non_vuota`. The check holds the location's gate (exclusive) until commit, so a load into it
 *   either committed before the check (and is seen) or runs after the commit (and finds it inactive);
 * - a location retyped into or out of `quarantena` changes what its stock covers (docs/api.md section 14): its
 *   gate is held exclusive the same way (no goods come in until commit), and after the write the pairs with stock
 *   there have their balances locked (lock order 5) and their reservations' `scoperta` recomputed in this
 *   transaction (ledger/uncover.ts): into quarantena, newest reservations first; out of it, the oldest covered first.
 */

/** A location to write, checked; `magazzino_id` resolved. */
export interface LocationTarget {
  magazzino_id: number;
  codice: string;
  descrizione: string | null;
  tipo: TipoUbicazione;
  attiva: boolean;
}

/** The warehouses of these codes, by code: a location names its warehouse so. */
export async function loadWarehouseIdsByCode(tx: Tx, codes: string[]): Promise<Map<string, { id: number; codice: string }>> {
  return new Map((await rows(tx, lq.warehousesByCode(codes))).map((m) => [m.codice, m]));
}

/** A location write's result by key (locationKey of the warehouse code and the location code). */
export async function upsertLocationRows(tx: Tx, input: Record<string, unknown>[], opts: { oggi: string }): Promise<UpsertOutput> {
  const batch = new UpsertRows(input, locationRowCheck, "ubicazioni", (row, codice) => locationKey(row.magazzino, codice));
  await execute(tx, lq.lockLocationsMasterData());
  const warehouses = await loadWarehouseIdsByCode(tx, [...new Set(batch.accepted.map((r) => r.value.magazzino))]);
  const pairs = batch.accepted.flatMap((r) => {
    const m = warehouses.get(r.value.magazzino);
    return m ? [{ m: m.id, c: r.value.codice }] : [];
  });
  const known = await loadLocations(
    tx,
    pairs.map((p) => p.m),
    pairs.map((p) => p.c),
  );
  const keyOf = (v: LocationRowCheck) => locationKey(v.magazzino, v.codice);
  const idOfKey = new Map<string, number>();
  for (const r of batch.accepted) {
    const m = warehouses.get(r.value.magazzino);
    const db = m && known.get(`${m.id}\u0000${r.value.codice}`);
    if (db) idOfKey.set(keyOf(r.value), db.id);
  }
  const refuse = (r: CheckedRow<LocationRowCheck>, codice: ConstructorParameters<typeof RowError>[0], messaggio: string) =>
    batch.refuse(
      r.indice,
      r.value.codice,
      idOfKey.get(keyOf(r.value)) ?? null,
      new RowError(codice, `Riga ${r.indice} ('${r.value.magazzino}' / '${r.value.codice}'): ${messaggio}`),
    );

  const targets: { r: CheckedRow<LocationRowCheck>; db: KnownLocation | undefined; row: LocationTarget }[] = [];
  for (const r of batch.accepted) {
    const v = r.value;
    const m = warehouses.get(v.magazzino);
    if (!m) {
      refuse(r, "magazzino_non_trovato", `il magazzino '${v.magazzino}' non esiste: crearlo prima con POST /magazzini.`);
      continue;
    }
    const db = known.get(`${m.id}\u0000${v.codice}`);
    const problem = db ? null : locationCodeProblem(v.codice);
    if (problem) {
      refuse(r, "codice_non_valido", `${problem}: un'ubicazione ha un codice che non si confonde con la merce (es. "A-01-02").`);
      continue;
    }
    const tipo = v.tipo ?? db?.tipo;
    if (tipo === undefined) {
      refuse(r, "campo_non_valido", "campo 'tipo' obbligatorio per un'ubicazione nuova (ricevimento, stoccaggio o quarantena).");
      continue;
    }
    if (db?.ricevimento && tipo !== "ricevimento") {
      refuse(
        r,
        "campo_non_valido",
        `campo 'tipo': è l'ubicazione di ricevimento del magazzino e resta di tipo ricevimento; indicarne un'altra in POST /magazzini prima.`,
      );
      continue;
    }
    const row = {
      magazzino_id: m.id,
      codice: v.codice,
      descrizione: v.descrizione !== undefined ? v.descrizione : (db?.descrizione ?? null),
      tipo,
      attiva: v.attiva ?? db?.attiva ?? true,
    };
    if (db?.attiva && !row.attiva && db.ricevimento) {
      refuse(
        r,
        "ubicazione_non_vuota",
        "è l'ubicazione di ricevimento del magazzino e non si disattiva: indicarne un'altra in POST /magazzini prima.",
      );
      continue;
    }
    targets.push({ r, db, row });
  }

  // Deactivations and retypes into or out of quarantena: hold each location's gate (one statement, by id), then
  // look at what it holds (committed before the gate was ours).
  const closing = targets.filter((t) => t.db?.attiva && !t.row.attiva).map((t) => t.db!.id);
  const retyped = targets.filter((t) => t.db && (t.db.tipo === "quarantena") !== (t.row.tipo === "quarantena")).map((t) => t.db!.id);
  if (closing.length > 0 || retyped.length > 0) await execute(tx, lq.lockLocationGates([...closing, ...retyped]));
  if (closing.length > 0) {
    const holding = new Map((await rows(tx, lq.locationsHolding(closing))).map((h) => [h.ubicazione_id, h.articoli]));
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i]!;
      const articoli = t.db && holding.get(t.db.id);
      if (!articoli) continue;
      const shown = articoli.slice(0, 5).join(", ") + (articoli.length > 5 ? ` e altri ${articoli.length - 5}` : "");
      refuse(t.r, "ubicazione_non_vuota", `contiene ancora merce (${shown}): spostarla altrove, poi disattivarla.`);
      targets.splice(i, 1);
    }
  }
  const written = await writeLocations(
    tx,
    targets.map((t) => t.row),
    known,
  );
  const stillRetyped = retyped.filter((id) => targets.some((t) => t.db?.id === id));
  if (stillRetyped.length > 0) await uncoverRetyped(tx, stillRetyped, opts.oggi);
  // The writer answers by (warehouse id, code); the batch by (warehouse code, code).
  const byKey: Written = new Map();
  for (const t of targets) byKey.set(keyOf(t.r.value), written.get(`${t.row.magazzino_id}\u0000${t.row.codice}`)!);
  return batch.answer(byKey, (k) => idOfKey.get(k));
}

/**
 * After these locations' `tipo` moved into or out of `quarantena` (their gates held): the (article, warehouse) pairs
 * with stock in them, their balances FOR UPDATE in order, and the uncovering of their reservations.
 */
async function uncoverRetyped(tx: Tx, ids: number[], oggi: string): Promise<void> {
  const pairs = (await rows(tx, lq.pairsStockedIn(ids))).map((p) => ({ articolo: p.articolo_id, magazzino: p.magazzino_id }));
  if (pairs.length === 0) return;
  await uncoverPairs(tx, await lockHeldPairs(tx, pairs), oggi);
}

/** The locations with these (warehouse id, code) pairs, by `${magazzino_id}\0${codice}`. */
export async function loadLocations(tx: Tx, warehouses: number[], codes: string[]): Promise<Map<string, KnownLocation>> {
  const found = await rows(tx, lq.locationsByKey(warehouses, codes));
  return new Map(found.map((l) => [`${l.magazzino_id}\u0000${l.codice}`, l]));
}

/**
 * Creates the locations `known` does not hold and updates those where a value differs; a row equal to what
 * is stored is not written. Keyed by `${magazzino_id}\0${codice}`.
 */
export async function writeLocations(tx: Tx, targets: LocationTarget[], known: Map<string, KnownLocation>): Promise<Written> {
  const out: Written = new Map();
  const fresh: LocationTarget[] = [];
  const changed: { id: number; row: LocationTarget }[] = [];
  for (const t of targets) {
    const key = `${t.magazzino_id}\u0000${t.codice}`;
    const db = known.get(key);
    if (!db) {
      fresh.push(t);
      continue;
    }
    const same = db.descrizione === t.descrizione && db.tipo === t.tipo && db.attiva === t.attiva;
    out.set(key, { id: db.id, esito: same ? "invariato" : "aggiornato" });
    if (!same) changed.push({ id: db.id, row: t });
  }
  const columns = (ts: LocationTarget[]) => ({
    descrizione: ts.map((t) => t.descrizione),
    tipo: ts.map((t) => t.tipo),
    attiva: ts.map((t) => t.attiva),
  });
  if (changed.length > 0) {
    await execute(
      tx,
      lq.updateLocations(
        changed.map((c) => c.id),
        columns(changed.map((c) => c.row)),
      ),
    );
  }
  if (fresh.length > 0) {
    const created = await rows(
      tx,
      lq.insertLocations(
        fresh.map((f) => f.magazzino_id),
        fresh.map((f) => f.codice),
        columns(fresh),
      ),
    );
    for (const c of created) out.set(`${c.magazzino_id}\u0000${c.codice}`, { id: c.id, esito: "creato" });
  }
  return out;
}
