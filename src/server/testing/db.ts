import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { closePrisma, createPrisma, poolOf, setDb, type PrismaClient } from "../db/client";
import { withDatabase } from "../db/embedded";

export interface TestDb {
  url: string;
  name: string;
  prisma: PrismaClient;
  /** A plain pg pool on the same database, for assertions and for holding transactions open. */
  pool: pg.Pool;
  drop(): Promise<void>;
}

/** The PostgreSQL server of this worker (global-setup.ts): no file running beside this one uses it. */
export function serverUrl(): string {
  const urls = inject("adminUrls");
  return urls[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % urls.length]!;
}

/** A fresh migrated database for one test file, installed as the process-wide client. */
export async function createTestDb(): Promise<TestDb> {
  const adminUrl = serverUrl();
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE banchina_modello`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const prisma = createPrisma(url, 20);
  const pool = new pg.Pool({ connectionString: url, max: 30 });
  setDb(prisma);
  return {
    url,
    name,
    prisma,
    pool,
    async drop() {
      setDb(undefined);
      // The same for the pool the client and the services share (closePrisma ends it the same way).
      poolOf(prisma)?.on("error", () => {});
      await closePrisma(prisma);
      // pg-pool's end() resolves before its connections have closed; the DROP … WITH (FORCE) below
      // can terminate them first, and an idle client's "terminating connection" error would then
      // reach the pool with no listener: an unhandled error that fails the run after every test passed.
      pool.on("error", () => {});
      await pool.end();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
