import type pg from "pg";
import { describe, expect } from "vitest";
import type { DomainError } from "../../lib/errors";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * The cases every newest-first read of the screens shares (movements.newest, sales.newest): the cursor
 * `prima` refused as the lists' parameters are, the manager's role, the empty last page below every row,
 * and the sync bound of the list it mirrors. A test file calls `newestCases` once, after its own
 * `test.beforeAll`; the cases read the file's database and key through the `test` fixtures.
 */

type Row = { id: number };
type NewestPage<K extends string> = { prima: number | null } & { [P in K]: Row[] };

/** A refusal's case: what it is, the input, and the refusal as `codice [campo]: message`. */
export type RefusalCase = [what: string, input: Record<string, unknown>, refusal: string];

export interface NewestList<K extends string> {
  /** The router: its `newest` is the screen's read, its `list` the sync list. */
  router: string;
  /** What one row is, in the tests' names: "movement", "document". */
  noun: string;
  /** The page's array of rows, in `newest` as in the list: "movimenti", "documenti". */
  rows: K;
  /** The list over REST, which `newest` must agree with: "/movimenti". */
  path: string;
  /** `newest` as the file's manager, the input passed as it is (refusals need inputs its type forbids). */
  newest(input: unknown): Promise<NewestPage<K>>;
  /** The router's procedures as an operator, whom both refuse. */
  asOperator(): { newest(input: object): Promise<unknown>; list(input: object): Promise<unknown> };
  /**
   * src/server/trpc/errors.ts's, handed in by the test file: this file is no test to the layer check
   * (scripts/check-layers.ts), so it may not import src/server/trpc itself.
   */
  toDomainError(error: unknown, opts: { isQuery: boolean }): DomainError | undefined;
  /** Refusals of the list's own filters, besides the cursor's and the shared ones. */
  refusals?: RefusalCase[];
  /** The sync bound's two writes: one held uncommitted on `c`, then one committed above it. */
  syncBound: {
    /** Inserts a row on `c` (inside its open transaction) and returns its id. */
    uncommitted(c: pg.PoolClient): Promise<number>;
    /** What that row shows once committed, in `newest`. */
    shows?: Record<string, unknown>;
    /** Writes a row the usual way (committed) and returns its id. */
    committed(): Promise<number>;
  };
}

const BAD_CURSORS: RefusalCase[] = [
  ["not a number", { prima: "ultimo" }, "filtro_non_valido [prima]: Parametro 'prima': deve essere un numero intero."],
  ["zero", { prima: "0" }, "filtro_non_valido [prima]: Parametro 'prima': deve essere almeno 1."],
  ["negative", { prima: "-5" }, "filtro_non_valido [prima]: Parametro 'prima': deve essere un numero intero."],
  ["above the ids", { prima: "2147483648" }, "filtro_non_valido [prima]: Parametro 'prima': deve essere al massimo 2147483647."],
  ["too long", { prima: "99999999999" }, "filtro_non_valido [prima]: Parametro 'prima': deve essere un numero intero."],
];

const SHARED_REFUSALS: RefusalCase[] = [
  [
    "a number instead of the cursor's text",
    { prima: 12 },
    "filtro_non_valido [prima]: Parametro 'prima': Input non valido: atteso string, ricevuto numero.",
  ],
  [
    "the list's `dopo`",
    { dopo: "10" },
    "filtro_non_valido [dopo]: Parametro sconosciuto 'dopo': i parametri ammessi sono elencati nella documentazione.",
  ],
  [
    "a period backwards",
    { da: "2026-02-01", a: "2026-01-01" },
    "filtro_non_valido [da]: Il parametro 'da' (2026-02-01) è successivo ad 'a' (2026-01-01).",
  ],
  ["a page too long", { limite: "101" }, "filtro_non_valido [limite]: Parametro 'limite': deve essere al massimo 100."],
];

export function newestCases<K extends string>(list: NewestList<K>): void {
  /** A call's outcome as one line: "accettata", or the refusal the contract's error body would carry. */
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => "accettata",
      (e) => {
        const d = list.toDomainError(e, { isQuery: true });
        return `${d?.codice} [${d?.campo ?? ""}]: ${d?.message}`;
      },
    );

  describe(`${list.router}.newest`, () => {
    test(`a cursor below every ${list.noun} answers an empty last page`, async ({ key }) => {
      const oldest = (await rest("GET", `${list.path}?limite=1`, { key })).body[list.rows][0].id as number;
      const empty = { [list.rows]: [], prima: null };
      expect(await list.newest({ prima: String(oldest) })).toEqual(empty);
      expect(await list.newest({ prima: "1" })).toEqual(empty);
    });
  });

  describe("refusals", () => {
    test.each(BAD_CURSORS)("a bad cursor (%s) is refused, naming it", async (_, input, message) => {
      expect(await refusal(list.newest(input))).toBe(message);
    });

    test.each([...SHARED_REFUSALS, ...(list.refusals ?? [])])("%s: refused in Italian", async (_, input, message) => {
      expect(await refusal(list.newest(input))).toBe(message);
    });

    test(`${list.router}.newest is a manager's: an operator is refused, as on ${list.router}.list`, async () => {
      const asOperator = list.asOperator();
      const refused = await refusal(asOperator.newest({}));
      expect(refused).toMatch(/^permesso_negato/);
      expect(await refusal(asOperator.list({}))).toBe(refused);
    });
  });

  test(`a page shows no ${list.noun} above a lower id still uncommitted, and misses none once it commits`, async ({ db, key }) => {
    const c = await db.pool.connect();
    try {
      await c.query("BEGIN");
      const low = await list.syncBound.uncommitted(c);
      const high = await list.syncBound.committed();
      expect(high).toBeGreaterThan(low);

      // The list over REST does not show `high` yet (`low` may still commit below it): neither does the screen.
      const during = (await list.newest({ limite: "5" }))[list.rows];
      expect(during[0]!.id).toBeLessThan(low);
      const listedNow = (await rest("GET", `${list.path}?dopo=${during[0]!.id - 1}`, { key })).body;
      expect(listedNow).toMatchObject({ [list.rows]: [{ id: during[0]!.id }], altri: true });

      await c.query("COMMIT");
      const after = (await list.newest({ limite: "5" }))[list.rows];
      expect(after.slice(0, 3).map((r) => r.id)).toEqual([high, low, during[0]!.id]);
      if (list.syncBound.shows) expect(after[1]).toMatchObject(list.syncBound.shows);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
}

/** The list over REST (`path`, its rows under `rows`) with these filters, every page: the sync order, oldest first. */
export async function listAll<R>(path: string, rows: string, key: string, filters: Record<string, string> = {}): Promise<R[]> {
  const all: R[] = [];
  let dopo = 0;
  for (;;) {
    const query = new URLSearchParams({ ...filters, limite: "100", dopo: String(dopo) });
    const r = await rest("GET", `${path}?${query}`, { key });
    expect(r.status).toBe(200);
    all.push(...(r.body[rows] as R[]));
    if (!r.body.altri) return all;
    dopo = r.body.cursore;
  }
}

/**
 * A newest-first read (`read`, its rows under `rows`) with these filters, page after page down to the
 * oldest, each page checked on the way: newest first, below the cursor, full but for the last, the next
 * cursor its last id.
 */
export async function newestAll<K extends string, R extends Row, F extends object>(
  read: (input: F & { limite: string; prima?: string }) => Promise<{ prima: number | null } & { [P in K]: R[] }>,
  rows: K,
  filters: F,
  limite: number,
): Promise<R[]> {
  const all: R[] = [];
  let prima: number | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await read({ ...filters, limite: String(limite), ...(prima === undefined ? {} : { prima: String(prima) }) });
    const ids = page[rows].map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    if (prima !== undefined) expect(ids.every((id) => id < prima!)).toBe(true);
    all.push(...page[rows]);
    if (page.prima === null) {
      expect(page[rows].length).toBeLessThanOrEqual(limite);
      return all;
    }
    expect(page[rows]).toHaveLength(limite);
    expect(page.prima).toBe(ids.at(-1));
    prima = page.prima;
  }
  throw new Error(`${rows}: più di 100 pagine, il cursore non scende`);
}
