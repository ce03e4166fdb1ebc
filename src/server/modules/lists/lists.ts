import { SYNC_TABLES } from "../../db/advisory-locks";
import type { Db } from "../../db/client";
import { first, type Query, rowsInOrder } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import * as q from "./lists.queries";

/**
 * The common list mechanism (docs/api.md section 4): `limite`, `dopo`, `da`, `a`, pages ordered by id,
 * `altri` and `cursore`, and completeness under concurrent writers. The parameters and the page's
 * shape, shared with the UI, are in lists.schemas.ts.
 */

/** Refuses a period whose start is after its end; every list with `da` and `a` calls it first. */
export function assertPeriod(da: string | undefined, a: string | undefined): void {
  if (da && a && da > a) {
    throw new DomainError("filtro_non_valido", `Il parametro 'da' (${da}) è successivo ad 'a' (${a}).`, { campo: "da" });
  }
}

/** The synced tables, each named by its sync gate (advisory-locks.ts SYNC_TABLES). */
export type SyncGate = keyof typeof SYNC_TABLES;

/**
 * The highest id a page may expose: every id at or below it is committed or never will be.
 * Must run in its own statement before the page query, outside any REPEATABLE READ transaction,
 * so that the page's snapshot is taken after the bound was read.
 */
export async function syncBound(db: Db, table: SyncGate): Promise<number> {
  const { tag, seq } = SYNC_TABLES[table];
  const row = await first(db, q.syncBound(tag, seq));
  return Number(row?.b ?? 0);
}

/** The cursor a client sent to a list: its parameter (`dopo`, `modificati_dopo`) and value (0 when omitted). */
export interface SentCursor {
  campo: "dopo" | "modificati_dopo";
  valore: number;
}

/**
 * The sync bound and then a page that does not depend on it, sent together (sql.ts rowsInOrder): the
 * page's statement still starts after the bound's has finished, so its snapshot is taken after the
 * bound was read, as syncBound requires, and a page costs one round trip instead of two.
 *
 * The bound's statement also reads the gate's sequence, the highest value ever issued: a cursor above it
 * cannot come from this service (a corrupted stored cursor, another database) and is refused with
 * `cursore_non_valido` rather than answered with empty pages that would skip whatever comes later
 * (docs/api.md section 9). `filtersFirst` runs first on the rows, for a list whose filter is checked by the
 * page's own statement: a wrong filter is reported before a wrong cursor (docs/api.md section 4).
 */
export async function boundAndRows<Row>(
  db: Db,
  table: SyncGate,
  page: Query<Row>,
  sent: SentCursor,
  filtersFirst?: (rows: Row[]) => void,
): Promise<[number, Row[]]> {
  const { tag, seq } = SYNC_TABLES[table];
  const [bound, window] = await rowsInOrder(db, q.syncBound(tag, seq), page);
  filtersFirst?.(window);
  assertIssued(sent, Number(bound[0]?.s ?? 0));
  return [Number(bound[0]?.b ?? 0), window];
}

function assertIssued(sent: SentCursor, issued: number): void {
  if (sent.valore <= issued) return;
  const what = sent.campo === "modificati_dopo" ? "versione" : "cursore";
  throw new DomainError(
    "cursore_non_valido",
    `Il parametro '${sent.campo}' (${sent.valore}) supera ogni ${what} emesso dal servizio (${issued}): il cursore salvato è ` +
      "corrotto o viene da un altro database. Ripartire dal cursore di GET /cursori (da adesso) oppure da 0 (dall'inizio).",
    { campo: sent.campo },
  );
}

/**
 * A screen's newest-first page: `read(below, take)` answers up to `take` rows with id < `below`, newest
 * first. Never above the sync bound, as the ascending list: a page shows no row the list would not yet
 * show, and paging down from it misses none (every id below the bound has committed or never will).
 * `prima` of the answer opens the next, older page; null on the last.
 */
export async function newestPage<T extends { id: number }>(
  bound: number,
  prima: number | undefined,
  limite: number,
  read: (below: number, take: number) => Promise<T[]>,
): Promise<{ rows: T[]; prima: number | null }> {
  const window = await read(Math.min(prima ?? Number.POSITIVE_INFINITY, bound + 1), limite + 1);
  const rows = window.slice(0, limite);
  return { rows, prima: window.length > limite ? rows.at(-1)!.id : null };
}

/**
 * Cuts a fetched window (ids > dopo, ascending, at most limite + 1 rows) to the sync bound.
 * Rows above the bound are not shown yet; `altri` stays true so the client comes back for them.
 */
export function cutPage<T extends { id: number }>(rows: T[], limite: number, bound: number, dopo: number) {
  const visible = rows.filter((r) => r.id <= bound);
  const page = visible.slice(0, limite);
  const altri = rows.length > page.length;
  return { rows: page, altri, cursore: page.at(-1)?.id ?? dopo };
}
