import type pg from "pg";
import { businessDate } from "../src/server/lib/dates";
import * as floor from "./floor";
import type { ApiClient } from "./http";
import { sampleMemory, type CpuMeter } from "./server";
import { fmtInt, fmtNumber, median, percentile, progress, rng, seconds, sleep, workers } from "./util";

/**
 * Each scenario runs twice in the same run: the floor (plain SQL through `pg`) first, then the API over
 * HTTP, on the same data. The figure is rows/s for scans, requests/s for concurrent requests, seconds
 * for the alignment; latencies are per request (per page for scans).
 */

export interface Ctx {
  api: ApiClient;
  pool: pg.Pool;
  serverPid: number;
  key: { id: number };
  scale: number;
  /** Length of each timed concurrent phase. */
  durationMs: number;
  timeZone: string;
  cpu: CpuMeter;
}

/** CPU spent during one side of a scenario, in total and per request (per page for scans), ms. */
export interface CpuUse {
  serverMs: number;
  postgresMs: number;
  benchMs: number;
  perOp: { server: number; postgres: number; bench: number };
}

export interface SideResult {
  figure: number;
  count: number;
  ms: number;
  p50: number;
  p99: number;
  errors: number;
  cpu?: CpuUse;
}

export interface ScenarioResult {
  id: string;
  name: string;
  unit: "righe/s" | "richieste/s" | "s";
  api: SideResult;
  floor: SideResult;
  /** Peak RSS of the server process during the API run, MB. */
  rssMb: number;
  check: { ok: boolean; text: string };
  details: Record<string, unknown>;
}

/** Prints a line every 5 s while a long phase runs. */
function ticker(label: string, text: () => string): () => void {
  const t = setInterval(() => progress(`  ${label}: ${text()}`), 5_000);
  return () => clearInterval(t);
}

/** Runs one side of a scenario and measures the CPU it made the server, PostgreSQL and the bench spend. */
async function metered<T>(ctx: Ctx, fn: () => Promise<T>): Promise<[T, (ops: number) => CpuUse]> {
  const from = ctx.cpu.snapshot();
  const out = await fn();
  const used = ctx.cpu.since(from);
  return [
    out,
    (ops) => ({
      ...used,
      perOp: { server: used.serverMs / Math.max(1, ops), postgres: used.postgresMs / Math.max(1, ops), bench: used.benchMs / Math.max(1, ops) },
    }),
  ];
}

function side(latencies: number[], count: number, ms: number, figure: number, errors = 0): SideResult {
  return { figure, count, ms, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

interface LoadResult {
  ok: number;
  errors: number;
  latencies: number[];
  ms: number;
  firstError?: string;
}

/**
 * `clients` concurrent loops for `ms` milliseconds; `op` does one request and returns false when that
 * client has nothing left to do. Failed requests are counted, the first one is kept for the report.
 */
async function load(
  label: string,
  clients: number,
  ms: number,
  op: (client: number, i: number) => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + ms;
  let last = t0;
  const stopTicker = ticker(label, () => `${fmtInt(ok)} richieste (${fmtNumber(ok / ((performance.now() - t0) / 1000))}/s), ${errors} errori`);
  try {
    await workers(clients, async (c) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const s = performance.now();
        try {
          const more = await op(c, i);
          const end = performance.now();
          latencies.push(end - s);
          ok++;
          last = Math.max(last, end);
          if (!more) return;
        } catch (e) {
          errors++;
          firstError ??= (e as Error).message;
          if (errors > 50 && errors > ok) throw new Error(`troppi errori in ${label}: ${firstError}`);
        }
      }
    });
  } finally {
    stopTicker();
  }
  return { ok, errors, latencies, ms: last - t0, firstError };
}

function loadSide(r: LoadResult, cpu?: (ops: number) => CpuUse): SideResult {
  return { ...side(r.latencies, r.ok, r.ms, r.ok / (r.ms / 1000), r.errors), cpu: cpu?.(r.ok + r.errors) };
}

async function withClient<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    return await fn(c);
  } finally {
    c.release();
  }
}

/** One pooled connection per floor client for the whole phase, as the server's pool would give. */
async function floorClients<T>(pool: pg.Pool, n: number, fn: (clients: pg.PoolClient[]) => Promise<T>): Promise<T> {
  const clients = await Promise.all(Array.from({ length: n }, () => pool.connect()));
  try {
    return await fn(clients);
  } finally {
    for (const c of clients) c.release();
  }
}

export function cpuText(c: CpuUse | undefined): string {
  if (!c) return "-";
  return `server ${c.perOp.server.toFixed(2)} + PostgreSQL ${c.perOp.postgres.toFixed(2)} + bench ${c.perOp.bench.toFixed(2)} ms`;
}

function logSides(name: string, unit: string, api: SideResult, fl: SideResult) {
  progress(
    `${name}: API ${fmtNumber(api.figure)} ${unit} (p50 ${api.p50.toFixed(1)} ms, p99 ${api.p99.toFixed(1)} ms, ${fmtInt(api.count)} in ${seconds(api.ms)}), ` +
      `pavimento ${fmtNumber(fl.figure)} ${unit} (p50 ${fl.p50.toFixed(1)} ms, p99 ${fl.p99.toFixed(1)} ms)`,
  );
  progress(`  CPU per richiesta: API ${cpuText(api.cpu)}; pavimento ${cpuText(fl.cpu)}`);
}

// ---------------------------------------------------------------- scans

interface ScanOutcome {
  rows: number;
  idSum: number;
  pages: number;
  latencies: number[];
  ms: number;
}

async function scan(label: string, page: (dopo: number) => Promise<{ ids: number[]; altri: boolean; cursore: number; ms: number }>): Promise<ScanOutcome> {
  const out: ScanOutcome = { rows: 0, idSum: 0, pages: 0, latencies: [], ms: 0 };
  const t0 = performance.now();
  const stop = ticker(label, () => `${fmtInt(out.rows)} righe in ${fmtInt(out.pages)} pagine`);
  try {
    let dopo = 0;
    for (;;) {
      const p = await page(dopo);
      out.pages++;
      out.latencies.push(p.ms);
      out.rows += p.ids.length;
      for (const id of p.ids) out.idSum += id;
      if (!p.altri) break;
      if (p.cursore === dopo) await sleep(1); // rows above the sync bound: come back for them
      dopo = p.cursore;
    }
  } finally {
    stop();
  }
  out.ms = performance.now() - t0;
  return out;
}

async function scanScenario(
  ctx: Ctx,
  o: { id: string; name: string; path: string; limite: number; floorPage: typeof floor.movementsPage; key: string; count: string; warm: string },
): Promise<ScenarioResult> {
  const expected = await withClient(ctx.pool, async (c) => Number((await c.query<{ n: string }>(o.count)).rows[0]!.n));
  progress(`${o.name}: ${fmtInt(expected)} righe attese, pagine da ${o.limite}`);
  // Warm-up for both, not measured: the tables read once (into the OS cache), 200 pages each way.
  await withClient(ctx.pool, async (c) => {
    await c.query(o.warm);
    let dopo = 0;
    for (let i = 0; i < 200; i++) {
      const p = await o.floorPage(c, dopo, o.limite);
      if (!p.altri) break;
      dopo = p.cursore;
    }
  });
  {
    let dopo = 0;
    for (let i = 0; i < 200; i++) {
      const r = await ctx.api.json<{ altri: boolean; cursore: number }>("GET", `${o.path}?limite=${o.limite}&dopo=${dopo}`);
      if (!r.data.altri) break;
      dopo = r.data.cursore;
    }
  }
  const [fl, flCpu] = await metered(ctx, () =>
    withClient(ctx.pool, (c) =>
      scan(`${o.name} pavimento`, async (dopo) => {
        const t = performance.now();
        const p = await o.floorPage(c, dopo, o.limite);
        return { ids: p.rows.map((r) => r.id), altri: p.altri, cursore: p.cursore, ms: performance.now() - t };
      }),
    ),
  );
  const mem = sampleMemory(ctx.serverPid);
  const [api, apiCpu] = await metered(ctx, () => scan(`${o.name} API`, async (dopo) => {
    const t = performance.now();
    const r = await ctx.api.request("GET", `${o.path}?limite=${o.limite}&dopo=${dopo}`);
    if (r.status !== 200) throw new Error(`GET ${o.path}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
    const body = JSON.parse(r.body) as Record<string, unknown> & { altri: boolean; cursore: number };
    const rows = body[o.key] as ({ id: number } | { articolo: { id: number } })[];
    return { ids: rows.map((x) => ("id" in x ? x.id : x.articolo.id)), altri: body.altri, cursore: body.cursore, ms: performance.now() - t };
  }));
  const rssMb = mem.stop();
  const apiSide = { ...side(api.latencies, api.rows, api.ms, api.rows / (api.ms / 1000)), cpu: apiCpu(api.pages) };
  const flSide = { ...side(fl.latencies, fl.rows, fl.ms, fl.rows / (fl.ms / 1000)), cpu: flCpu(fl.pages) };
  logSides(o.name, "righe/s", apiSide, flSide);
  const same = api.rows === fl.rows && api.idSum === fl.idSum && api.rows === expected;
  return {
    id: o.id,
    name: o.name,
    unit: "righe/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok: same,
      text: same ? `stesse ${fmtInt(api.rows)} righe` : `righe diverse: API ${api.rows}, pavimento ${fl.rows}, attese ${expected}`,
    },
    details: { pagine: api.pages, righe: api.rows },
  };
}

export function scanMovements(ctx: Ctx): Promise<ScenarioResult> {
  return scanScenario(ctx, {
    id: "scan-movimenti",
    name: "GET /movimenti?limite=100, scansione completa",
    path: "/movimenti",
    limite: 100,
    floorPage: floor.movementsPage,
    key: "movimenti",
    count: "SELECT count(*) AS n FROM movimenti",
    warm: "SELECT count(*), sum(quantita), count(lotto_id) FROM movimenti; SELECT count(*), max(codice) FROM articoli; SELECT count(*) FROM lotti",
  });
}

export function scanAvailability(ctx: Ctx): Promise<ScenarioResult> {
  return scanScenario(ctx, {
    id: "scan-disponibilita",
    name: "GET /disponibilita?limite=500, scansione completa",
    path: "/disponibilita",
    limite: 500,
    floorPage: floor.availabilityPage,
    key: "disponibilita",
    count: "SELECT count(*) AS n FROM articoli WHERE NOT ha_varianti",
    warm: "SELECT count(*), max(codice) FROM articoli; SELECT count(*), sum(quantita) FROM giacenze; SELECT count(*), sum(ordinata) FROM righe_ordine",
  });
}

// ---------------------------------------------------------------- barcode search

export async function searchBarcode(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /arrivi/cerca per EAN, 16 client";
  const clients = 16;
  // Mostly EANs of articles expected on an open order; one in ten of an article nobody is sending.
  const eans = await withClient(ctx.pool, async (c) => {
    const expected = (await c.query<{ ean: string }>(`
      SELECT DISTINCT a.ean FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id WHERE r.arrivata < r.ordinata`)).rows.map((r) => r.ean);
    const other = (await c.query<{ ean: string }>(
      `SELECT a.ean FROM articoli a WHERE NOT a.ha_varianti AND NOT EXISTS (SELECT 1 FROM righe_ordine r WHERE r.articolo_id = a.id AND r.arrivata < r.ordinata)
        ORDER BY hashint4(a.id) LIMIT $1`,
      [Math.ceil(expected.length / 9)],
    )).rows.map((r) => r.ean);
    const all = [...expected, ...other];
    const rand = rng(7);
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all;
  });
  const pick = (client: number, i: number) => eans[(client * 7919 + i * 16 + client) % eans.length]!;
  // The same answer from both for a sample: found or not.
  let agree = 0;
  const sample = eans.slice(0, 30);
  for (const ean of sample) {
    const viaApi = await ctx.api.json<{ ordini: unknown[] }>("POST", "/arrivi/cerca", { barcode: ean });
    const viaFloor = await withClient(ctx.pool, (c) => floor.searchByEan(c, ean));
    if ((viaApi.data.ordini.length > 0) === viaFloor) agree++;
  }
  progress(`${name}: ${fmtInt(eans.length)} EAN (${fmtInt(Math.round(eans.length * 0.9))} attesi), durata ${seconds(ctx.durationMs)} per lato`);

  let floorFound = 0;
  const [fl, flCpu] = await floorClients(ctx.pool, clients, async (cs) => {
    await load("cerca pavimento (riscaldamento)", clients, 500, async (c, i) => (await floor.searchByEan(cs[c]!, pick(c, i + 100_000)), true));
    return metered(ctx, () =>
      load("cerca pavimento", clients, ctx.durationMs, async (c, i) => {
        if (await floor.searchByEan(cs[c]!, pick(c, i))) floorFound++;
        return true;
      }),
    );
  });
  await load("cerca API (riscaldamento)", clients, 500, async (c, i) => {
    await ctx.api.json("POST", "/arrivi/cerca", { barcode: pick(c, i + 100_000) });
    return true;
  });
  const mem = sampleMemory(ctx.serverPid);
  let apiFound = 0;
  const [api, apiCpu] = await metered(ctx, () =>
    load("cerca API", clients, ctx.durationMs, async (c, i) => {
      const r = await ctx.api.json<{ ordini: unknown[] }>("POST", "/arrivi/cerca", { barcode: pick(c, i) });
      if (r.data.ordini.length > 0) apiFound++;
      return true;
    }),
  );
  const rssMb = mem.stop();
  const apiSide = loadSide(api, apiCpu);
  const flSide = loadSide(fl, flCpu);
  logSides(name, "richieste/s", apiSide, flSide);
  const ok = agree === sample.length && api.errors === 0 && fl.errors === 0;
  return {
    id: "cerca-barcode",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: ok
        ? `stesse risposte su ${sample.length} EAN; trovate ${((apiFound / Math.max(1, api.ok)) * 100).toFixed(0)}%`
        : `API e pavimento discordi su ${sample.length - agree}/${sample.length} EAN; errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl.errors}`,
    },
    details: { client: clients, trovateApi: apiFound, trovatePavimento: floorFound, primoErroreApi: api.firstError },
  };
}

// ---------------------------------------------------------------- single-row writes

interface Article {
  id: number;
  codice: string;
}

async function plainArticles(ctx: Ctx, n: number): Promise<Article[]> {
  return withClient(ctx.pool, async (c) =>
    (await c.query<Article>(`SELECT id, codice FROM articoli WHERE NOT ha_varianti AND NOT gestione_lotti ORDER BY hashint4(id) LIMIT $1`, [n])).rows,
  );
}

/** One movement request: alternating loads and unloads of one unit on random articles and warehouses. */
function movementPlan(articles: Article[], seed: number) {
  const rand = rng(seed);
  return (i: number) => {
    const a = articles[Math.floor(rand() * articles.length)]!;
    return { article: a, magazzino: 1 + Math.floor(rand() * 3), natura: (i % 2 === 0 ? "carico" : "scarico") as "carico" | "scarico" };
  };
}

async function apiMovement(ctx: Ctx, m: ReturnType<ReturnType<typeof movementPlan>>): Promise<number> {
  const r = await ctx.api.json<{ scritte: number; righe: { movimento?: number }[] }>("POST", "/movimenti", {
    natura: m.natura,
    magazzino: m.magazzino,
    righe: [{ codice: m.article.codice, quantita: 1, prezzo: "1.5" }],
  });
  if (r.data.scritte !== 1) throw new Error(`POST /movimenti: riga non scritta: ${JSON.stringify(r.data).slice(0, 300)}`);
  return r.data.righe[0]!.movimento!;
}

function floorMovement(ctx: Ctx, c: pg.ClientBase, m: ReturnType<ReturnType<typeof movementPlan>>): Promise<number> {
  return floor.writeMovement(c, {
    natura: m.natura,
    magazzino: m.magazzino,
    articolo: m.article.id,
    quantita: "1",
    prezzo: "1.5",
    data: businessDate(ctx.timeZone),
    chiave: ctx.key.id,
  });
}

export async function writeMovements(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /movimenti, 1 riga, 8 client";
  const clients = 8;
  const articles = await plainArticles(ctx, 5_000);
  progress(`${name}: durata ${seconds(ctx.durationMs)} per lato`);
  const plans = Array.from({ length: clients }, (_, c) => movementPlan(articles, 100 + c));
  const fl = await floorClients(ctx.pool, clients, async (cs) => {
    await load("movimenti pavimento (riscaldamento)", clients, 1_000, async (c, i) => (await floorMovement(ctx, cs[c]!, plans[c]!(i)), true));
    return metered(ctx, () =>
      load("movimenti pavimento", clients, ctx.durationMs, async (c, i) => (await floorMovement(ctx, cs[c]!, plans[c]!(i)), true)),
    );
  });
  await load("movimenti API (riscaldamento)", clients, 1_000, async (c, i) => (await apiMovement(ctx, plans[c]!(i)), true));
  const mem = sampleMemory(ctx.serverPid);
  const [api, apiCpu] = await metered(ctx, () =>
    load("movimenti API", clients, ctx.durationMs, async (c, i) => (await apiMovement(ctx, plans[c]!(i)), true)),
  );
  const rssMb = mem.stop();
  const apiSide = loadSide(api, apiCpu);
  const flSide = loadSide(fl[0], fl[1]);
  logSides(name, "richieste/s", apiSide, flSide);
  const ok = api.errors === 0 && fl[0].errors === 0;
  return {
    id: "post-movimenti",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: { ok, text: ok ? "nessun errore" : `errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl[0].errors} (${fl[0].firstError ?? "-"})` },
    details: { client: clients },
  };
}

interface OpenRow {
  id: number;
  ordine_id: number;
  magazzino_id: number;
  residua: number;
  gestione_lotti: boolean;
}

export async function registerArrivals(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /arrivi, 1 riga, 8 client su righe distinte";
  const clients = 8;
  const rows = await withClient(ctx.pool, async (c) =>
    (
      await c.query<OpenRow>(`
        SELECT r.id, r.ordine_id, o.magazzino_id, floor(r.ordinata - r.arrivata)::int AS residua, a.gestione_lotti
          FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id JOIN articoli a ON a.id = r.articolo_id
         WHERE r.arrivata + 1 <= r.ordinata
         ORDER BY r.ordine_id, r.posizione`)
    ).rows,
  );
  // Each client owns whole orders: no two clients ever wait on the same order row or order.
  const queues: OpenRow[][] = Array.from({ length: clients }, () => []);
  for (const r of rows) queues[r.ordine_id % clients]!.push(r);
  const units = rows.reduce((s, r) => s + r.residua, 0);
  progress(`${name}: ${fmtInt(rows.length)} righe aperte (${fmtInt(units)} unità da ricevere), durata ${seconds(ctx.durationMs)} per lato`);
  const cursor = new Array<number>(clients).fill(0);
  /** The next row of this client with something left to receive, round robin; undefined when none. */
  const next = (c: number): OpenRow | undefined => {
    const q = queues[c]!;
    while (q.length > 0) {
      const i = cursor[c]! % q.length;
      const r = q[i]!;
      if (r.residua >= 1) {
        r.residua--;
        cursor[c] = i + 1;
        return r;
      }
      q.splice(i, 1);
    }
    return undefined;
  };
  const floorArrival = (c: pg.ClientBase, client: number, r: OpenRow) =>
    floor.registerArrival(c, {
      riga: r.id,
      magazzino: r.magazzino_id,
      ddt: `BENCH-P-${client}`,
      quantita: "1",
      lotto: r.gestione_lotti ? "BENCH-L1" : null,
      data: businessDate(ctx.timeZone),
      chiave: ctx.key.id,
    });
  const apiArrival = async (client: number, r: OpenRow) => {
    await ctx.api.json("POST", "/arrivi", {
      magazzino: r.magazzino_id,
      ddt: `BENCH-A-${client}`,
      riga: r.id,
      quantita: 1,
      ...(r.gestione_lotti ? { lotto: "BENCH-L1" } : {}),
    }, [201]);
  };
  let exhausted = 0;
  const fl = await floorClients(ctx.pool, clients, async (cs) => {
    await load("arrivi pavimento (riscaldamento)", clients, 500, async (c) => {
      const r = next(c);
      if (r) await floorArrival(cs[c]!, c, r);
      return r !== undefined;
    });
    return metered(ctx, () =>
      load("arrivi pavimento", clients, ctx.durationMs, async (c) => {
        const r = next(c);
        if (!r) return (exhausted++, false);
        await floorArrival(cs[c]!, c, r);
        return true;
      }),
    );
  });
  await load("arrivi API (riscaldamento)", clients, 500, async (c) => {
    const r = next(c);
    if (r) await apiArrival(c, r);
    return r !== undefined;
  });
  const mem = sampleMemory(ctx.serverPid);
  const [api, apiCpu] = await metered(ctx, () =>
    load("arrivi API", clients, ctx.durationMs, async (c) => {
      const r = next(c);
      if (!r) return (exhausted++, false);
      await apiArrival(c, r);
      return true;
    }),
  );
  const rssMb = mem.stop();
  const apiSide = loadSide(api, apiCpu);
  const flSide = loadSide(fl[0], fl[1]);
  logSides(name, "richieste/s", apiSide, flSide);
  const ok = api.errors === 0 && fl[0].errors === 0;
  return {
    id: "post-arrivi",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: ok
        ? `nessun errore${exhausted > 0 ? `; ${exhausted} client senza più righe prima del tempo` : ""}`
        : `errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl[0].errors} (${fl[0].firstError ?? "-"})`,
    },
    details: { client: clients, righeAperte: rows.length, clientEsauriti: exhausted },
  };
}

// ---------------------------------------------------------------- alignment

export async function alignStock(ctx: Ctx): Promise<ScenarioResult> {
  const total = Math.min(10_000, Math.max(100, Math.round(10_000 * ctx.scale)));
  const name = `POST /giacenze/allinea, ${fmtInt(total)} righe`;
  const reps = 3;
  const magazzino = 1;
  // Nine in ten plain articles, one in ten (article, lot) units, of warehouse 1.
  const units = await withClient(ctx.pool, async (c) => {
    const lotted = (
      await c.query<{ codice: string; lotto: string; id: number }>(
        `SELECT a.codice, l.codice AS lotto, a.id FROM lotti l JOIN articoli a ON a.id = l.articolo_id
          WHERE l.magazzino_id = $1 ORDER BY l.id LIMIT $2`,
        [magazzino, Math.round(total / 10)],
      )
    ).rows;
    const plain = (
      await c.query<{ codice: string; id: number }>(
        `SELECT codice, id FROM articoli WHERE NOT ha_varianti AND NOT gestione_lotti ORDER BY id LIMIT $1`,
        [total - lotted.length],
      )
    ).rows;
    const out: { codice: string; id: number; lotto?: string }[] = [
      ...plain.map((p) => ({ codice: p.codice, id: p.id })),
      ...lotted.map((l) => ({ codice: l.codice, lotto: l.lotto, id: l.id })),
    ];
    return out;
  });
  // Every repetition counts something else for every unit, so every row is written each time.
  const body = (rep: number, m = magazzino, n = units.length) => ({
    magazzino: m,
    causale: "Inventario bench",
    righe: units.slice(0, n).map((u) => ({ codice: u.codice, contato: (u.id % 37) + rep, ...(u.lotto !== undefined ? { lotto: u.lotto } : {}) })),
  });
  progress(`${name}: ${reps} ripetizioni per lato`);
  const data = businessDate(ctx.timeZone);
  const apiAlign = async (b: ReturnType<typeof body>) => {
    const r = await ctx.api.json<{ scritte: number; invariate: number; rifiutate: number }>("POST", "/giacenze/allinea", b);
    if (r.data.rifiutate > 0) throw new Error(`allineamento: ${r.data.rifiutate} righe rifiutate`);
    return r;
  };
  // Warm-up on warehouse 2, a tenth of the rows.
  await withClient(ctx.pool, (c) => floor.align(c, { ...body(1000, 2, Math.ceil(units.length / 10)), data, chiave: ctx.key.id }));
  await apiAlign(body(1001, 2, Math.ceil(units.length / 10)));

  const apiTimes: number[] = [];
  const floorTimes: number[] = [];
  let written = { api: 0, floor: 0 };
  let rssMb = 0;
  const cpuSum = { api: [] as CpuUse[], floor: [] as CpuUse[] };
  for (let rep = 0; rep < reps; rep++) {
    const fb = body(2 * rep + 1);
    const t = performance.now();
    const [f, fCpu] = await metered(ctx, () => withClient(ctx.pool, (c) => floor.align(c, { ...fb, data, chiave: ctx.key.id })));
    floorTimes.push(performance.now() - t);
    cpuSum.floor.push(fCpu(1));
    written.floor += f.scritte;
    const mem = sampleMemory(ctx.serverPid);
    const [a, aCpu] = await metered(ctx, () => apiAlign(body(2 * rep + 2)));
    cpuSum.api.push(aCpu(1));
    rssMb = Math.max(rssMb, mem.stop());
    apiTimes.push(a.ms);
    written.api += a.data.scritte;
    progress(`  allineamento ${rep + 1}/${reps}: API ${seconds(a.ms)} (${fmtInt(a.data.scritte)} scritte), pavimento ${seconds(floorTimes.at(-1)!)} (${fmtInt(f.scritte)} scritte)`);
  }
  const sumCpu = (xs: CpuUse[]): CpuUse => {
    const t = { serverMs: 0, postgresMs: 0, benchMs: 0 };
    for (const x of xs) (t.serverMs += x.serverMs), (t.postgresMs += x.postgresMs), (t.benchMs += x.benchMs);
    return { ...t, perOp: { server: t.serverMs / xs.length, postgres: t.postgresMs / xs.length, bench: t.benchMs / xs.length } };
  };
  const apiSide: SideResult = {
    figure: median(apiTimes) / 1000,
    count: reps,
    ms: apiTimes.reduce((s, x) => s + x, 0),
    p50: median(apiTimes),
    p99: Math.max(...apiTimes),
    errors: 0,
    cpu: sumCpu(cpuSum.api),
  };
  const flSide: SideResult = {
    figure: median(floorTimes) / 1000,
    count: reps,
    ms: floorTimes.reduce((s, x) => s + x, 0),
    p50: median(floorTimes),
    p99: Math.max(...floorTimes),
    errors: 0,
    cpu: sumCpu(cpuSum.floor),
  };
  progress(`${name}: API ${apiSide.figure.toFixed(2)} s, pavimento ${flSide.figure.toFixed(2)} s (mediane di ${reps})`);
  progress(`  CPU per chiamata: API ${cpuText(apiSide.cpu)}; pavimento ${cpuText(flSide.cpu)}`);
  return {
    id: "allinea",
    name,
    unit: "s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: { ok: true, text: `${fmtInt(written.api / reps)} correzioni per chiamata` },
    details: { righe: units.length, ripetizioni: reps, tempiApiMs: apiTimes, tempiPavimentoMs: floorTimes, scritte: written },
  };
}

// ---------------------------------------------------------------- writers and a sync reader

interface Completeness {
  written: number;
  seen: number;
  missing: number;
  duplicated: number;
  extra: number;
  pages: number;
  ok: boolean;
}

/** Pages from `start` until, after the writers stopped, a page says there is nothing more. */
async function syncReader(
  start: number,
  page: (dopo: number) => Promise<{ ids: number[]; altri: boolean; cursore: number }>,
  writersDone: () => boolean,
): Promise<{ seen: Map<number, number>; pages: number }> {
  const seen = new Map<number, number>();
  let dopo = start;
  let pages = 0;
  for (;;) {
    const done = writersDone();
    const p = await page(dopo);
    pages++;
    for (const id of p.ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    dopo = p.cursore;
    if (!p.altri) {
      if (done) break;
      await sleep(2);
    }
  }
  return { seen, pages };
}

function completeness(written: number[], seen: Map<number, number>, pages: number): Completeness {
  const w = new Set(written);
  let missing = 0;
  let duplicated = 0;
  let extra = 0;
  for (const id of w) if ((seen.get(id) ?? 0) === 0) missing++;
  for (const [id, n] of seen) {
    if (n > 1) duplicated++;
    if (!w.has(id)) extra++;
  }
  return { written: w.size, seen: seen.size, missing, duplicated, extra, pages, ok: missing === 0 && duplicated === 0 && extra === 0 && w.size === written.length };
}

export async function writersAndReader(ctx: Ctx): Promise<ScenarioResult> {
  const name = "8 scrittori POST /movimenti + 1 lettore GET /movimenti";
  const clients = 8;
  const articles = await plainArticles(ctx, 5_000);
  const plans = Array.from({ length: clients }, (_, c) => movementPlan(articles, 900 + c));
  const lastId = () => withClient(ctx.pool, async (c) => Number((await c.query<{ n: string }>("SELECT last_value AS n FROM movimenti_id_seq")).rows[0]!.n));
  progress(`${name}: durata ${seconds(ctx.durationMs)} per lato`);

  // Floor: writers and reader on their own connections.
  const floorRun = await floorClients(ctx.pool, clients + 1, async (cs) => {
    const start = await lastId();
    const written: number[] = [];
    let done = false;
    const readerP = syncReader(start, (dopo) => floor.movementsPage(cs[clients]!, dopo, 100).then((p) => ({ ids: p.rows.map((r) => r.id), ...p })), () => done);
    const [w, cpu] = await metered(ctx, () =>
      load("scrittori+lettore pavimento", clients, ctx.durationMs, async (c, i) => {
        written.push(await floorMovement(ctx, cs[c]!, plans[c]!(i)));
        return true;
      }).finally(() => (done = true)),
    );
    const r = await readerP;
    return { w, cpu, c: completeness(written, r.seen, r.pages) };
  });

  const start = await lastId();
  const written: number[] = [];
  let done = false;
  const mem = sampleMemory(ctx.serverPid);
  const readerP = syncReader(
    start,
    async (dopo) => {
      const r = await ctx.api.json<{ movimenti: { id: number }[]; altri: boolean; cursore: number }>("GET", `/movimenti?limite=100&dopo=${dopo}`);
      return { ids: r.data.movimenti.map((m) => m.id), altri: r.data.altri, cursore: r.data.cursore };
    },
    () => done,
  );
  const [w, wCpu] = await metered(ctx, () =>
    load("scrittori+lettore API", clients, ctx.durationMs, async (c, i) => {
      written.push(await apiMovement(ctx, plans[c]!(i)));
      return true;
    }).finally(() => (done = true)),
  );
  const reader = await readerP;
  const rssMb = mem.stop();
  const apiC = completeness(written, reader.seen, reader.pages);
  const apiSide = loadSide(w, wCpu);
  const flSide = loadSide(floorRun.w, floorRun.cpu);
  logSides(name, "richieste/s", apiSide, flSide);
  const describe = (c: Completeness) =>
    c.ok ? `${fmtInt(c.written)}/${fmtInt(c.written)} visti una volta` : `mancanti ${c.missing}, doppi ${c.duplicated}, estranei ${c.extra} su ${c.written}`;
  const ok = apiC.ok && floorRun.c.ok && w.errors === 0;
  progress(`${name}: lettore API ${describe(apiC)} (${apiC.pages} pagine); lettore pavimento ${describe(floorRun.c)}`);
  return {
    id: "scrittori-lettore",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: `${ok ? "PASS" : "FAIL"}: lettore API ${describe(apiC)}; pavimento ${describe(floorRun.c)}${w.errors ? `; errori API ${w.errors}: ${w.firstError}` : ""}`,
    },
    details: { completezzaApi: apiC, completezzaPavimento: floorRun.c },
  };
}
