/**
 * `npx tsx bench/connections.ts [--instances N] [--seconds S] [--clients C]`
 *
 * How many PostgreSQL connections N service instances hold under write load, with their pools on
 * PostgreSQL directly and through PgBouncer in transaction mode (docs/deployment.md "Several instances behind a
 * pooler"). One embedded PostgreSQL in a temporary directory; the instances are the reliability suite's
 * (`.next`, built when missing or stale), each with the default DB_POOL_SIZE; C clients per instance send
 * one-row movements for S seconds while pg_stat_activity is sampled every 100 ms. Prints the peak per
 * holder and the writes per second of each run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbedded, withDatabase } from "../src/server/db/embedded";
import { migrate } from "../src/server/db/migrate";
import { startPgBouncer } from "../src/server/testing/pgbouncer";
import { call, cleanup, ensureBuild, launch, type Service, stop } from "../e2e/reliability/harness";
import { articleCode, createKey, seedArticles, seedWarehouse } from "../e2e/reliability/seed";

const { values } = parseArgs({
  options: {
    instances: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    clients: { type: "string", default: "8" },
  },
});
const instances = Number(values.instances);
const seconds = Number(values.seconds);
const clients = Number(values.clients);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-connessioni-"));
fs.chmodSync(dir, 0o755);
const server = await startEmbedded({ dataDir: dir, mode: "own", log: () => {} });
const bouncer = await startPgBouncer(server.url, { poolSize: 10 });
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();

/** Peak connections to `db` by holder, sampled while `during` runs. */
async function peakWhile(db: string, during: Promise<number>): Promise<{ peak: Record<string, number>; writes: number }> {
  const peak: Record<string, number> = {};
  let done = false;
  const writes = during.finally(() => {
    done = true;
  });
  while (!done) {
    const { rows } = await admin.query<{ who: string; n: number }>(
      `SELECT CASE WHEN application_name = 'banchina-autenticazione' THEN 'ascolto' ELSE 'pool e altre' END AS who, count(*)::int AS n
         FROM pg_stat_activity WHERE datname = $1 GROUP BY ROLLUP (1)`,
      [db],
    );
    for (const r of rows) peak[r.who ?? "totale"] = Math.max(peak[r.who ?? "totale"] ?? 0, r.n);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { peak, writes: await writes };
}

async function run(mode: "diretto" | "pgbouncer"): Promise<void> {
  const db = `connessioni_${mode}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const direct = withDatabase(server.url, db);
  await migrate(direct);
  const seed = new pg.Pool({ connectionString: direct, max: 1 });
  const m1 = await seedWarehouse(seed, "M1");
  await seedArticles(seed, "CN", 50);
  const { chiave } = await createKey(seed, ["scrittura"]);
  await seed.end();
  const env: Record<string, string> = mode === "pgbouncer" ? { DATABASE_DIRECT_URL: direct } : {};
  const databaseUrl = mode === "pgbouncer" ? bouncer.url(direct) : direct;
  const services: Service[] = [];
  for (let i = 0; i < instances; i++) services.push(await launch({ databaseUrl, env }));
  const until = Date.now() + seconds * 1000;
  const load = async () => {
    let n = 0;
    await Promise.all(
      Array.from({ length: clients * instances }, async (_, c) => {
        for (let i = 0; Date.now() < until; i++) {
          const r = await call(services[c % instances]!.base, "POST", "/movimenti", {
            key: chiave,
            body: { natura: "carico", magazzino: m1, righe: [{ codice: articleCode("CN", ((c * 7 + i) % 50) + 1), quantita: 1 }] },
          });
          if (r.status !== 200) throw new Error(`POST /movimenti → ${r.status}: ${r.text.slice(0, 200)}`);
          n++;
        }
      }),
    );
    return n;
  };
  const { peak, writes } = await peakWhile(db, load());
  const servers =
    mode === "pgbouncer" ? (await bouncer.admin<{ database: string }>("SHOW SERVERS")).filter((s) => s.database === db).length : undefined;
  console.log(
    `${mode}: ${instances} istanze, ${clients * instances} client per ${seconds} s: ${Math.round(writes / seconds)} scritture/s; ` +
      `connessioni a PostgreSQL al massimo ${JSON.stringify(peak)}${servers === undefined ? "" : `, server di PgBouncer alla fine ${servers}`}`,
  );
  for (const s of services) await stop(s);
}

try {
  await ensureBuild((m) => console.log(m));
  await run("diretto");
  await run("pgbouncer");
} finally {
  await cleanup();
  await admin.end();
  await bouncer.stop();
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
