import { describe, expect } from "vitest";
import { responseHeaders, toDomainError } from "../trpc/errors";
import { DomainError } from "../lib/errors";
import type { TestDb } from "../testing/db";
import { test } from "../testing/test";
import { Prisma, poolOf } from "./client";
import { execute, holdingCommit, query, rows as queryRows, rowsInOrder, rowsThenCommit } from "./sql";
import { inTransaction } from "./transaction";
import { recordWrites } from "../testing/wire";

/**
 * A connection lost during COMMIT leaves the outcome unknown; one lost while the work runs leaves
 * nothing. The two 503s must say different things. The commit-time loss is provoked for real: a
 * deferred constraint trigger fires inside COMMIT and terminates its own backend.
 */

let t: TestDb;

test.beforeAll(async ({ db }) => {
  t = db;
  await t.pool.query(`
    CREATE TABLE prova_commit (id int PRIMARY KEY);
    CREATE FUNCTION prova_termina_me() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN NULL; END $$;
    CREATE CONSTRAINT TRIGGER prova_al_commit AFTER INSERT ON prova_commit
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION prova_termina_me();
    CREATE TABLE prova_inizio (id int PRIMARY KEY);`);
});

const rows = async () => Number((await t.pool.query("SELECT count(*) FROM prova_commit")).rows[0].count);

test("connection lost during COMMIT: 503 that says the write may have landed and to retry with the same key", async () => {
  const error = await inTransaction(t.prisma, (tx) => execute(tx, query(Prisma.sql`INSERT INTO prova_commit VALUES (1)`))).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  const d = toDomainError(error, { isQuery: false })!;
  expect(d.status).toBe(503);
  expect(d.codice).toBe("servizio_non_disponibile");
  expect(responseHeaders(d)["Retry-After"]).toMatch(/^\d+$/);
  expect(d.message).toMatch(/potrebbe essere stata registrata/);
  expect(d.message).toMatch(/stessa Idempotency-Key/);
  // The trigger fired before the commit record here, so nothing landed.
  expect(await rows()).toBe(0);
  // The pool goes on working. The dead connection can be handed out once more before pg notices
  // its socket closed (that call fails as unavailable, a 503): a few attempts, never a hang.
  let answer: unknown;
  for (let attempt = 0; attempt < 3 && answer === undefined; attempt++) {
    answer = await inTransaction(t.prisma, (tx) => queryRows(tx, query<{ n: number }>(Prisma.sql`SELECT 1 AS n`))).catch((e: unknown) => {
      expect(toDomainError(e, { isQuery: false })?.codice).toBe("servizio_non_disponibile");
      return undefined;
    });
  }
  expect(answer).toEqual([{ n: 1 }]);
});

test("connection lost while the work runs: the plain 503, nothing written, no talk of doubt", async () => {
  const error = await inTransaction(t.prisma, async (tx) => {
    await execute(tx, query(Prisma.sql`SET CONSTRAINTS prova_al_commit IMMEDIATE`));
    await execute(tx, query(Prisma.sql`INSERT INTO prova_commit VALUES (2)`));
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).not.toBeInstanceOf(DomainError);
  const d = toDomainError(error, { isQuery: false })!;
  expect(d.status).toBe(503);
  expect(d.codice).toBe("servizio_non_disponibile");
  expect(d.message).not.toMatch(/potrebbe/);
  expect(await rows()).toBe(0);
});

test("a refusal thrown by the work is passed through untouched", async () => {
  const refusal = new DomainError("troppe_righe", "Troppe righe.");
  await expect(inTransaction(t.prisma, async () => Promise.reject(refusal))).rejects.toBe(refusal);
});

const xactId = query<{ x: string }>(Prisma.sql`SELECT pg_current_xact_id()::text AS x`);

test("BEGIN goes out with the first statement, in one write: a round trip saved, the statement inside the transaction", async () => {
  const rec = recordWrites(poolOf(t.prisma)!);
  try {
    const ids = await inTransaction(t.prisma, async (tx) => [(await queryRows(tx, xactId))[0]!.x, (await queryRows(tx, xactId))[0]!.x]);
    // One transaction: an autocommitted first statement would have had an id of its own.
    expect(ids[0]).toBe(ids[1]);
    expect(rec.writes).toHaveLength(3);
    const [first, second, third] = rec.writes.map((w) => w.join(""));
    expect(first).toContain("BEGIN");
    expect(first).toContain("pg_current_xact_id");
    expect(second).not.toContain("BEGIN");
    expect(third).toContain("COMMIT");
  } finally {
    rec.stop();
  }
});

test("a unit of work that runs no statement sends nothing, and a failure after the first statement rolls it back", async () => {
  const rec = recordWrites(poolOf(t.prisma)!);
  try {
    expect(await inTransaction(t.prisma, async () => 42)).toBe(42);
    await expect(inTransaction(t.prisma, async () => Promise.reject(new Error("rifiuto prima di ogni istruzione")))).rejects.toThrow(
      "rifiuto prima di ogni istruzione",
    );
    expect(rec.writes).toEqual([]);
    await expect(
      inTransaction(t.prisma, async (tx) => {
        await execute(tx, query(Prisma.sql`INSERT INTO prova_inizio VALUES (1)`));
        throw new Error("rifiuto dopo la prima istruzione");
      }),
    ).rejects.toThrow("rifiuto dopo la prima istruzione");
    expect(rec.writes.map((w) => w.join("")).at(-1)).toContain("ROLLBACK");
  } finally {
    rec.stop();
  }
  expect(Number((await t.pool.query("SELECT count(*) FROM prova_inizio")).rows[0].count)).toBe(0);
  // The connection went back to the pool healthy and outside any transaction.
  expect(await inTransaction(t.prisma, (tx) => queryRows(tx, query<{ n: number }>(Prisma.sql`SELECT 1 AS n`)))).toEqual([{ n: 1 }]);
});

test("rowsInOrder: two statements in one write, the second started after the first finished, each its own statement", async () => {
  const rec = recordWrites(poolOf(t.prisma)!);
  try {
    const [a, b] = await rowsInOrder(
      t.prisma,
      query<{ fine: Date; x: string }>(Prisma.sql`SELECT pg_sleep(0.05), clock_timestamp() AS fine, pg_current_xact_id()::text AS x`),
      query<{ inizio: Date; x: string }>(Prisma.sql`SELECT statement_timestamp() AS inizio, pg_current_xact_id()::text AS x`),
    );
    expect(rec.writes).toHaveLength(1);
    // The second statement's snapshot is taken after the first has ended (a list's page after its sync bound).
    expect(b[0]!.inizio.getTime()).toBeGreaterThanOrEqual(a[0]!.fine.getTime());
    // Outside a transaction each is its own: a list's bound and page are never one snapshot.
    expect(a[0]!.x).not.toBe(b[0]!.x);
  } finally {
    rec.stop();
  }
  // Inside our transaction, BEGIN travels with them and both belong to it.
  const [c, d] = await inTransaction(t.prisma, (tx) => rowsInOrder(tx, xactId, xactId));
  expect(c[0]!.x).toBe(d[0]!.x);
  // A failing statement fails the call; the connection is not given back to the pool, and the pool goes on.
  await expect(rowsInOrder(t.prisma, query(Prisma.sql`SELECT 1/0`), xactId)).rejects.toThrow(/division by zero/);
  expect(await rowsInOrder(t.prisma, xactId, xactId)).toHaveLength(2);
});

test("rowsInOrder takes any number of statements: four in one write, answered in order", async () => {
  const rec = recordWrites(poolOf(t.prisma)!);
  try {
    const n = (k: number) => query<{ k: number }>(Prisma.sql`SELECT ${k}::int AS k`);
    const answers = await rowsInOrder(t.prisma, n(1), n(2), n(3), n(4));
    expect(answers.map((r) => r[0]!.k)).toEqual([1, 2, 3, 4]);
    expect(rec.writes).toHaveLength(1);
  } finally {
    rec.stop();
  }
});

describe("rowsThenCommit: the unit's last statement carries its COMMIT", () => {
  const insert = (table: string, id: number) => query<{ id: number }>(Prisma.raw(`INSERT INTO ${table} VALUES (${id}) RETURNING id`));
  const seen = async (table: string, id: number) =>
    Number((await t.pool.query(`SELECT count(*) FROM ${table} WHERE id = $1`, [id])).rows[0].count);

  test("BEGIN, the statement and COMMIT in one write: committed when its rows come back, one round trip in all", async () => {
    const rec = recordWrites(poolOf(t.prisma)!);
    let visibleInsideWork = -1;
    try {
      const inserted = await inTransaction(t.prisma, async (tx) => {
        const r = await rowsThenCommit(tx, insert("prova_inizio", 10));
        // Another connection sees it before the work has even returned: COMMIT went with the statement.
        visibleInsideWork = await seen("prova_inizio", 10);
        return r;
      });
      expect(inserted).toEqual([[{ id: 10 }]]);
      expect(rec.writes).toHaveLength(1);
      const [only] = rec.writes.map((w) => w.join(""));
      expect(only).toMatch(/BEGIN[\s\S]*INSERT INTO prova_inizio[\s\S]*COMMIT/);
    } finally {
      rec.stop();
    }
    expect(visibleInsideWork).toBe(1);
  });

  test("a statement after the last one is refused, and never runs outside the transaction", async () => {
    await expect(
      inTransaction(t.prisma, async (tx) => {
        await rowsThenCommit(tx, insert("prova_inizio", 11));
        await execute(tx, insert("prova_inizio", 12));
      }),
    ).rejects.toThrow(/dopo il COMMIT/);
    expect(await seen("prova_inizio", 11)).toBe(1);
    expect(await seen("prova_inizio", 12)).toBe(0);
  });

  test("a failing last statement: its own error, nothing written, no ROLLBACK sent, the connection healthy", async () => {
    await t.pool.query("INSERT INTO prova_inizio VALUES (13)");
    const rec = recordWrites(poolOf(t.prisma)!);
    try {
      await expect(
        inTransaction(t.prisma, async (tx) => {
          await execute(tx, insert("prova_inizio", 14));
          await rowsThenCommit(tx, insert("prova_inizio", 13));
        }),
      ).rejects.toThrow(/duplicate key/);
      // The COMMIT that followed the failed statement ended the transaction (PostgreSQL rolls it back).
      expect(rec.writes.map((w) => w.join("")).join("|")).not.toContain("ROLLBACK");
    } finally {
      rec.stop();
    }
    expect(await seen("prova_inizio", 14)).toBe(0);
    const stuck = await t.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'");
    expect(stuck.rows[0].n).toBe(0);
    expect(await inTransaction(t.prisma, (tx) => rowsThenCommit(tx, xactId))).toHaveLength(1);
  });

  test("holdingCommit: the owner still has statements to run, so the work's last one does not commit", async () => {
    const ids = await inTransaction(t.prisma, async (tx) => {
      const inner = await holdingCommit(tx, async () => {
        await rowsThenCommit(tx, insert("prova_inizio", 15));
        return (await queryRows(tx, xactId))[0]!.x;
      });
      // Not committed yet: the owner's own last statement, in the same transaction, will carry the COMMIT.
      expect(await seen("prova_inizio", 15)).toBe(0);
      const outer = (await rowsThenCommit(tx, xactId))[0][0]!.x;
      return [inner, outer];
    });
    expect(ids[0]).toBe(ids[1]);
    expect(await seen("prova_inizio", 15)).toBe(1);
  });

  test("the connection lost while the last statement and its COMMIT are out: the outcome is in doubt", async () => {
    const error = await inTransaction(t.prisma, (tx) => rowsThenCommit(tx, insert("prova_commit", 20))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    const d = toDomainError(error, { isQuery: false })!;
    expect(d.status).toBe(503);
    expect(d.message).toMatch(/potrebbe essere stata registrata/);
    expect(await rows()).toBe(0);
  });
});
