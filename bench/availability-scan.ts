/**
 * Full scan of GET /api/v1/disponibilita against the plain-SQL floor.
 *
 *   npx tsx bench/availability-scan.ts [--articoli 100000]
 *
 * A throw-away embedded PostgreSQL in a temporary directory; N articles (5% templates with 3 variants
 * each), 3 warehouses, balances on most stocked articles, open and closed order rows (written straight into
 * `giacenze`: the scan without `a` never reads the ledger, so none is generated). Then, in the same
 * run: every page with limite=500 through the REST facade in-process (auth, rate limit, validation,
 * sync bound, page query, output schema, JSON), and the same rows through `pg` with a hand-written
 * keyset query (same page size, same joins and aggregation): the floor. Prints rows/s, the ratio
 * API/floor (in time: 2.0 means the API takes twice as long) and page latencies, over 3 alternating rounds.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";

// trpc-to-openapi validates the whole router on every request outside production, a cost
// production never pays: measure what production runs. Set before the server modules are loaded.
Object.assign(process.env, { NODE_ENV: "production", LOG_LEVEL: process.env.LOG_LEVEL ?? "error" });

const { values } = parseArgs({ options: { articoli: { type: "string", default: "100000" } } });
const N = Number(values.articoli);
if (!Number.isInteger(N) || N < 100) throw new Error("--articoli deve essere un intero ≥ 100");
const PAGE = 500;
const ROUNDS = 3;

const { startEmbedded } = await import("../src/server/db/embedded");
const { migrate } = await import("../src/server/db/migrate");
const { closePrisma, createPrisma, setDb } = await import("../src/server/db/client");
const { createApiKey } = await import("../src/server/modules/auth/api-keys.service");
const { handleRestRequest } = await import("../src/server/http/rest-handler");

/** Set-based data: ids are given explicitly so templates and variants can point at each other in one statement. */
async function generate(db: pg.Client) {
  await db.query("INSERT INTO magazzini (codice, nome) VALUES ('M1', 'Centrale'), ('M2', 'Nord'), ('M3', 'Sud')");
  await db.query("INSERT INTO fornitori (codice, nome) VALUES ('F1', 'Fornitore uno')");
  // In each block of 20 ids: one template (…1) with its three variants (…2‥…4), then 16 plain articles.
  await db.query(
    `INSERT INTO articoli (id, codice, ean, descrizione, ha_varianti, modello_id)
     SELECT g, 'ART-' || lpad(g::text, 7, '0'), '80' || lpad(g::text, 11, '0'), 'Articolo di prova numero ' || g,
            g % 20 = 1, CASE WHEN g % 20 BETWEEN 2 AND 4 THEN g - g % 20 + 1 END
       FROM generate_series(1, $1::int) g`,
    [N],
  );
  await db.query("SELECT setval('articoli_id_seq', $1::int)", [N]);
  // About 70% of (stocked article, warehouse) pairs have a balance row; some are zero or negative.
  await db.query(
    `INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
     SELECT a.id, w.id, ((a.id * 37 + w.id * 101) % 2000 - 100) / 8.0
       FROM articoli a CROSS JOIN magazzini w
      WHERE NOT a.ha_varianti AND (a.id * 7 + w.id * 3) % 10 < 7`,
  );
  // One order per 50 articles, a third of them evaso; one row per stocked article in every fifth one.
  await db.query(
    `INSERT INTO ordini_acquisto (numero, fornitore_id, magazzino_id, data, stato)
     SELECT 'OA-' || g, 1, 1 + g % 3, DATE '2026-01-01' + g % 300, (ARRAY['aperto', 'parziale', 'evaso'])[1 + g % 3]
       FROM generate_series(1, $1::int / 50) g`,
    [N],
  );
  await db.query(
    `INSERT INTO righe_ordine (ordine_id, posizione, articolo_id, ordinata, arrivata, prezzo, stato)
     SELECT o.id, row_number() OVER (PARTITION BY o.id ORDER BY a.id), a.id, 10 + a.id % 40,
            CASE o.stato WHEN 'evaso' THEN 10 + a.id % 40 WHEN 'parziale' THEN a.id % 10 ELSE 0 END, 1.5,
            CASE o.stato WHEN 'evaso' THEN 'evasa' WHEN 'parziale' THEN 'parziale' ELSE 'aperta' END
       FROM articoli a JOIN ordini_acquisto o ON o.id = 1 + (a.id / 5) % ($1::int / 50)
      WHERE NOT a.ha_varianti AND a.id % 5 = 0`,
    [N],
  );
  await db.query("ANALYZE");
  const counts = await db.query(
    `SELECT (SELECT count(*) FROM articoli WHERE NOT ha_varianti)::int AS gestiti,
            (SELECT count(*) FROM giacenze)::int AS giacenze, (SELECT count(*) FROM righe_ordine)::int AS righe`,
  );
  return counts.rows[0] as { gestiti: number; giacenze: number; righe: number };
}

interface Row {
  id: number;
  giacenza: string;
  in_arrivo: string;
  magazzini: { magazzino: number; giacenza: string }[];
}

/** The floor: one keyset query per page, written directly, the values already canonical from SQL. */
const FLOOR_SQL = `
  SELECT p.id, p.codice, p.descrizione, trim_scale(d.giacenza)::text AS giacenza,
         trim_scale(coalesce(o.in_arrivo, 0))::text AS in_arrivo, d.magazzini, d.giacenze
    FROM (SELECT id, codice, descrizione FROM articoli WHERE id > $1 AND NOT ha_varianti ORDER BY id LIMIT $2) p
   CROSS JOIN LATERAL (
         SELECT coalesce(sum(g.quantita), 0) AS giacenza, array_agg(w.id ORDER BY w.id) AS magazzini,
                array_agg(trim_scale(coalesce(g.quantita, 0))::text ORDER BY w.id) AS giacenze
           FROM magazzini w LEFT JOIN giacenze g ON g.articolo_id = p.id AND g.magazzino_id = w.id) d
    LEFT JOIN LATERAL (
         SELECT sum(greatest(r.ordinata - r.arrivata - r.chiusa, 0)) AS in_arrivo
           FROM righe_ordine r JOIN ordini_acquisto oa ON oa.id = r.ordine_id
          WHERE r.articolo_id = p.id AND oa.stato <> 'evaso') o ON true
   ORDER BY p.id`;

interface Scan {
  rows: Row[];
  latencies: number[];
  ms: number;
}

async function scanFloor(db: pg.Client): Promise<Scan> {
  const rows: Row[] = [];
  const latencies: number[] = [];
  let dopo = 0;
  const start = performance.now();
  for (;;) {
    const t0 = performance.now();
    const r = await db.query(FLOOR_SQL, [dopo, PAGE]);
    latencies.push(performance.now() - t0);
    for (const x of r.rows) {
      rows.push({
        id: x.id,
        giacenza: x.giacenza,
        in_arrivo: x.in_arrivo,
        magazzini: (x.magazzini as number[]).map((magazzino, i) => ({ magazzino, giacenza: x.giacenze[i] })),
      });
    }
    if (r.rows.length < PAGE) break;
    dopo = r.rows.at(-1).id;
  }
  return { rows, latencies, ms: performance.now() - start };
}

async function scanApi(key: string): Promise<Scan> {
  const rows: Row[] = [];
  const latencies: number[] = [];
  let dopo = 0;
  let elapsed = 0;
  for (;;) {
    // Timed: the request until its body is complete. Parsing it is the client's work, as with the floor's pg.
    const t0 = performance.now();
    const res = await handleRestRequest(
      new Request(`http://localhost/api/v1/disponibilita?limite=${PAGE}&dopo=${dopo}`, { headers: { authorization: `Bearer ${key}` } }),
    );
    const text = await res.text();
    const dt = performance.now() - t0;
    latencies.push(dt);
    elapsed += dt;
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text}`);
    const body = JSON.parse(text) as { disponibilita: (Omit<Row, "id"> & { articolo: { id: number } })[]; altri: boolean; cursore: number };
    for (const d of body.disponibilita)
      rows.push({ id: d.articolo.id, giacenza: d.giacenza, in_arrivo: d.in_arrivo, magazzini: d.magazzini });
    if (!body.altri) break;
    dopo = body.cursore;
  }
  return { rows, latencies, ms: elapsed };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-bench-"));
fs.chmodSync(dir, 0o755); // PostgreSQL runs as its own user when we are root
let server: Awaited<ReturnType<typeof startEmbedded>> | undefined;
let prisma: ReturnType<typeof createPrisma> | undefined;
let db: pg.Client | undefined;
try {
  server = await startEmbedded({ dataDir: dir, mode: "own", log: () => {} });
  prisma = createPrisma(server.url, 10);
  db = new pg.Client({ connectionString: server.url });
  await migrate(server.url);
  await db.connect();
  const t0 = performance.now();
  const counts = await generate(db);
  console.log(
    `Dati: ${N} articoli (${counts.gestiti} gestiti a magazzino), 3 magazzini, ${counts.giacenze} giacenze, ` +
      `${counts.righe} righe d'ordine — generati in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  setDb(prisma);
  const { chiave } = await createApiKey(prisma, { nome: "bench", permessi: ["lettura"], limiteAlSecondo: 1_000_000, raffica: 1_000_000 });

  // Warm-up of both paths (PostgreSQL buffers, JIT of the JS): not measured.
  await scanFloor(db);
  await scanApi(chiave);

  // Alternate rounds, so that load from other processes on the machine falls on both sides alike.
  const rounds: { api: Scan; floor: Scan }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const api = await scanApi(chiave);
    const floor = await scanFloor(db);
    if (JSON.stringify(api.rows) !== JSON.stringify(floor.rows)) {
      throw new Error(`L'API e il pavimento non restituiscono le stesse righe (${api.rows.length} contro ${floor.rows.length})`);
    }
    rounds.push({ api, floor });
  }

  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const line = (name: string, scans: Scan[]) => {
    const ms = median(scans.map((r) => r.ms));
    const latencies = scans.flatMap((r) => r.latencies);
    const rows = scans[0]!.rows.length;
    console.log(
      `${name.padEnd(4)} ${rows} righe in ${scans[0]!.latencies.length} pagine: mediana ${(ms / 1000).toFixed(2)} s, ` +
        `${Math.round(rows / (ms / 1000))} righe/s; pagina p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms`,
    );
    return ms;
  };
  console.log(`${ROUNDS} giri alternati, righe identiche tra API e SQL in ogni giro`);
  const apiMs = line(
    "API",
    rounds.map((r) => r.api),
  );
  const floorMs = line(
    "SQL",
    rounds.map((r) => r.floor),
  );
  const ratios = rounds.map((r) => (r.api.ms / r.floor.ms).toFixed(2)).join(", ");
  console.log(`Rapporto API/pavimento (tempo, mediane): ${(apiMs / floorMs).toFixed(2)}× (per giro: ${ratios})`);
} finally {
  await db?.end().catch(() => {});
  if (prisma) await closePrisma(prisma).catch(() => {});
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
