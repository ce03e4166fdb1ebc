import { expect } from "vitest";
import { toDomainError } from "../http/errors";
import { DomainError } from "../lib/errors";
import type { TestDb } from "../testing/db";
import { test } from "../testing/test";
import { Prisma } from "./client";
import { execute, query, rows as queryRows } from "./sql";
import { inTransaction } from "./transaction";

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
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION prova_termina_me();`);
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
  expect(d.headers["Retry-After"]).toMatch(/^\d+$/);
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
