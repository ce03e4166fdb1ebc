import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbedded, withDatabase, type EmbeddedServer } from "../db/embedded";
import { migrate } from "../db/migrate";

/**
 * Real PostgreSQL for the run: embedded ones in temporary directories, or the server named by TEST_DATABASE_URL. On
 * each, a template database is migrated once; each test file clones it.
 *
 * Embedded, there is one server per worker of vitest.config.mts's `codice` group (two files at a time): a file shares
 * its server with no file running at the same time. The lists' sync bound (`pg_snapshot_xmin`) sees every open
 * transaction of the server, in any database: a file holding one open on purpose (a lock-order test, an event held
 * back) would otherwise hold back the lists of the file beside it. TEST_DATABASE_URL is one server: the config then
 * runs one file at a time.
 */
export const TEMPLATE_DB = "banchina_modello";
const EMBEDDED_SERVERS = 2;

const servers: EmbeddedServer[] = [];
const dirs: string[] = [];

async function startOne(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-test-"));
  dirs.push(dir);
  fs.chmodSync(dir, 0o755);
  const server = await startEmbedded({
    dataDir: dir,
    mode: "own",
    log: () => {},
    // Durability is not under test here (the crash tests run their own server): trade it for speed.
    settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
  });
  servers.push(server);
  return server.url;
}

async function migrateTemplate(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await migrate(withDatabase(adminUrl, TEMPLATE_DB));
}

export default async function setup(project: TestProject) {
  const given = process.env.TEST_DATABASE_URL;
  const adminUrls = given ? [given] : await Promise.all(Array.from({ length: EMBEDDED_SERVERS }, startOne));
  await Promise.all(adminUrls.map(migrateTemplate));
  project.provide("adminUrls", adminUrls);
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    /** One server per worker (VITEST_POOL_ID 1, 2, …), or the one of TEST_DATABASE_URL for all. */
    adminUrls: string[];
  }
}
