/**
 * Where a request's time goes, layer by layer (diagnosis for the targets `npm run bench` misses).
 *
 *   npx tsx bench/layers.ts [--scale 0.02] [--n 300] [--no-http] [--cpu-prof DIR]
 *
 * One client, one request at a time, on a throw-away embedded PostgreSQL with the bench's data set.
 * For POST /movimenti (one row) and a GET /movimenti page (limite=100), each layer adds one thing:
 *   1. floor        plain `pg`, named prepared statements (bench/floor/)
 *   2. prisma-raw   the floor's statements through Prisma ($transaction / $queryRaw), nothing else
 *   3. service      the service function (movements.service.ts) in Prisma's transaction
 *   4. +auth        plus the API key's authentication (the instance's cache, as main.ts attaches it) and rate limit
 *   5. rest         handleRestRequest in process: REST facade, trpc-to-openapi, tRPC, zod, JSON
 *   6. http         the production server over HTTP (Next custom server), as `npm run bench` measures
 * and prints wall time and CPU (this process or the server, and PostgreSQL) per request.
 * --cpu-prof DIR: the server's V8 profile goes to DIR (run this script under `node --cpu-prof` for
 * the in-process layers' one).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";

// What production runs: set before the server modules load (trpc-to-openapi validates the whole router on
// every request otherwise).
Object.assign(process.env, { NODE_ENV: "production" });
const { values } = parseArgs({
  options: {
    scale: { type: "string", default: "0.02" },
    n: { type: "string", default: "300" },
    "no-http": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
  },
});
const N = Number(values.n);

const { startEmbedded } = await import("../src/server/db/embedded");
const { migrate } = await import("../src/server/db/migrate");
const { closePrisma, createPrisma, setDb, Prisma } = await import("../src/server/db/client");
const { inTransaction } = await import("../src/server/db/transaction");
const { createApiKey, authenticateApiKey } = await import("../src/server/modules/auth/api-keys.service");
const { startAuthCache } = await import("../src/server/modules/auth/auth-cache");
const { writeMovements, listMovements } = await import("../src/server/modules/movements/movements.service");
const { syncBound } = await import("../src/server/modules/lists/lists");
const { handleRestRequest } = await import("../src/server/http/rest-handler");
const { businessDate } = await import("../src/server/lib/dates");
const floorLists = await import("./floor/lists");
const floorMovements = await import("./floor/movements");
const { countsFor, generate } = await import("./data");
const { ApiClient } = await import("./http");
const { buildServer, cpuMs, CpuMeter, startServer, stopOnExit } = await import("./server");
const { progress } = await import("./util");

const ROOT = path.resolve(import.meta.dirname, "..");
process.chdir(ROOT);
const TZ = "Europe/Rome";

interface Row {
  layer: string;
  wallMs: number;
  cpuMs: number;
  pgMs: number;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-layers-"));
fs.chmodSync(tmp, 0o755);
const embedded = await startEmbedded({ dataDir: path.join(tmp, "db"), mode: "own", log: () => {} });
const postmaster = Number(fs.readFileSync(path.join(tmp, "db", "pg", "postmaster.pid"), "utf8").split("\n")[0]);
const admin = new pg.Client({ connectionString: embedded.url });
const prisma = createPrisma(embedded.url, 4);
try {
  await migrate(embedded.url);
  await admin.connect();
  await generate(admin, countsFor(Number(values.scale)));
  setDb(prisma);
  // As main.ts does: layers 4 and 5 authenticate through the instance's cache, as a server's requests do.
  const authCache = startAuthCache(prisma, embedded.url, { ttlSeconds: 30, log: () => {} });
  stopOnExit.add(() => authCache.stop());
  await authCache.whenListening();
  const key = await createApiKey(prisma, { nome: "layers", permessi: ["lettura", "scrittura"], limiteAlSecondo: 1e9, raffica: 1e9 });
  const actor = { kind: "chiave" as const, id: key.id, nome: "layers", permessi: ["lettura" as const, "scrittura" as const] };
  const articles = (
    await admin.query<{ id: number; codice: string }>(
      "SELECT id, codice FROM articoli WHERE NOT ha_varianti AND NOT gestione_lotti ORDER BY id LIMIT 500",
    )
  ).rows;
  const maxId = Number((await admin.query<{ n: string }>("SELECT max(id) AS n FROM movimenti")).rows[0]!.n);
  const data = businessDate(TZ);
  const fc = new pg.Client({ connectionString: embedded.url });
  await fc.connect();
  const meter = new CpuMeter(process.pid, postmaster);

  const measure = async (layer: string, op: (i: number) => Promise<unknown>, cpuOf?: () => number): Promise<Row> => {
    for (let i = 0; i < 50; i++) await op(i + 1_000_000); // warm-up
    const from = meter.snapshot();
    const c0 = cpuOf?.() ?? 0;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await op(i);
    const wall = (performance.now() - t0) / N;
    const used = meter.since(from);
    const cpu = cpuOf ? (cpuOf() - c0) / N : used.benchMs / N;
    const row = { layer, wallMs: wall, cpuMs: cpu, pgMs: used.postgresMs / N };
    progress(
      `${layer.padEnd(34)} ${wall.toFixed(2).padStart(7)} ms/richiesta, CPU ${cpu.toFixed(2).padStart(6)} ms (processo), PostgreSQL ${row.pgMs.toFixed(2).padStart(5)} ms`,
    );
    return row;
  };
  const art = (i: number) => articles[i % articles.length]!;
  const natura = (i: number) => (i % 2 === 0 ? "carico" : "scarico") as "carico" | "scarico";
  const body = (i: number) => ({
    natura: natura(i),
    magazzino: 1 + (i % 3),
    righe: [{ codice: art(i).codice, quantita: 1, prezzo: "1.5" }],
  });
  const dopo = (i: number) => (i * 7919) % Math.max(1, maxId - 200);

  const results: Record<string, Row[]> = { "POST /movimenti (1 riga)": [], "GET /movimenti (pagina da 100)": [] };
  const w = results["POST /movimenti (1 riga)"]!;
  const r = results["GET /movimenti (pagina da 100)"]!;

  progress("POST /movimenti, una richiesta alla volta");
  w.push(
    await measure("1 floor (pg)", (i) =>
      floorMovements.writeMovement(fc, {
        natura: natura(i),
        magazzino: 1 + (i % 3),
        articolo: art(i).id,
        quantita: "1",
        prezzo: "1.5",
        data,
        chiave: key.id,
      }),
    ),
  );
  w.push(
    await measure("2 prisma-raw (stesse istruzioni)", (i) =>
      prisma.$transaction(
        async (tx) => {
          const [op] = await tx.$queryRaw<
            { id: number }[]
          >`INSERT INTO operazioni (origine, chiave_api_id, utente_id) VALUES ('api', ${key.id}::int, NULL::int) RETURNING id`;
          const q = natura(i) === "carico" ? "1" : "-1";
          await tx.$executeRaw`INSERT INTO giacenze (articolo_id, magazzino_id, quantita) VALUES (${art(i).id}, ${1 + (i % 3)}, ${q}::numeric)
            ON CONFLICT (articolo_id, magazzino_id) DO UPDATE SET quantita = giacenze.quantita + EXCLUDED.quantita, aggiornata_il = now()`;
          await tx.$queryRaw`INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita, prezzo, chiave_api_id)
            VALUES (${op!.id}, ${data}::date, 'api', ${natura(i)}, ${1 + (i % 3)}, ${art(i).id}, ${q}::numeric, 1.5, ${key.id}) RETURNING id`;
        },
        { isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted },
      ),
    ),
  );
  w.push(
    await measure("3 service (writeMovements)", (i) =>
      inTransaction(prisma, (tx) => writeMovements(tx, actor, body(i), { timeZone: TZ, origine: "api" })),
    ),
  );
  w.push(
    await measure("4 service + auth", async (i) => {
      const a = await authenticateApiKey(prisma, key.chiave, { perSecond: 50, burst: 200 });
      return inTransaction(prisma, (tx) => writeMovements(tx, a, body(i), { timeZone: TZ, origine: "api" }));
    }),
  );
  w.push(
    await measure("5 rest in process (tRPC, zod…)", async (i) => {
      const res = await handleRestRequest(
        new Request("http://localhost/api/v1/movimenti", {
          method: "POST",
          headers: { authorization: `Bearer ${key.chiave}`, "content-type": "application/json" },
          body: JSON.stringify(body(i)),
        }),
      );
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      return res.text();
    }),
  );

  // Next runs route handlers inside AsyncLocalStorage contexts; on Node 20 that installs promise hooks
  // for every promise in the process. Same layer 5, inside one.
  const { AsyncLocalStorage } = await import("node:async_hooks");
  const als = new AsyncLocalStorage<object>();
  w.push(
    await measure("5b rest in process, dentro ALS", (i) =>
      als.run({}, async () => {
        const res = await handleRestRequest(
          new Request("http://localhost/api/v1/movimenti", {
            method: "POST",
            headers: { authorization: `Bearer ${key.chiave}`, "content-type": "application/json" },
            body: JSON.stringify(body(i)),
          }),
        );
        return res.text();
      }),
    ),
  );

  progress("GET /movimenti, una pagina alla volta");
  r.push(await measure("1 floor (pg)", (i) => floorLists.movementsPage(fc, dopo(i), 100)));
  r.push(
    await measure("2 prisma-raw (stesse istruzioni)", async (i) => {
      await syncBound(prisma, "movimenti");
      return prisma.$queryRaw`
        SELECT m.id, m.operazione_id, m.data, m.registrato_il, m.origine, m.natura, m.causale, m.magazzino_id,
               m.articolo_id, a.codice AS articolo_codice, m.quantita, m.prezzo, l.codice AS lotto,
               m.riferimento_tipo, m.riferimento_id, m.annulla_id
          FROM movimenti m JOIN articoli a ON a.id = m.articolo_id LEFT JOIN lotti l ON l.id = m.lotto_id
         WHERE m.id > ${dopo(i)} ORDER BY m.id LIMIT 101`;
    }),
  );
  r.push(
    await measure("3 service (listMovements + JSON)", async (i) =>
      JSON.stringify(await listMovements(prisma, { limite: 100, dopo: dopo(i) }, TZ)),
    ),
  );
  r.push(
    await measure("4 service + auth", async (i) => {
      await authenticateApiKey(prisma, key.chiave, { perSecond: 50, burst: 200 });
      return JSON.stringify(await listMovements(prisma, { limite: 100, dopo: dopo(i) }, TZ));
    }),
  );
  r.push(
    await measure("5 rest in process (tRPC, zod…)", async (i) => {
      const res = await handleRestRequest(
        new Request(`http://localhost/api/v1/movimenti?limite=100&dopo=${dopo(i)}`, { headers: { authorization: `Bearer ${key.chiave}` } }),
      );
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      return res.text();
    }),
  );

  const q: Row[] = [];
  results["GET /api/v1/sconosciuto (404, nessuna query)"] = q;
  progress("404 su un percorso sconosciuto: il costo fisso di una richiesta");
  q.push(
    await measure("5 rest in process", async () => {
      const res = await handleRestRequest(
        new Request("http://localhost/api/v1/sconosciuto", { headers: { authorization: `Bearer ${key.chiave}` } }),
      );
      return res.text();
    }),
  );

  if (!values["no-http"]) {
    await buildServer(ROOT, "existing");
    const server = await startServer(ROOT, {
      databaseUrl: embedded.url,
      logFile: path.join(tmp, "server.log"),
      cpuProfDir: values["cpu-prof"],
    });
    const api = new ApiClient(server.port, key.chiave, 2);
    try {
      w.push(
        await measure(
          "6 http: server di produzione",
          async (i) => {
            await api.json("POST", "/movimenti", body(i));
          },
          () => cpuMs(server.pid),
        ),
      );
      r.push(
        await measure(
          "6 http: server di produzione",
          (i) => api.json("GET", `/movimenti?limite=100&dopo=${dopo(i)}`),
          () => cpuMs(server.pid),
        ),
      );
      q.push(
        await measure(
          "6 http: server di produzione",
          () => api.request("GET", "/sconosciuto"),
          () => cpuMs(server.pid),
        ),
      );
    } finally {
      api.close();
      await server.stop();
    }
  }
  await fc.end();

  console.log("\nPer richiesta, una alla volta (CPU: del processo che esegue il livello; PostgreSQL: tutti i suoi processi)\n");
  for (const [what, rows] of Object.entries(results)) {
    console.log(what);
    let prev: Row | undefined;
    for (const x of rows) {
      const delta = prev ? ` (+${(x.cpuMs - prev.cpuMs).toFixed(2)} ms CPU)` : "";
      console.log(
        `  ${x.layer.padEnd(34)} ${x.wallMs.toFixed(2).padStart(7)} ms  CPU ${x.cpuMs.toFixed(2).padStart(6)} ms${delta.padEnd(20)}  PostgreSQL ${x.pgMs.toFixed(2)} ms`,
      );
      prev = x;
    }
  }
} finally {
  for (const fn of [...stopOnExit].reverse()) await Promise.resolve(fn()).catch(() => {});
  await admin.end().catch(() => {});
  await closePrisma(prisma).catch(() => {});
  await embedded.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
