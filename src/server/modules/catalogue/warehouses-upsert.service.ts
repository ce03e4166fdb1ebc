import type { Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { RowError } from "../../lib/errors";
import { type CheckedRow, UpsertRows, type UpsertOutput, type Written } from "../../lib/upsert-rows";
import type { Actor } from "../auth/actor";
import { setLocationManagement, setWarehouseLocations } from "../ledger/location-switch.service";
import { loadLocations } from "../locations/locations-upsert.service";
import * as wq from "./warehouses.queries";
import type { WarehouseRowCheck } from "./master-data.schemas";
import { warehouseRowCheck } from "./master-data.schemas";
import * as q from "./master-data.queries";
import { loadWarehousesByCode, type KnownNamed, type NamedRow, writeNamed } from "./master-data.service";

/**
 * POST /magazzini (docs/api.md sections 9 and 11): warehouses by code, and their locations settings,
 * `ubicazione_ricevimento` (a code of that warehouse's locations) and `gestione_ubicazioni`. What the contract
 * leaves open, decided here:
 * - the receiving location is an active location of tipo `ricevimento` of that warehouse (GET /da-stoccare
 *   lists what lies in those); a new warehouse has no locations yet, so it names none: create it, its
 *   locations (POST /ubicazioni), then send its settings;
 * - a warehouse that manages locations always has one: clearing it, or switching on without one, is
 *   `ubicazione_ricevimento_mancante`; refusals of the switch itself (`giacenza_negativa`, `ubicazioni_in_uso`)
 *   are the row's, and nothing of that row is written (a savepoint per switching row: switches are rare);
 * - changing the receiving location of a warehouse that manages locations moves no stock: the goods already
 *   received stay where they are, new arrivals land in the new one.
 */

export interface WarehouseSettingsTarget {
  ubicazione_ricevimento_id: number | null;
  gestione_ubicazioni: boolean;
}

export interface WarehouseWrite {
  row: NamedRow;
  /** The settings after the write; undefined when the row sends none. */
  settings?: WarehouseSettingsTarget;
}

export async function upsertWarehouseRows(
  tx: Tx,
  actor: Actor,
  input: Record<string, unknown>[],
  opts: { timeZone: string },
): Promise<UpsertOutput> {
  const batch = new UpsertRows(input, warehouseRowCheck, "magazzini");
  await execute(tx, q.lockMasterData("magazzini"));
  const known = await loadWarehousesByCode(tx, batch.codes);
  const refuse = (r: CheckedRow<WarehouseRowCheck>, codice: ConstructorParameters<typeof RowError>[0], messaggio: string) =>
    batch.refuse(
      r.indice,
      r.value.codice,
      known.get(r.value.codice)?.id ?? null,
      new RowError(codice, `Riga ${r.indice} ('${r.value.codice}'): ${messaggio}`),
    );
  const resolved = await resolveSettings(tx, batch.accepted, known);
  const writes: WarehouseWrite[] = [];
  for (const r of batch.accepted) {
    const v = r.value;
    const nome = v.nome ?? known.get(v.codice)?.nome;
    if (nome === undefined) {
      refuse(r, "campo_non_valido", "campo 'nome' obbligatorio per un magazzino nuovo.");
      continue;
    }
    const settings = resolved.get(r.indice);
    if (settings instanceof RowError) {
      refuse(r, settings.codice as Parameters<typeof refuse>[1], settings.message);
      continue;
    }
    writes.push({ row: { codice: v.codice, nome, attivo: v.attivo }, settings });
  }
  const { written, refused } = await writeWarehouses(tx, actor, writes, known, opts);
  for (const [codice, e] of refused) {
    const r = batch.accepted.find((a) => a.value.codice === codice)!;
    refuse(r, e.codice as Parameters<typeof refuse>[1], e.message);
  }
  return batch.answer(written, (c) => known.get(c)?.id);
}

/**
 * Each row's settings after the write, or why they are refused. Holds the locations' master-data lock (after the
 * warehouses', the import's order), so that no location named here is deactivated or retyped before commit.
 */
export async function resolveSettings(
  tx: Tx,
  accepted: CheckedRow<Pick<WarehouseRowCheck, "codice" | "gestione_ubicazioni" | "ubicazione_ricevimento">>[],
  known: Map<string, KnownNamed>,
): Promise<Map<number, WarehouseSettingsTarget | RowError | undefined>> {
  const out = new Map<number, WarehouseSettingsTarget | RowError | undefined>();
  const asking = accepted.filter((r) => r.value.gestione_ubicazioni !== undefined || r.value.ubicazione_ricevimento !== undefined);
  if (asking.length === 0) return out;
  await execute(tx, q.lockMasterData("ubicazioni"));
  const ids = asking.flatMap((r) => known.get(r.value.codice)?.id ?? []);
  const current = new Map((await rows(tx, wq.warehouseSettings(ids))).map((s) => [s.id, s]));
  const named = asking.flatMap((r) => {
    const m = known.get(r.value.codice);
    return m && r.value.ubicazione_ricevimento ? [{ m: m.id, c: r.value.ubicazione_ricevimento }] : [];
  });
  const locations = await loadLocations(
    tx,
    named.map((n) => n.m),
    named.map((n) => n.c),
  );
  for (const r of asking) {
    const v = r.value;
    const m = known.get(v.codice);
    const now = m ? current.get(m.id) : undefined;
    let receiving = now?.ubicazione_ricevimento_id ?? null;
    if (v.ubicazione_ricevimento !== undefined && v.ubicazione_ricevimento !== null) {
      const u = m && locations.get(`${m.id}\u0000${v.ubicazione_ricevimento}`);
      if (!u?.attiva) {
        const why = !m
          ? "il magazzino è nuovo e non ha ancora ubicazioni: crearlo, registrarne le ubicazioni (POST /ubicazioni), poi indicarla"
          : u
            ? "è disattivata"
            : "non è un'ubicazione di questo magazzino";
        out.set(r.indice, new RowError("ubicazione_non_trovata", `campo 'ubicazione_ricevimento': '${v.ubicazione_ricevimento}' ${why}.`));
        continue;
      }
      if (u.tipo !== "ricevimento") {
        out.set(
          r.indice,
          new RowError(
            "campo_non_valido",
            `campo 'ubicazione_ricevimento': '${u.codice}' è di tipo ${u.tipo}; l'ubicazione di ricevimento è di tipo ricevimento.`,
          ),
        );
        continue;
      }
      receiving = u.id;
    } else if (v.ubicazione_ricevimento === null) receiving = null;
    const gestione = v.gestione_ubicazioni ?? now?.gestione_ubicazioni ?? false;
    if (gestione && receiving === null) {
      out.set(
        r.indice,
        new RowError(
          "ubicazione_ricevimento_mancante",
          "un magazzino che gestisce le ubicazioni ha un'ubicazione di ricevimento, dove arriva la merce: indicarla in 'ubicazione_ricevimento'.",
        ),
      );
      continue;
    }
    out.set(r.indice, { ubicazione_ricevimento_id: receiving, gestione_ubicazioni: gestione });
  }
  return out;
}

/**
 * Writes warehouses and their settings: the rows whose `gestione_ubicazioni` stays as it is in a fixed number of
 * statements; each row that switches on its own, under a savepoint, through the ledger's switch
 * (setLocationManagement, which moves the stock and sets the flag). A switch refused by the ledger refuses its
 * row, rolled back whole. Returns what was written (by code) and the rows refused. Without an actor (the command
 * line's import, which has no author to give an operation) only a warehouse holding nothing switches.
 */
export async function writeWarehouses(
  tx: Tx,
  actor: Actor | null,
  writes: WarehouseWrite[],
  known: Map<string, KnownNamed>,
  opts: { timeZone: string },
): Promise<{ written: Written; refused: Map<string, RowError> }> {
  const ids = writes.flatMap((w) => known.get(w.row.codice)?.id ?? []);
  const current = new Map(ids.length ? (await rows(tx, wq.warehouseSettings(ids))).map((s) => [s.id, s]) : []);
  const settled = (w: WarehouseWrite) => current.get(known.get(w.row.codice)?.id ?? 0);
  const switching = (w: WarehouseWrite) =>
    w.settings !== undefined && w.settings.gestione_ubicazioni !== (settled(w)?.gestione_ubicazioni ?? false);
  const receivingChanges = (w: WarehouseWrite) =>
    w.settings !== undefined && w.settings.ubicazione_ricevimento_id !== (settled(w)?.ubicazione_ricevimento_id ?? null);

  // The warehouse gates of the rows that change settings, in id order, before any of them is updated.
  const gated = writes.filter((w) => switching(w) || receivingChanges(w)).flatMap((w) => known.get(w.row.codice)?.id ?? []);
  if (gated.length > 0) await execute(tx, wq.lockWarehouses(gated));

  const plain = writes.filter((w) => !switching(w));
  const written = await writeNamed(
    tx,
    "magazzini",
    plain.map((w) => w.row),
    known,
  );
  const moved = plain.filter(receivingChanges);
  if (moved.length > 0) {
    await execute(
      tx,
      wq.setReceiving(
        moved.map((w) => known.get(w.row.codice)!.id),
        moved.map((w) => w.settings!.ubicazione_ricevimento_id),
      ),
    );
    for (const w of moved) written.set(w.row.codice, { id: known.get(w.row.codice)!.id, esito: "aggiornato" });
  }
  const refused = new Map<string, RowError>();
  for (const w of writes.filter(switching)) {
    const id = known.get(w.row.codice)!.id;
    await execute(tx, wq.savepoint());
    try {
      await writeNamed(tx, "magazzini", [w.row], known);
      if (receivingChanges(w)) await execute(tx, wq.setReceiving([id], [w.settings!.ubicazione_ricevimento_id]));
      if (actor) await setLocationManagement(tx, actor, id, w.settings!.gestione_ubicazioni, opts);
      else await switchEmpty(tx, id, w.settings!.gestione_ubicazioni);
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      await execute(tx, wq.rollbackToSavepoint());
      refused.set(w.row.codice, new RowError(e.codice, `${e.message}`));
      continue;
    }
    await execute(tx, wq.releaseSavepoint());
    written.set(w.row.codice, { id, esito: "aggiornato" });
  }
  return { written, refused };
}

/**
 * The switch of a warehouse that holds nothing, for a write without an author: no stock to move, so no operation;
 * the warehouse gate is held (writeWarehouses took it), so nothing comes in before commit.
 */
async function switchEmpty(tx: Tx, id: number, on: boolean): Promise<void> {
  if ((await rows(tx, wq.warehouseHolding(id))).length > 0) {
    throw new RowError(
      "campo_non_valido",
      `campo 'gestione_ubicazioni': il magazzino ha giacenza, e spostarla è un'operazione con il suo autore: cambiarla con POST /magazzini.`,
    );
  }
  await setWarehouseLocations(tx, id, on);
}
