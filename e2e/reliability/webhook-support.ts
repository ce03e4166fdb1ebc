import { afterAll, afterEach, beforeAll } from "vitest";
import { getConfig } from "../../src/server/config";
import { poolOf } from "../../src/server/db/client";
import { createTestDb, type TestDb } from "../../src/server/testing/db";
import { cleanup, ensureBuild } from "./harness";
import { ARTICLES, type Arrival, type Ctx, closeReceivers } from "./receiver";
import { createKey, seedArticles, seedWarehouse } from "./seed";

/**
 * What the webhook files of the reliability suite share (webhook-delivery, webhook-crash, webhook-uncommitted,
 * webhook-private and webhook-batches .test.ts).
 */

export const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

/** The hooks of every webhook file: the build once, receivers closed after each test, services stopped at the end. */
export function webhookSuite(): void {
  beforeAll(async () => ensureBuild((m) => console.log(`[affidabilità] ${m}`)), 600_000);
  afterAll(async () => {
    await closeReceivers();
    await cleanup();
  }, 120_000);
  afterEach(async () => closeReceivers(), 30_000);
}

/** The configuration of an environment that sets nothing. */
export const DEFAULTS = getConfig({} as NodeJS.ProcessEnv);
export const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };
export const SHORT_BACKOFF = { WEBHOOK_BACKOFF_BASE_MS: "500", WEBHOOK_BACKOFF_MAX_MS: "3000" };

/** A fresh database with a warehouse, ARTICLES articles and a write key; services and receivers stopped after. */
export async function withDb(fn: (c: Ctx) => Promise<void>): Promise<void> {
  const t = await createTestDb();
  // t.drop() ends with DROP DATABASE … WITH (FORCE), which terminates the idle connections that Prisma's pg pool
  // (used here by createEndpoint and seedSession) still holds; that pool has no error listener, so the
  // "terminating connection" error would surface as an unhandled error after the tests passed.
  poolOf(t.prisma)?.on("error", () => {});
  try {
    const m1 = await seedWarehouse(t.pool, "M1");
    await seedArticles(t.pool, "WH", ARTICLES);
    const { chiave: key, id: keyId } = await createKey(t.pool, ["scrittura"]);
    await fn({ t, key, keyId, m1 });
  } finally {
    await closeReceivers();
    await cleanup();
    await t.drop();
  }
}

export interface AttemptDb {
  id: number;
  consegna_id: number;
  evento_id: number;
  iniziato_ms: number;
  durata_ms: number;
  stato_http: number | null;
  esito: string;
  risposta: string | null;
}

export async function attemptsOf(t: TestDb, endpoint: number): Promise<AttemptDb[]> {
  const { rows } = await t.pool.query(
    `SELECT t.id, t.consegna_id, c.evento_id, (extract(epoch FROM t.iniziato_il) * 1000)::float8 AS iniziato_ms, t.durata_ms,
            t.stato_http, t.esito, t.risposta
       FROM webhook_tentativi t JOIN webhook_consegne c ON c.id = t.consegna_id
      WHERE t.endpoint_id = $1 ORDER BY t.id`,
    [endpoint],
  );
  return rows as AttemptDb[];
}

export const isStrictlyIncreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** The events recorded: how many, and the highest sequence. */
export async function eventCount(t: TestDb): Promise<{ n: number; max: number }> {
  return (await t.pool.query("SELECT count(*)::int AS n, coalesce(max(id), 0)::int AS max FROM eventi")).rows[0];
}

/** The sequences of what a receiver got, in the order it got them. */
export const seqs = (as: Arrival[]) => as.map((a) => a.sequenza);
