/**
 * `npm run bench [-- --scale F] [--duration S] [--only id,id] [--rebuild | --no-build] [--cpu-prof] [--env K=V]
 *                 [--pg setting=value] [--pg-stats] [--keep] [--pooler] [--webhook-rate N] [--webhook-latency MS]
 *                 [--webhook-writes pavimento|api] [--senza-mensili]`
 *
 * Builds the production server into .next-bench when needed, starts an embedded PostgreSQL of its own
 * in a temporary directory, generates the data set (scale 1: 100,000 articles, 1,000,000 movements, …),
 * starts the server as `npm start` would (NODE_ENV=production, DEMO_DATA=false), and runs every
 * scenario twice: through the API over HTTP, and as the floor, the same database work in plain SQL.
 * Prints one table and the targets, writes bench/results/bench-<time>.{json,md} and latest.{json,md},
 * and stops everything it started, on failure and on Ctrl-C too.
 *
 * Diagnosis: --cpu-prof leaves the server's V8 profile under bench/results/prof-… (summary:
 * `npx tsx bench/profile.ts FILE`); --env sets a server variable (e.g. DB_POOL_SIZE=20); --pg sets a
 * PostgreSQL setting (e.g. log_min_duration_statement=0); --pg-stats prints, after each measured side,
 * the statements PostgreSQL spent most time in (pg_stat_statements: calls, mean and total time);
 * --keep leaves the temporary directory with PostgreSQL's and the server's logs (BENCH_SERVER_FLAGS in the
 * environment adds V8 flags to the server's, e.g. --trace-gc, whose lines go to that log); --pooler puts PgBouncer in
 * transaction mode (Debian's package) between the server's pool and PostgreSQL, as docs/deployment.md "Several instances
 * behind a pooler" deploys it (DATABASE_URL the pooler, DATABASE_DIRECT_URL PostgreSQL). --webhook-rate and
 * --webhook-latency set webhook-portata's write rate (default 500/s) and its receiver's answer time
 * (default 100 ms); --webhook-writes where its writes go (default pavimento: PostgreSQL directly).
 *
 * Scenario ids for --only: scan-movimenti, scan-disponibilita, scan-giacenze-ubicazioni, cerca-barcode, post-movimenti,
 * post-movimenti-ubicazioni, post-arrivi, allinea, scrittori-lettore, upsert-articoli, eventi-webhook, webhook-portata, anello-aperto,
 * post-prenotazioni, post-movimenti-prenotate (after post-movimenti, which runs with no reservation in the database),
 * disponibilita-articolo (one article's availability at half the ceiling's load, articles held by then),
 * ricevi-collo, scan-disponibilita-passato, testa-movimenti, testa-eventi, verify (the growth mode's reads: compare
 * two runs' files with `npx tsx bench/growth.ts A.json B.json`); --senza-mensili drops the ledger's monthly trigger and its index after the generation (the ledger as before migration 20261128330000: what they cost the
 * write; the final verify then reports the monthly rows it left behind); and, only when
 * named, tetto-node: the write scenario, the open loop, the movement, location-stock and availability scans and the reservation against
 * plain node:http + pg (about the ceiling of any Node service here, bench/bare-server.ts).
 * Every run also appends one line to bench/results/history.jsonl (kept in git), so a regression shows.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { closePrisma, createPrisma, type PrismaClient } from "../src/server/db/client";
import { startEmbedded, type EmbeddedServer } from "../src/server/db/embedded";
import { startPgBouncer } from "../src/server/testing/pgbouncer";
import { migrate } from "../src/server/db/migrate";
import { createApiKey } from "../src/server/modules/auth/api-keys.service";
import { verifyLedger } from "../src/server/modules/ledger/verify.service";
import { countsFor, generate } from "./data";
import { ApiClient } from "./http";
import { evaluateTargets, textCpuTable, textTable, textTargets, writeResults, type Report } from "./report";
import { alignStock } from "./scenarios/align-stock";
import { bareNode } from "./scenarios/bare-node";
import { eventsAndWebhooks } from "./scenarios/events-webhooks";
import { eventsFromZero, movementsFromZero, scanAvailabilityAsOf } from "./scenarios/growth";
import { verifyScenario } from "./scenarios/verify-ledger";
import { availabilityOfOne, openLoop } from "./scenarios/open-loop";
import { webhookThroughput } from "./scenarios/webhook-throughput";
import type { Ctx, ScenarioResult } from "./scenarios/harness";
import { registerArrivals } from "./scenarios/register-arrivals";
import { postReservations, writeMovementsWithHolds } from "./scenarios/reservations";
import { receivePallets } from "./scenarios/receive-pallet";
import { scanAvailability } from "./scenarios/scan-availability";
import { scanLocationStock } from "./scenarios/scan-location-stock";
import { scanMovements } from "./scenarios/scan-movements";
import { searchBarcode } from "./scenarios/search-barcode";
import { writeMovements } from "./scenarios/write-movements";
import { writeMovementsInLocations } from "./scenarios/write-movements-locations";
import { upsertArticles } from "./scenarios/upsert-articles";
import { writersAndReader } from "./scenarios/writers-and-reader";
import { buildServer, CpuMeter, cpuMs, readMemoryMb, printHelp, runMain, startServer, stopOnExit, type RunningServer } from "./server";
import { elapsed, fmtInt, progress, seconds } from "./util";

const ROOT = path.resolve(import.meta.dirname, "..");
const RESULTS = path.join(ROOT, "bench", "results");
const TIME_ZONE = "Europe/Rome";

const ALL = [
  "scan-movimenti",
  "scan-disponibilita",
  "scan-giacenze-ubicazioni",
  "cerca-barcode",
  "post-movimenti",
  "post-movimenti-ubicazioni",
  "post-arrivi",
  "allinea",
  "scrittori-lettore",
  "upsert-articoli",
  "eventi-webhook",
  "webhook-portata",
  "anello-aperto",
  "post-prenotazioni",
  "post-movimenti-prenotate",
  "disponibilita-articolo",
  "ricevi-collo",
  "scan-disponibilita-passato",
  "testa-movimenti",
  "testa-eventi",
  "verify",
] as const;
/** Diagnoses, run only when --only names them. */
const EXTRA = ["tetto-node"] as const;
type ScenarioId = (typeof ALL)[number] | (typeof EXTRA)[number];
const RUNNERS: Record<ScenarioId, (ctx: Ctx) => Promise<ScenarioResult | ScenarioResult[]>> = {
  "scan-movimenti": scanMovements,
  "scan-disponibilita": scanAvailability,
  "scan-giacenze-ubicazioni": scanLocationStock,
  "cerca-barcode": searchBarcode,
  "post-movimenti": writeMovements,
  "post-movimenti-ubicazioni": writeMovementsInLocations,
  "post-arrivi": registerArrivals,
  allinea: alignStock,
  "scrittori-lettore": writersAndReader,
  "upsert-articoli": upsertArticles,
  "eventi-webhook": eventsAndWebhooks,
  "webhook-portata": webhookThroughput,
  "anello-aperto": openLoop,
  "post-prenotazioni": postReservations,
  "post-movimenti-prenotate": writeMovementsWithHolds,
  "disponibilita-articolo": availabilityOfOne,
  "tetto-node": bareNode,
  "ricevi-collo": receivePallets,
  "scan-disponibilita-passato": scanAvailabilityAsOf,
  "testa-movimenti": movementsFromZero,
  "testa-eventi": eventsFromZero,
  verify: verifyScenario,
};

function options() {
  const { values } = parseArgs({
    options: {
      scale: { type: "string", default: "1" },
      duration: { type: "string" },
      only: { type: "string" },
      rebuild: { type: "boolean", default: false },
      "no-build": { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      env: { type: "string", multiple: true, default: [] },
      pg: { type: "string", multiple: true, default: [] },
      "pg-stats": { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      pooler: { type: "boolean", default: false },
      "webhook-rate": { type: "string", default: "500" },
      "webhook-latency": { type: "string", default: "100" },
      "webhook-writes": { type: "string", default: "pavimento" },
      "senza-mensili": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) printHelp(import.meta.url);
  const scale = Number(values.scale);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 10) throw new Error("--scale deve essere un numero tra 0 e 10 (es. 0.02)");
  // 20 s at scale 1; shorter for quick runs, never under 4 s.
  const durationS = values.duration !== undefined ? Number(values.duration) : Math.min(20, Math.max(4, 20 * scale));
  if (!Number.isFinite(durationS) || durationS <= 0) throw new Error("--duration deve essere un numero di secondi");
  const only = values.only ? values.only.split(",").map((s) => s.trim()) : [...ALL];
  const known: readonly string[] = [...ALL, ...EXTRA];
  for (const id of only) if (!known.includes(id)) throw new Error(`scenario sconosciuto '${id}': ${known.join(", ")}`);
  const pairs = (list: string[], flag: string) => {
    const out: Record<string, string> = {};
    for (const kv of list) {
      const i = kv.indexOf("=");
      if (i <= 0) throw new Error(`${flag} vuole nome=valore: '${kv}'`);
      out[kv.slice(0, i)] = kv.slice(i + 1);
    }
    return out;
  };
  return {
    scale,
    durationS,
    only: only as ScenarioId[],
    rebuild: values.rebuild,
    noBuild: values["no-build"],
    cpuProf: values["cpu-prof"],
    env: pairs(values.env, "--env"),
    pg: { ...(values["pg-stats"] ? { shared_preload_libraries: "pg_stat_statements" } : {}), ...pairs(values.pg, "--pg") },
    pgStats: values["pg-stats"],
    keep: values.keep,
    pooler: values.pooler,
    withoutMonthly: values["senza-mensili"],
    webhook: {
      rate: positive(values["webhook-rate"], "--webhook-rate"),
      latencyMs: positive(values["webhook-latency"], "--webhook-latency"),
      writes: writesSide(values["webhook-writes"]),
    },
  };
}

function positive(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} deve essere un numero non negativo`);
  return n;
}

function writesSide(text: string): "api" | "pavimento" {
  if (text !== "api" && text !== "pavimento") throw new Error("--webhook-writes vuole api o pavimento");
  return text;
}

async function verify(prisma: PrismaClient, when: string): Promise<{ ok: boolean; text: string }> {
  const t = performance.now();
  const r = await verifyLedger(prisma);
  const text = r.ok
    ? `coerente (${fmtInt(r.controllati.movimenti)} movimenti, ${fmtInt(r.controllati.giacenze)} giacenze, ${fmtInt(r.controllati.lotti)} lotti, ${fmtInt(r.controllati.righe_ordine)} righe d'ordine)`
    : `${r.differenze.length} differenze, per esempio ${JSON.stringify(r.differenze.slice(0, 3))}`;
  progress(`verify ${when}: ${r.ok ? "ok" : "FALLITO"}, ${text} (${seconds(performance.now() - t)})`);
  return { ok: r.ok, text };
}

async function main(): Promise<void> {
  const opts = options();
  process.chdir(ROOT); // migrations and the server resolve their files from the working directory
  const startedAt = new Date().toISOString();
  progress(
    `bench: scala ${opts.scale}, fasi concorrenti di ${opts.durationS} s, scenari ${opts.only.join(", ")}; ` +
      `${os.cpus().length} CPU, carico medio ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}`,
  );

  await buildServer(ROOT, opts.rebuild ? "force" : opts.noBuild ? "existing" : "if-needed");

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-bench-"));
  fs.chmodSync(tmp, 0o755); // PostgreSQL runs as its own user when we are root
  stopOnExit.add(() =>
    opts.keep ? progress(`--keep: lascio ${tmp} (log di PostgreSQL e del server)`) : fs.rmSync(tmp, { recursive: true, force: true }),
  );
  progress(`PostgreSQL incorporato in ${tmp} …`);
  const embedded: EmbeddedServer = await startEmbedded({ dataDir: path.join(tmp, "db"), mode: "own", log: () => {}, settings: opts.pg });
  stopOnExit.add(() => embedded.stop());
  await migrate(embedded.url);
  const admin = new pg.Client({ connectionString: embedded.url });
  await admin.connect();
  stopOnExit.add(() => admin.end());
  if (opts.pgStats) await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const pgVersion = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
  const settings = Object.fromEntries(
    (
      await admin.query<{ name: string; setting: string; unit: string | null }>(
        `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'fsync', 'synchronous_commit', 'max_connections', 'work_mem')`,
      )
    ).rows.map((r) => [r.name, `${r.setting}${r.unit ? ` ${r.unit}` : ""}`]),
  );
  progress(`PostgreSQL ${pgVersion} pronto e migrato (${JSON.stringify(settings)})`);

  const counts = countsFor(opts.scale);
  progress(
    `dati: ${fmtInt(counts.articoli)} articoli, ${counts.magazzini} magazzini, ${fmtInt(counts.movimenti)} movimenti, ` +
      `${fmtInt(counts.righeAperte)} righe d'ordine aperte, ${fmtInt(counts.vendite)} documenti di vendita, ${fmtInt(counts.clienti)} clienti …`,
  );
  const gen = await generate(admin, counts);
  progress(
    `dati: generati in ${seconds(gen.ms)}: ${Object.entries(gen.tables)
      .map(([k, v]) => `${k} ${fmtInt(v)}`)
      .join(", ")}`,
  );

  const prisma = createPrisma(embedded.url, 2);
  stopOnExit.add(() => closePrisma(prisma));
  const verifyAfterGeneration = await verify(prisma, "dopo la generazione");
  if (!verifyAfterGeneration.ok) throw new Error("i dati generati non superano verify");
  if (opts.withoutMonthly) {
    await admin.query('DROP TRIGGER "movimenti_mensili" ON movimenti; DROP INDEX "movimenti_articolo_id_data_idx"');
    progress("--senza-mensili: tolti il trigger dei movimenti mensili e l'indice (articolo_id, data) di movimenti");
  }
  // A very high limit: the benchmark measures the service, not its rate limiter.
  const key = await createApiKey(prisma, {
    nome: "bench",
    permessi: ["lettura", "scrittura"],
    limiteAlSecondo: 1_000_000_000,
    raffica: 1_000_000_000,
  });

  // As many server connections as the server's pool has clients: what is measured is the pooler's hop.
  const bouncer = opts.pooler ? await startPgBouncer(embedded.url, { poolSize: Number(opts.env.DB_POOL_SIZE ?? 10) }) : undefined;
  if (bouncer) {
    stopOnExit.add(() => bouncer.stop());
    progress(`PgBouncer (modalità transaction) sulla porta ${bouncer.port}, pid ${bouncer.pid}`);
  }

  const profDir = opts.cpuProf ? path.join(RESULTS, `prof-${startedAt.replace(/[:.]/g, "-")}`) : undefined;
  if (profDir) fs.mkdirSync(profDir, { recursive: true });
  progress(
    `server: avvio come npm start (scripts/start.mjs, produzione, ${Object.keys(opts.env).length ? JSON.stringify(opts.env) : "configurazione predefinita"}) …`,
  );
  const server: RunningServer = await startServer(ROOT, {
    databaseUrl: bouncer ? bouncer.url(embedded.url) : embedded.url,
    cpuProfDir: profDir,
    logFile: path.join(tmp, "server.log"),
    // The events scenario's receiver listens on 127.0.0.1.
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", ...(bouncer ? { DATABASE_DIRECT_URL: embedded.url } : {}), ...opts.env },
  });
  progress(`server: pronto sulla porta ${server.port}, pid ${server.pid}, RSS ${Math.round(readMemoryMb(server.pid))} MB`);

  const api = new ApiClient(server.port, key.chiave, 32);
  stopOnExit.add(() => api.close());
  // Pipelined, as the service's pool is: statements a floor sends together (the append and the uncovering) share a round trip.
  const pool = new pg.Pool({ connectionString: embedded.url, max: 20, pipeline: true } as pg.PoolConfig);
  stopOnExit.add(() => pool.end());
  const ctx: Ctx = {
    api,
    pool,
    serverPid: server.pid,
    key: { id: key.id, chiave: key.chiave },
    databaseUrl: embedded.url,
    scale: opts.scale,
    durationMs: opts.durationS * 1000,
    timeZone: TIME_ZONE,
    cpu: new CpuMeter(server.pid, Number(fs.readFileSync(path.join(tmp, "db", "pg", "postmaster.pid"), "utf8").split("\n")[0])),
    pgStats: opts.pgStats,
    webhook: opts.webhook,
  };

  const results: ScenarioResult[] = [];
  for (const id of opts.only) {
    const t = performance.now();
    progress(`== ${id}`);
    results.push(...[await RUNNERS[id](ctx)].flat());
    progress(`== ${id}: ${seconds(performance.now() - t)}`);
  }
  const peakRss = Math.max(readMemoryMb(server.pid, "VmHWM"), ...results.map((r) => r.rssMb));
  const verifyEnd = await verify(prisma, "alla fine (dopo le scritture di API e pavimento)");

  await server.stop();
  if (bouncer) progress(`PgBouncer: ${(cpuMs(bouncer.pid) / 1000).toFixed(1)} s di CPU in tutto il banco`);
  if (profDir) progress(`profilo CPU del server: ${path.relative(ROOT, profDir)}`);

  const report: Report = {
    startedAt,
    scale: opts.scale,
    durationS: opts.durationS,
    wallS: elapsed(),
    generationS: gen.ms / 1000,
    environment: {
      node: process.version,
      postgresql: pgVersion,
      postgresqlSettings: settings,
      cpu: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "?"}`,
      caricoMedioAllaFine: os.loadavg().map((x) => Number(x.toFixed(2))),
      serverEnv: opts.env,
      serverPool: opts.env.DB_POOL_SIZE ?? "10 (predefinito)",
      pooler: bouncer ? "PgBouncer, pool_mode=transaction" : "nessuno",
    },
    data: gen.tables,
    scenarios: results,
    peakServerRssMb: peakRss,
    verify: { dopoGenerazione: verifyAfterGeneration.text, fine: verifyEnd.text },
    targets: evaluateTargets(results, peakRss, verifyAfterGeneration.ok && verifyEnd.ok),
  };
  console.log("");
  console.log(textTable(report));
  console.log("");
  console.log("CPU per richiesta (pagina per le scansioni):");
  console.log(textCpuTable(report));
  console.log("");
  console.log("Obiettivi:");
  console.log(textTargets(report));
  console.log("");
  const files = writeResults(RESULTS, report);
  progress(
    `risultati: ${path.relative(ROOT, files.json)}, ${path.relative(ROOT, files.md)} (e latest.json, latest.md); tempo totale ${seconds(elapsed() * 1000)}`,
  );
}

await runMain("bench", "il server e PostgreSQL", main);
