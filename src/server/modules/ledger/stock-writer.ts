import type { Tx } from "../../db/client";
import { rowsInOrder, rowsThenCommit, type Query } from "../../db/sql";
import { formatDate } from "../../lib/dates";
import { RowError } from "../../lib/errors";
import { setCountedLots } from "./count-stock";
import {
  appended,
  ledgerAppend,
  loadLot,
  lockLot,
  lotLockOrder,
  takeBackFromLot,
  unloadLot,
  type LedgerContext,
  type LedgerRow,
} from "./ledger.service";
import {
  loadLocation,
  lockLocation,
  locationLockOrder,
  type LocationKey,
  undoLocationChange,
  undoLotChange,
  unloadLocation,
} from "./location-balances.service";
import { refusedByHolds } from "./stock-holds";
import { uncoverAfterAppend } from "./uncover";

/**
 * The stock writer: lots (lock order 3), location stock (4), then the ledger append with the balances (5)
 * in one statement followed by the uncovering of the reservations it touches (uncover.ts, under the balances the
 * append holds), and the statements the caller holds at level 6 (its orders) in the same write. A
 * writer takes the gates (1, `lockWarehouses` / `resolveLocations`) and its order rows (2) before calling
 * it; no other code calls the ledger's steps that lock or write the lots, location stock or balances
 * (stock-locks.test.ts), and a count reads them under lock only through count-stock.ts.
 */

/** One change of stock: a resolved location, and its lot by id or by code. */
export interface StockIntent extends Omit<LedgerRow, "lotto" | "ubicazione"> {
  /** The article's code names it in a refusal. */
  codice: string;
  /**
   * `id` null: the lot is named by its code, and the writer finds it (an unload: lotto_non_trovato) or
   * creates it (a load, with `scadenza`) and sets it.
   */
  lotto: { id: number | null; codice: string } | null;
  /** A load's lot expiry (loadLot: an existing lot keeps its own, a different one is scadenza_diversa). */
  scadenza?: string | null;
  /** Null outside a warehouse that manages locations. */
  ubicazione: { id: number; codice: string } | null;
  /**
   * A move (a transfer, a putaway, the locations switch): the goods come out of this warehouse and location
   * into the intent's own, `quantita` > 0, in the same take; the ledger gets its two rows, the source's first.
   * A lot named by code is taken from the source lot (`lotto`: its id, set by the writer) and given to the
   * destination's, the source's expiry with it; a lot named by id stays as it is (a move inside one warehouse).
   */
  da?: { magazzino: number; ubicazione: { id: number; codice: string } | null; lotto?: number };
}

/** An unload of an article (by code, when lotted: the writer finds the lot), from a resolved location. */
export function unloadIntent(
  p: { article: { id: number; codice: string }; quantita: string; lotto: string | undefined; from?: { id: number; codice: string } | null },
  magazzino: number,
  extra: Pick<StockIntent, "prezzo" | "riferimento">,
): StockIntent {
  return {
    natura: "scarico",
    magazzino,
    articolo: p.article.id,
    codice: p.article.codice,
    quantita: `-${p.quantita}`,
    lotto: p.lotto === undefined ? null : { id: null, codice: p.lotto },
    ubicazione: p.from ?? null,
    ...extra,
  };
}

/** Why an intent was refused at its lot or its location: the caller may turn it into its own refusal. */
export type StockShortfall = { step: "lotto"; residua?: string; error: RowError } | { step: "ubicazione"; error: RowError };

export interface TakeStockOptions {
  /** The caller's own refusal of an intent the stock cannot serve (default: the ledger's RowError). */
  refuse?: (intent: StockIntent, why: StockShortfall) => Error | Promise<Error>;
  /**
   * Refusals come back by intent index instead of being thrown, and a refused intent leaves its lot and
   * location stock as they were: writers that accept the other rows, or report every refused row.
   */
  partial?: boolean;
  /**
   * A count (the alignment) sets its lots to the counted residual (lot id → residual) in one statement,
   * their locks held since its read (count-stock.ts), instead of moving each lot by its intents.
   */
  countedLots?: Map<number, string>;
  /**
   * A write that names no reservation respects the holds (docs/api.md section 14, stock-holds.ts): where the
   * reservations hold an article in a warehouse, a take-out that would leave less free is quantita_prenotata.
   * `oggi` (the service's business date) tells the expired lots. Facts (counts, arrivals and their
   * cancellation, moves inside a warehouse) leave it out. `consumed` (intent index → quantity): the part of an
   * unload that consumes the hold of the reservation it names (POST /movimenti, reservations-consume.service.ts),
   * which the reservation gives up in the same write; only the rest is checked against what is free.
   */
  holds?: { oggi: string; consumed?: ReadonlyMap<number, string> };
}

export interface AppendStockOptions<T extends readonly Query<unknown>[]> {
  /** Statements of lock order 6 (the orders), sent in the append's write, after it. */
  after?: T;
  /** The write ends the unit of work: its COMMIT goes out with it (sql.ts rowsThenCommit). */
  last?: boolean;
  /** Today's business date, which tells the expired lots to the uncovering (uncover.ts); default: the movements' `data`. */
  oggi?: string;
}

type Rows<T extends readonly Query<unknown>[]> = { [K in keyof T]: T[K] extends Query<infer R> ? R[] : never };

interface Appended<T extends readonly Query<unknown>[]> {
  operazione: number;
  /** By intent: its movement (a move's: the destination's). */
  ids: number[];
  /** By intent: a move's source movement, else null. */
  sources: (number | null)[];
  after: Rows<T>;
}

/**
 * writeStock's first half, for a writer that has its own statements between the stock and the append (a
 * sales document's number): every lot in `lotLockOrder`, then every location row in `locationLockOrder`.
 * Without `partial`, the first refusal is thrown and the caller's transaction rolls back what moved.
 */
export async function takeStock(tx: Tx, intents: StockIntent[], opts: TakeStockOptions = {}): Promise<Map<number, RowError>> {
  const take: Take = { intents, opts, refused: new Map(), lotChanges: new Map(), locationChanges: new Map() };
  if (opts.countedLots) {
    if (opts.countedLots.size > 0) await setCountedLots(tx, [...opts.countedLots.keys()], [...opts.countedLots.values()]);
  } else {
    await takeLots(tx, take);
  }
  await takeLocations(tx, take);
  // Every intent not refused holds its lot and its location row from here: the check across them (what of
  // the stock is reserved) has them all, before any append, and takes the balances next (lock order 5).
  if (opts.holds) {
    for (const [indice, error] of await refusedByHolds(tx, intents, take.refused, opts.holds.oggi, opts.holds.consumed)) {
      if (!opts.partial) throw error;
      await giveBack(tx, take, indice);
      take.refused.set(indice, error);
    }
  }
  return take.refused;
}

/** One takeStock: its intents, and what it refused and changed so far, by intent index. */
interface Take {
  intents: StockIntent[];
  opts: TakeStockOptions;
  refused: Map<number, RowError>;
  /** The lot changes made for an intent (lot id, signed delta), given back when a later step refuses it. */
  lotChanges: Map<number, { lot: number; delta: string }[]>;
  /** The location changes made for an intent (its key, signed delta), given back when the holds refuse it. */
  locationChanges: Map<number, { key: LocationKey; delta: string }[]>;
}

/** A refused intent's location changes, then its lot changes, given back: its rows stay locked, as they were. */
async function giveBack(tx: Tx, take: Take, indice: number): Promise<void> {
  for (const change of take.locationChanges.get(indice) ?? []) await undoLocationChange(tx, change.key, negated(change.delta));
  for (const change of take.lotChanges.get(indice) ?? []) await undoLotChange(tx, change.lot, negated(change.delta));
}

async function refuse(take: Take, indice: number, why: StockShortfall): Promise<void> {
  const error = take.opts.refuse ? await take.opts.refuse(take.intents[indice]!, why) : why.error;
  if (!take.opts.partial) throw error;
  if (!(error instanceof RowError)) throw new Error("takeStock: un rifiuto parziale è un RowError");
  take.refused.set(indice, error);
}

/** Lock order 3: each intent's lot (a move's two: the lower warehouse's first), never below zero. */
async function takeLots(tx: Tx, take: Take): Promise<void> {
  const lotted = take.intents.flatMap((intent, indice) => {
    if (intent.lotto === null) return [];
    if (intent.da && intent.lotto.id !== null) {
      // A move of a lot named by id re-places stock inside one warehouse: its lot does not change.
      if (intent.da.magazzino !== intent.magazzino) throw new Error("takeStock: uno spostamento fra magazzini nomina il lotto per codice");
      return [];
    }
    return [{ intent, lot: intent.lotto, indice, article: { id: intent.articolo }, lotto: intent.lotto.codice }];
  });
  for (const { intent, lot, indice } of lotted.sort(lotLockOrder)) {
    let changes: { lot: number; delta: string }[];
    try {
      changes = await takeLot(tx, intent, lot);
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      await refuse(take, indice, { step: "lotto", residua: e instanceof LotShortfall ? e.residua : undefined, error: e });
      continue;
    }
    take.lotChanges.set(indice, changes);
  }
}

/** An arrival's lot that no longer holds what it received: its residual names what is left. */
class LotShortfall extends RowError {
  constructor(
    readonly residua: string,
    message: string,
  ) {
    super("lotto_insufficiente", message);
  }
}

/** One intent's lot changes (lot id, signed delta), its lot's id set on the intent. */
async function takeLot(tx: Tx, intent: StockIntent, lot: { id: number | null; codice: string }) {
  const article = { id: intent.articolo, codice: intent.codice };
  if (intent.da) {
    const { magazzino } = intent.da;
    if (intent.magazzino < magazzino) await lockLot(tx, intent.articolo, intent.magazzino, lot.codice);
    const source = await unloadLot(tx, article, magazzino, lot.codice, intent.quantita);
    intent.da.lotto = source.id;
    // The source's expiry travels with the goods; a destination lot that has its own keeps it (see loadLot).
    const expiry = source.scadenza ? formatDate(source.scadenza) : null;
    lot.id = await loadLot(tx, article, intent.magazzino, lot.codice, expiry, intent.quantita, "keep");
    return [
      { lot: source.id, delta: `-${intent.quantita}` },
      { lot: lot.id, delta: intent.quantita },
    ];
  }
  if (!intent.quantita.startsWith("-")) {
    if (lot.id !== null) throw new Error("takeStock: un carico di lotto nomina il lotto per codice");
    lot.id = await loadLot(tx, article, intent.magazzino, lot.codice, intent.scadenza ?? null, intent.quantita);
  } else if (lot.id === null) {
    lot.id = (await unloadLot(tx, article, intent.magazzino, lot.codice, intent.quantita.slice(1))).id;
  } else {
    const quantita = intent.quantita.slice(1);
    const given = await takeBackFromLot(tx, lot.id, quantita);
    if (!given.ok) {
      throw new LotShortfall(
        given.residua,
        `Il lotto '${lot.codice}' di ${intent.codice} nel magazzino ${intent.magazzino} ha ${given.residua} disponibili: richiesti ${quantita}.`,
      );
    }
  }
  return [{ lot: lot.id, delta: intent.quantita }];
}

/**
 * Lock order 4: each intent's location stock, never below zero. Intents by their lower location row; a move
 * locks its destination's row first when it comes first, then takes the goods out, then puts them in.
 */
async function takeLocations(tx: Tx, take: Take): Promise<void> {
  const places = take.intents.flatMap((intent, indice) => {
    if (take.refused.has(indice)) return [];
    const key = (magazzino: number, ubicazione: StockIntent["ubicazione"], lotId: number | null | undefined): LocationKey | null =>
      ubicazione && {
        articolo: { id: intent.articolo, codice: intent.codice },
        magazzino,
        ubicazione,
        lotto: intent.lotto === null ? null : { id: lotId!, codice: intent.lotto.codice },
      };
    const own = key(intent.magazzino, intent.ubicazione, intent.lotto?.id);
    const { from, to } = intent.da
      ? { from: key(intent.da.magazzino, intent.da.ubicazione, intent.da.lotto ?? intent.lotto?.id), to: own }
      : intent.quantita.startsWith("-")
        ? { from: own, to: null }
        : { from: null, to: own };
    const keys = [from, to].filter((k): k is LocationKey => k !== null).sort(locationLockOrder);
    return keys.length === 0 ? [] : [{ intent, indice, from, to, first: keys[0]! }];
  });
  places.sort((a, b) => locationLockOrder(a.first, b.first) || a.indice - b.indice);
  for (const { intent, indice, from, to } of places) {
    const quantita = intent.quantita.startsWith("-") ? intent.quantita.slice(1) : intent.quantita;
    try {
      if (from && to && locationLockOrder(to, from) < 0) await lockLocation(tx, to);
      if (from) await unloadLocation(tx, from, quantita);
      if (to) await loadLocation(tx, to, quantita);
      take.locationChanges.set(indice, [
        ...(from ? [{ key: from, delta: `-${quantita}` }] : []),
        ...(to ? [{ key: to, delta: quantita }] : []),
      ]);
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      // Lots come before location stock in the lock order: a row its location refuses gives its lot changes back.
      if (take.opts.partial) {
        for (const change of take.lotChanges.get(indice) ?? []) await undoLotChange(tx, change.lot, negated(change.delta));
      }
      await refuse(take, indice, { step: "ubicazione", error: e });
    }
  }
}

/**
 * writeStock's second half: the intents (whose stock takeStock moved) appended in one statement with
 * their balances, and the caller's `after` statements in the same write. Ids in the intents' order.
 */
export async function appendStock<T extends readonly Query<unknown>[] = []>(
  tx: Tx,
  ctx: LedgerContext,
  intents: StockIntent[],
  opts: AppendStockOptions<T> = {},
): Promise<Appended<T>> {
  const ledger: LedgerRow[] = intents.flatMap(({ codice: _, lotto, ubicazione, scadenza: __, da, ...row }) => {
    const own = { ...row, lotto: lotto?.id ?? null, ubicazione: ubicazione?.id ?? null };
    if (!da) return [own];
    const source = {
      ...row,
      magazzino: da.magazzino,
      quantita: `-${row.quantita}`,
      lotto: da.lotto ?? own.lotto,
      ubicazione: da.ubicazione?.id ?? null,
    };
    return [source, own];
  });
  // The stock changes are complete with the append, whose balance rows stay locked, and the caller's statements
  // after it (a hold an unload consumes among them): the reservations they leave uncovered (or cover again) are
  // recomputed last, in the same round trip (uncover.ts).
  const statements: Query<unknown>[] = [
    ledgerAppend(ctx, ledger),
    ...(opts.after ?? []),
    uncoverAfterAppend(ledger, opts.oggi ?? ctx.data),
  ];
  const [inserted, ...rest] = opts.last
    ? await rowsThenCommit<unknown[]>(tx, ...statements)
    : await rowsInOrder<unknown[]>(tx, ...statements);
  rest.pop();
  const { operazione, ids: rowIds } = appended(inserted as { id: number; operazione_id: number }[]);
  const ids: number[] = [];
  const sources: (number | null)[] = [];
  let next = 0;
  for (const intent of intents) {
    sources.push(intent.da ? rowIds[next++]! : null);
    ids.push(rowIds[next++]!);
  }
  return { operazione, ids, sources, after: rest as Rows<T> };
}

/**
 * Writes the intents in the lock order, all or nothing: takeStock (lots, location stock), then
 * appendStock (the movements and balances, then the caller's order statements).
 */
export async function writeStock<T extends readonly Query<unknown>[] = []>(
  tx: Tx,
  ctx: LedgerContext,
  intents: StockIntent[],
  opts: Omit<TakeStockOptions, "partial"> & AppendStockOptions<T> = {},
): Promise<Appended<T>> {
  await takeStock(tx, intents, { refuse: opts.refuse, countedLots: opts.countedLots });
  return appendStock(tx, ctx, intents, opts);
}

/** The opposite of a signed exact decimal string. */
function negated(quantita: string): string {
  return quantita.startsWith("-") ? quantita.slice(1) : `-${quantita}`;
}
