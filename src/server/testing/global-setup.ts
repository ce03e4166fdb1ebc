import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbedded, withDatabase, type EmbeddedServer } from "../db/embedded";
import { migrate } from "../db/migrate";

/**
 * One real PostgreSQL for the whole run: the embedded one in a temporary directory, or the server
 * named by TEST_DATABASE_URL. A template database is migrated once; each test file clones it.
 */
export const TEMPLATE_DB = "banchina_modello";

let server: EmbeddedServer | undefined;
let dir: string | undefined;

export default async function setup(project: TestProject) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-test-"));
    fs.chmodSync(dir, 0o755);
    server = await startEmbedded({
      dataDir: dir,
      mode: "own",
      log: () => {},
      // Durability is not under test here (the crash tests run their own server): trade it for speed.
      settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
    });
    adminUrl = server.url;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  await migrate(withDatabase(adminUrl, TEMPLATE_DB));
  project.provide("adminUrl", adminUrl);
  return async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    adminUrl: string;
  }
}
