import type { Tx } from "../../db/client";
import { rowsInOrder, rowsThenCommit, type Query } from "../../db/sql";
import { RowError } from "../../lib/errors";
import { appended, ledgerAppend, lotLockOrder, takeBackFromLot, type LedgerContext, type LedgerRow } from "./ledger.service";
import { loadLocation, locationLockOrder, unloadLocation, type LocationKey } from "./locations.service";

/**
 * The stock writer: lots (lock order 3), location stock (4), then the ledger append with the balances (5)
 * in one statement, and the statements the caller holds at level 6 (its orders) in the same write. A
 * writer takes the gates (1, `lockWarehouses` / `resolveLocations`) and its order rows (2) before calling
 * it; nothing else of the ledger's row locks is taken outside this module (stock-locks.test.ts).
 */

/** One change of stock: an existing lot and a resolved location, so the writer only moves them. */
export interface StockIntent extends Omit<LedgerRow, "lotto" | "ubicazione"> {
  /** The article's code names it in a refusal. */
  codice: string;
  lotto: { id: number; codice: string } | null;
  /** Null outside a warehouse that manages locations. */
  ubicazione: { id: number; codice: string } | null;
}

/** Why an intent was refused at its lot or its location: the caller turns it into its own refusal. */
export type StockShortfall = { step: "lotto"; residua: string; error: RowError } | { step: "ubicazione"; error: RowError };

export interface WriteStockOptions<T extends readonly Query<unknown>[]> {
  /** The caller's own refusal of an intent the stock cannot serve (default: the ledger's RowError). */
  refuse?: (intent: StockIntent, why: StockShortfall) => Error | Promise<Error>;
  /** Statements of lock order 6 (the orders), sent in the append's write, after it. */
  after?: T;
  /** The write ends the unit of work: its COMMIT goes out with it (sql.ts rowsThenCommit). */
  last?: boolean;
}

type Rows<T extends readonly Query<unknown>[]> = { [K in keyof T]: T[K] extends Query<infer R> ? R[] : never };

/**
 * Writes the intents in the lock order: every lot in `lotLockOrder`, every location row in
 * `locationLockOrder`, then one append. A refusal throws before the append: the caller's transaction
 * rolls back whatever moved. The movements' ids come back in the intents' order.
 */
export async function writeStock<T extends readonly Query<unknown>[] = []>(
  tx: Tx,
  ctx: LedgerContext,
  intents: StockIntent[],
  opts: WriteStockOptions<T> = {},
): Promise<{ operazione: number; ids: number[]; after: Rows<T> }> {
  const refuse = opts.refuse ?? ((_: StockIntent, why: StockShortfall) => why.error);
  const indexed = intents.map((intent, indice) => ({ intent, indice, article: { id: intent.articolo }, lotto: intent.lotto?.codice }));
  for (const { intent } of indexed.filter((i) => i.intent.lotto !== null).sort(lotLockOrder)) {
    const lot = intent.lotto!;
    if (!intent.quantita.startsWith("-")) throw new Error("writeStock: un carico di lotto passa ancora da loadLot");
    const given = await takeBackFromLot(tx, lot.id, intent.quantita.slice(1));
    if (!given.ok) {
      const error = new RowError(
        "lotto_insufficiente",
        `Il lotto '${lot.codice}' di ${intent.codice} nel magazzino ${intent.magazzino} ha ${given.residua} disponibili: richiesti ${intent.quantita.slice(1)}.`,
      );
      throw await refuse(intent, { step: "lotto", residua: given.residua, error });
    }
  }
  const places = intents.flatMap((intent, indice) => {
    if (intent.ubicazione === null) return [];
    const key: LocationKey = {
      articolo: { id: intent.articolo, codice: intent.codice },
      magazzino: intent.magazzino,
      ubicazione: intent.ubicazione,
      lotto: intent.lotto,
    };
    return [{ intent, indice, key }];
  });
  places.sort((a, b) => locationLockOrder(a.key, b.key) || a.indice - b.indice);
  for (const { intent, key } of places) {
    try {
      if (intent.quantita.startsWith("-")) await unloadLocation(tx, key, intent.quantita.slice(1));
      else await loadLocation(tx, key, intent.quantita);
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      throw await refuse(intent, { step: "ubicazione", error: e });
    }
  }
  const ledger: LedgerRow[] = intents.map(({ codice: _, lotto, ubicazione, ...row }) => ({
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
