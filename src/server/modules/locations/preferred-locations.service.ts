import type { Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { RowError } from "../../lib/errors";
import { loadLocations, loadWarehouseIdsByCode } from "./locations-upsert.service";
import * as lq from "./locations.queries";

/**
 * An article's preferred locations (docs/api.md section 11, `ubicazioni_preferite` of POST /articoli): where putaway
 * proposes to take its goods, at most one per warehouse, sent as codes and replacing the whole list. What the
 * contract leaves open, decided here: a preferred location is an active location of tipo `stoccaggio` (putaway
 * never proposes a `quarantena` one, and a `ricevimento` one is where goods wait to be put away);
 * `null` is the empty list.
 */

export interface PreferredInput {
  magazzino: string;
  ubicazione: string;
}

/** A resolved list: warehouse id → location id, in the order sent. */
export type Preferred = { magazzino_id: number; ubicazione_id: number }[];

/**
 * Resolves each article row's list, or says why it is refused. `lists`: row index → the list sent. Holds the
 * locations' master-data lock (after the articles', the import's order) so that no location named here is
 * deactivated or retyped before this write commits.
 */
export async function resolvePreferred(tx: Tx, lists: Map<number, PreferredInput[]>): Promise<Map<number, Preferred | RowError>> {
  const out = new Map<number, Preferred | RowError>();
  if (lists.size === 0) return out;
  await execute(tx, lq.lockLocationsMasterData());
  const all = [...lists.values()].flat();
  const warehouses = await loadWarehouseIdsByCode(tx, [...new Set(all.map((p) => p.magazzino))]);
  const named = all.flatMap((p) => {
    const m = warehouses.get(p.magazzino);
    return m ? [{ m: m.id, c: p.ubicazione }] : [];
  });
  const locations = await loadLocations(
    tx,
    named.map((n) => n.m),
    named.map((n) => n.c),
  );
  for (const [indice, list] of lists) {
    const resolved: Preferred = [];
    const problem = (codice: ConstructorParameters<typeof RowError>[0], messaggio: string) =>
      new RowError(codice, `campo 'ubicazioni_preferite': ${messaggio}`);
    let refused: RowError | undefined;
    const seen = new Set<string>();
    for (const p of list) {
      const m = warehouses.get(p.magazzino);
      if (seen.has(p.magazzino)) {
        refused = problem(
          "campo_non_valido",
          `il magazzino '${p.magazzino}' compare più volte: al più un'ubicazione preferita per magazzino.`,
        );
        break;
      }
      seen.add(p.magazzino);
      if (!m) {
        refused = problem("magazzino_non_trovato", `il magazzino '${p.magazzino}' non esiste.`);
        break;
      }
      const u = locations.get(`${m.id}\u0000${p.ubicazione}`);
      if (!u?.attiva) {
        refused = problem(
          "ubicazione_non_trovata",
          `l'ubicazione '${p.ubicazione}' ${u ? "è disattivata" : "non esiste"} nel magazzino '${p.magazzino}'.`,
        );
        break;
      }
      if (u.tipo !== "stoccaggio") {
        refused = problem(
          "campo_non_valido",
          `l'ubicazione '${p.ubicazione}' è di tipo ${u.tipo}: una preferita è un'ubicazione di stoccaggio, dove si mette via la merce.`,
        );
        break;
      }
      resolved.push({ magazzino_id: m.id, ubicazione_id: u.id });
    }
    out.set(indice, refused ?? resolved);
  }
  return out;
}

/** The stored lists of these articles, by article id. */
export async function loadPreferred(tx: Tx, articleIds: number[]): Promise<Map<number, Preferred>> {
  const out = new Map<number, Preferred>();
  if (articleIds.length === 0) return out;
  for (const r of await rows(tx, lq.preferredOf(articleIds))) {
    out.set(r.articolo_id, [...(out.get(r.articolo_id) ?? []), { magazzino_id: r.magazzino_id, ubicazione_id: r.ubicazione_id }]);
  }
  return out;
}

/** Whether two lists say the same, whatever their order. */
export function samePreferred(a: Preferred, b: Preferred): boolean {
  const key = (l: Preferred) =>
    l
      .map((p) => `${p.magazzino_id}:${p.ubicazione_id}`)
      .sort()
      .join(",");
  return key(a) === key(b);
}

/** Replaces the lists of these articles (two statements whatever their number). */
export async function writePreferred(tx: Tx, lists: Map<number, Preferred>): Promise<void> {
  if (lists.size === 0) return;
  const entries = [...lists].flatMap(([articolo, l]) => l.map((p) => ({ articolo, ...p })));
  await execute(tx, lq.deletePreferred([...lists.keys()]));
  if (entries.length > 0) {
    await execute(
      tx,
      lq.insertPreferred(
        entries.map((e) => e.articolo),
        entries.map((e) => e.magazzino_id),
        entries.map((e) => e.ubicazione_id),
      ),
    );
  }
}
