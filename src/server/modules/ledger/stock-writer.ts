import type { Tx } from "../../db/client";
import { rowsInOrder, rowsThenCommit, type Query } from "../../db/sql";
import { RowError } from "../../lib/errors";
import { setCountedLots } from "./count-stock";
import {
  appended,
  ledgerAppend,
  loadLot,
  lotLockOrder,
  takeBackFromLot,
  unloadLot,
  type LedgerContext,
  type LedgerRow,
} from "./ledger.service";
import { loadLocation, locationLockOrder, type LocationKey, undoLotChange, unloadLocation } from "./location-balances.service";

/**
 * The stock writer: lots (lock order 3), location stock (4), then the ledger append with the balances (5)
 * in one statement, and the statements the caller holds at level 6 (its orders) in the same write. A
 * writer takes the gates (1, `lockWarehouses` / `resolveLocations`) and its order rows (2) before calling
 * it; no code outside this module locks or writes the lots, location stock or balances (stock-locks.test.ts).
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
}

export interface AppendStockOptions<T extends readonly Query<unknown>[]> {
  /** Statements of lock order 6 (the orders), sent in the append's write, after it. */
  after?: T;
  /** The write ends the unit of work: its COMMIT goes out with it (sql.ts rowsThenCommit). */
  last?: boolean;
}

type Rows<T extends readonly Query<unknown>[]> = { [K in keyof T]: T[K] extends Query<infer R> ? R[] : never };

/**
 * writeStock's first half, for a writer that has its own statements between the stock and the append (a
 * sales document's number): every lot in `lotLockOrder`, then every location row in `locationLockOrder`.
 * Without `partial`, the first refusal is thrown and the caller's transaction rolls back what moved.
 */
export async function takeStock(tx: Tx, intents: StockIntent[], opts: TakeStockOptions = {}): Promise<Map<number, RowError>> {
  const refused = new Map<number, RowError>();
  const refuse = async (indice: number, why: StockShortfall) => {
    const error = opts.refuse ? await opts.refuse(intents[indice]!, why) : why.error;
    if (!opts.partial) throw error;
    if (!(error instanceof RowError)) throw new Error("takeStock: un rifiuto parziale è un RowError");
    refused.set(indice, error);
  };
  if (opts.countedLots) {
    if (opts.countedLots.size > 0) await setCountedLots(tx, [...opts.countedLots.keys()], [...opts.countedLots.values()]);
  }
  const lotted = opts.countedLots
    ? []
    : intents.flatMap((intent, indice) =>
        intent.lotto === null ? [] : [{ intent, lot: intent.lotto, indice, article: { id: intent.articolo }, lotto: intent.lotto.codice }],
      );
  for (const { intent, lot, indice } of lotted.sort(lotLockOrder)) {
    if (!intent.quantita.startsWith("-")) {
      if (lot.id !== null) throw new Error("takeStock: un carico di lotto nomina il lotto per codice");
      try {
        const article = { id: intent.articolo, codice: intent.codice };
        lot.id = await loadLot(tx, article, intent.magazzino, lot.codice, intent.scadenza ?? null, intent.quantita);
      } catch (e) {
        if (!(e instanceof RowError)) throw e;
        await refuse(indice, { step: "lotto", error: e });
      }
      continue;
    }
    const quantita = intent.quantita.slice(1);
    if (lot.id === null) {
      try {
        lot.id = (await unloadLot(tx, { id: intent.articolo, codice: intent.codice }, intent.magazzino, lot.codice, quantita)).id;
      } catch (e) {
        if (!(e instanceof RowError)) throw e;
        await refuse(indice, { step: "lotto", error: e });
      }
      continue;
    }
    const given = await takeBackFromLot(tx, lot.id, quantita);
    if (!given.ok) {
      const error = new RowError(
        "lotto_insufficiente",
        `Il lotto '${lot.codice}' di ${intent.codice} nel magazzino ${intent.magazzino} ha ${given.residua} disponibili: richiesti ${quantita}.`,
      );
      await refuse(indice, { step: "lotto", residua: given.residua, error });
    }
  }
  const places = intents.flatMap((intent, indice) => {
    if (intent.ubicazione === null || refused.has(indice)) return [];
    const lotto = intent.lotto === null ? null : { id: intent.lotto.id!, codice: intent.lotto.codice };
    const key: LocationKey = {
      articolo: { id: intent.articolo, codice: intent.codice },
      magazzino: intent.magazzino,
      ubicazione: intent.ubicazione,
      lotto,
    };
    return [{ intent, indice, key }];
  });
  places.sort((a, b) => locationLockOrder(a.key, b.key) || a.indice - b.indice);
  for (const { intent, indice, key } of places) {
    try {
      if (intent.quantita.startsWith("-")) await unloadLocation(tx, key, intent.quantita.slice(1));
      else await loadLocation(tx, key, intent.quantita);
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      // Lots come before location stock in the lock order: a row its location refuses gives its lot change back.
      if (opts.partial && key.lotto !== null && !opts.countedLots) await undoLotChange(tx, key.lotto.id, negated(intent.quantita));
      await refuse(indice, { step: "ubicazione", error: e });
    }
  }
  return refused;
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
): Promise<{ operazione: number; ids: number[]; after: Rows<T> }> {
  const ledger: LedgerRow[] = intents.map(({ codice: _, lotto, ubicazione, scadenza: __, ...row }) => ({
    ...row,
    lotto: lotto?.id ?? null,
    ubicazione: ubicazione?.id ?? null,
  }));
  const statements: Query<unknown>[] = [ledgerAppend(ctx, ledger), ...(opts.after ?? [])];
  const [inserted, ...rest] = opts.last
    ? await rowsThenCommit<unknown[]>(tx, ...statements)
    : await rowsInOrder<unknown[]>(tx, ...statements);
  return { ...appended(inserted as { id: number; operazione_id: number }[]), after: rest as Rows<T> };
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
): Promise<{ operazione: number; ids: number[]; after: Rows<T> }> {
  await takeStock(tx, intents, { refuse: opts.refuse, countedLots: opts.countedLots });
  return appendStock(tx, ctx, intents, opts);
}

/** The opposite of a signed exact decimal string. */
function negated(quantita: string): string {
  return quantita.startsWith("-") ? quantita.slice(1) : `-${quantita}`;
}
