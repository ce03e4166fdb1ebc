import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { IMPORT_LOCK, MASTER_DATA_LOCKS } from "../../db/advisory-locks";
import type { TestDb } from "../../testing/db";
import { untilWaiting } from "../../testing/locks";
import { test } from "../../testing/test";
import { seedDemoIfEmpty } from "./demo.service";

/**
 * The demo seeding takes its own lock, then the import's, then the master-data tables' (lock order 0b).
 * While it waits for the import's lock it must hold nothing an import takes after that lock: a seeding
 * that held a table's lock there would deadlock with an import that got the import's lock first.
 */
let t: TestDb;
let dataDir: string;

test.beforeAll(async ({ db }) => {
  t = db;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-demo-order-"));
});
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test("the demo seeding waits for the import's lock holding no master-data table's lock, then seeds", async () => {
  const importer = await t.pool.connect();
  const probe = await t.pool.connect();
  let seeding: ReturnType<typeof seedDemoIfEmpty> | undefined;
  try {
    // An import in progress: it holds the import's lock and will take the tables' next.
    await importer.query("BEGIN");
    await importer.query("SELECT pg_advisory_xact_lock($1::bigint)", [IMPORT_LOCK]);
    seeding = seedDemoIfEmpty(t.prisma, { dataDir, timeZone: "Europe/Rome", log: () => {} });
    await untilWaiting(t.pool, "pg_advisory_xact_lock");

    // Every table's lock the import would take now is free.
    await probe.query("BEGIN");
    const free: Record<string, boolean> = {};
    for (const [table, key] of Object.entries(MASTER_DATA_LOCKS)) {
      free[table] = (await probe.query("SELECT pg_try_advisory_xact_lock($1::bigint) AS ok", [key])).rows[0].ok;
    }
    await probe.query("ROLLBACK");
    expect(free).toEqual(Object.fromEntries(Object.keys(MASTER_DATA_LOCKS).map((table) => [table, true])));

    await importer.query("COMMIT");
    expect((await seeding).created).toBe(true);
  } finally {
    await importer.query("ROLLBACK").catch(() => {});
    await probe.query("ROLLBACK").catch(() => {});
    importer.release();
    probe.release();
    // A failed assertion leaves the seeding running: it ends before the file's database is dropped.
    await seeding?.catch(() => {});
  }
});
