import type { Tx } from "../../db/client";
import { rows as all } from "../../db/sql";
import { Decimal } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import type { ArticleInfo } from "../catalogue/articles";
import { countedBalances, countedLocationGates, countedLocationStock, countedLots } from "../ledger/count-stock";
import { lotLockOrder } from "../ledger/ledger.service";
import { resolveLocations, type ResolvedLocation, type WarehouseInfo } from "../ledger/location-balances.service";
import * as q from "./alignment.queries";
import type { AlignInput, AlignRowInput } from "./alignment.schemas";

/**
 * What a count compares against, read in lock order (ledger.service.ts): the counted locations' gates,
 * then lots, location stock and balances, each locked before it is read when the count writes, so a
 * movement racing the count waits for it and lands on top of the count.
 */

/** One counted unit: (article, lot, location); the location is null in a warehouse without locations. */
export interface Unit {
  indice: number;
  article: Pick<ArticleInfo, "id" | "codice">;
  lotto: string | null;
  ubicazione: ResolvedLocation;
  contato: string;
  /** Not named by the rows: held by the location counted as a whole (`completa`), counted zero. */
  implicita?: true;
}

const lotKey = (articolo: number, lotto: string | null) => `${articolo}\u0000${lotto ?? ""}`;

export const unitKey = (u: Pick<Unit, "article" | "lotto" | "ubicazione">) =>
  `${lotKey(u.article.id, u.lotto)}\u0000${u.ubicazione?.id ?? ""}`;

/** Where the count's rows were counted, and the location counted as a whole. */
export interface CountedLocations {
  /** Per well-formed row, in order: its location (null in a warehouse without locations), or the row's refusal. */
  rows: (ResolvedLocation | RowError)[];
  whole: ResolvedLocation;
}

/**
 * Resolves the top-level location (a fault there refuses the call: it is the envelope's) and each row's
 * (its own, else the top-level one), then takes the counted locations' gates in one statement, by id:
 * exclusive for the location counted as a whole, shared for the others (a count may put goods in). A
 * count may put goods into a location, so an inactive one is ubicazione_non_trovata, as for a load.
 * A preview (`simula`) takes no gate, as it takes no row lock.
 */
export async function countedLocations(
  tx: Tx,
  warehouses: Map<number, WarehouseInfo>,
  input: AlignInput,
  righe: readonly AlignRowInput[],
  write: boolean,
): Promise<CountedLocations> {
  const codes = [input.ubicazione, ...righe.map((r) => r.ubicazione ?? input.ubicazione)];
  // entrata: false, so the resolution takes no gate: the gates are taken below, in one order with the exclusive one.
  const [top, ...rows] = await resolveLocations(
    tx,
    warehouses,
    codes.map((codice) => ({ magazzino: input.magazzino, codice, entrata: false })),
  );
  if (input.ubicazione !== undefined && top instanceof RowError) throw new DomainError(top.codice, top.message, { campo: "ubicazione" });
  const whole = input.completa === true ? (top as ResolvedLocation) : null;
  const ids = new Set<number>();
  for (const r of [top, ...rows]) if (r !== null && r !== undefined && !(r instanceof RowError)) ids.add(r.id);
  if (ids.size === 0) return { rows, whole };
  const states = await countedLocationGates(tx, [...ids], whole?.id ?? null, write);
  const inactive = new Set(states.filter((s) => !s.attiva).map((s) => s.id));
  const refusal = (l: { codice: string }) =>
    new RowError(
      "ubicazione_non_trovata",
      `L'ubicazione '${l.codice}' del magazzino ${input.magazzino} non è attiva: non si conta (non riceve merce).`,
      "ubicazione",
    );
  if (top && !(top instanceof RowError) && inactive.has(top.id)) {
    const e = refusal(top);
    throw new DomainError(e.codice, e.message, { campo: "ubicazione" });
  }
  return { rows: rows.map((r) => (r && !(r instanceof RowError) && inactive.has(r.id) ? refusal(r) : r)), whole };
}

/**
 * The units a complete count adds: what the location holds above zero, per (article, lot), that the
 * rows do not name. An article named by a refused row of that location is left out whole: a count that
 * refuses a row does not zero what the row meant to count. Read under the location's exclusive gate, so
 * nothing new can come in; what goes out meanwhile is read again under the row locks.
 */
export async function implicitUnits(tx: Tx, whole: { id: number; codice: string }, named: Unit[], refused: Set<number>): Promise<Unit[]> {
  const counted = new Set(named.filter((u) => u.ubicazione?.id === whole.id).map((u) => lotKey(u.article.id, u.lotto)));
  const held = await all(tx, q.heldInLocation(whole.id));
  return held
    .filter((h) => !counted.has(lotKey(h.articolo_id, h.lotto)) && !refused.has(h.articolo_id))
    .map((h) => ({
      indice: -1,
      article: { id: h.articolo_id, codice: h.codice },
      lotto: h.lotto,
      ubicazione: whole,
      contato: "0",
      implicita: true as const,
    }));
}

/** A unit's current quantity (its location's stock, else its lot's residual, else the balance) and its lot. */
export interface Current {
  attuale: Decimal;
  lot: { id: number; residua: Decimal } | null;
}

/**
 * Reads (with `write`: locks, after creating the missing rows at their place) the units' lots, location
 * stock and balances, in lock order; returns each unit's current quantity.
 */
export async function readCurrent(tx: Tx, magazzino: number, units: Unit[], write: boolean): Promise<(u: Unit) => Current> {
  const lots = new Map<string, { id: number; residua: Decimal }>();
  const lotted = [...new Map(units.filter((u) => u.lotto !== null).map((u) => [lotKey(u.article.id, u.lotto), u])).values()].sort(
    lotLockOrder,
  );
  // Lots before location stock and balances, as every writer locks them (a movement takes its lot, then
  // the rest). That includes creating missing rows: a new row is held until commit, so creating balances
  // before locking the lots would deadlock with a movement that holds a lot and waits for a balance.
  if (lotted.length > 0) {
    const articoli = lotted.map((u) => u.article.id);
    const codici = lotted.map((u) => u.lotto!);
    for (const l of await countedLots(tx, magazzino, articoli, codici, write))
      lots.set(lotKey(l.articolo_id, l.codice), { id: l.id, residua: new Decimal(l.residua.toString()) });
  }
  const lotOf = (u: Unit) => (u.lotto === null ? null : (lots.get(lotKey(u.article.id, u.lotto)) ?? null));

  // A unit whose lot does not exist yet (a preview) holds nothing in any location.
  const located = units.filter((u) => u.ubicazione !== null && (u.lotto === null || lotOf(u) !== null));
  const stock = new Map<string, Decimal>();
  if (located.length > 0) {
    const articoli = located.map((u) => u.article.id);
    const ubicazioni = located.map((u) => u.ubicazione!.id);
    const lotti = located.map((u) => lotOf(u)?.id ?? null);
    for (const r of await countedLocationStock(tx, magazzino, articoli, ubicazioni, lotti, write))
      stock.set(`${r.articolo_id}\u0000${r.ubicazione_id}\u0000${r.lotto_id ?? ""}`, new Decimal(r.quantita.toString()));
  }

  const balances = new Map<number, Decimal>();
  const articleIds = [...new Set(units.map((u) => u.article.id))].sort((a, b) => a - b);
  // A count that writes locks every balance it moves; a preview reads those it compares against.
  const compared = write
    ? articleIds
    : [...new Set(units.filter((u) => u.lotto === null && u.ubicazione === null).map((u) => u.article.id))];
  for (const b of await countedBalances(tx, magazzino, write ? articleIds : [], compared, write))
    balances.set(b.articolo_id, new Decimal(b.quantita.toString()));

  return (u) => {
    const lot = lotOf(u);
    if (u.ubicazione !== null) {
      return { attuale: stock.get(`${u.article.id}\u0000${u.ubicazione.id}\u0000${lot?.id ?? ""}`) ?? new Decimal(0), lot };
    }
    if (u.lotto !== null) return { attuale: lot?.residua ?? new Decimal(0), lot };
    return { attuale: balances.get(u.article.id) ?? new Decimal(0), lot: null };
  };
}
