import type pg from "pg";
import type { ApiClient } from "../http";
import { sampleMemory, type CpuMeter } from "../server";
import { fmtInt, fmtNumber, percentile, progress, seconds, workers } from "../util";

/**
 * Each scenario runs twice in the same run: the floor (plain SQL through `pg`) and the API over HTTP, on
 * the same data; the floor first, or, where the work never runs out, the two alternating (concurrentSides'
 * slices, scan.ts's blocks of pages), so that both meet the same conditions. The figure is rows/s for scans,
 * requests/s for concurrent requests, seconds for the alignment; latencies are per request (per page for
 * scans).
 */

export interface Ctx {
  api: ApiClient;
  pool: pg.Pool;
  serverPid: number;
  /** The bench's API key: its id, and the key itself for a second server (`tetto-node`). */
  key: { id: number; chiave: string };
  databaseUrl: string;
  scale: number;
  /** Length of each timed concurrent phase. */
  durationMs: number;
  timeZone: string;
  cpu: CpuMeter;
  /** The scenario runs against bench/bare-server.ts (`tetto-node`), not the service. */
  bare?: boolean;
  /** --pg-stats: each measured side ends with the statements PostgreSQL spent most time in. */
  pgStats?: boolean;
  /** webhook-portata: the write rate (per second), the receiver's answer time (ms), through which side the writes go. */
  webhook: { rate: number; latencyMs: number; writes: "api" | "pavimento" };
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
export function ticker(label: string, text: () => string): () => void {
  const t = setInterval(() => progress(`  ${label}: ${text()}`), 5_000);
  return () => clearInterval(t);
}

/** Runs one side of a scenario and measures the CPU it made the server, PostgreSQL and the bench spend. */
export async function metered<T>(ctx: Ctx, fn: () => Promise<T>): Promise<[T, (ops: number) => CpuUse]> {
  if (ctx.pgStats) await ctx.pool.query("SELECT pg_stat_statements_reset()");
  const from = ctx.cpu.snapshot();
  const out = await fn();
  const used = new CpuTally();
  used.add(ctx.cpu.since(from));
  if (ctx.pgStats) await printStatementTimes(ctx.pool);
  return [out, (ops) => used.use(ops)];
}

/**
 * The statements PostgreSQL spent most time in since the last reset (pg_stat_statements): time inside
 * the server, waits and preemption included, so a statement that takes longer on one side than on the
 * other may be waiting for CPU rather than working.
 */
async function printStatementTimes(pool: pg.Pool): Promise<void> {
  const r = await pool.query<{ calls: string; mean: number; total: number; query: string }>(
    `SELECT calls, total_exec_time / calls AS mean, total_exec_time AS total, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 8`,
  );
  for (const s of r.rows) {
    progress(`  pg_stat_statements: ${fmtInt(Number(s.calls))} × ${s.mean.toFixed(3)} ms = ${fmtInt(s.total)} ms  ${s.query}`);
  }
}

export function side(latencies: number[], count: number, ms: number, figure: number, errors = 0): SideResult {
  return { figure, count, ms, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

export interface LoadResult {
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
export async function load(
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
  const stopTicker = ticker(
    label,
    () => `${fmtInt(ok)} richieste (${fmtNumber(ok / ((performance.now() - t0) / 1000))}/s), ${errors} errori`,
  );
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

export function loadSide(r: LoadResult, cpu?: (ops: number) => CpuUse): SideResult {
  return { ...side(r.latencies, r.ok, r.ms, r.ok / (r.ms / 1000), r.errors), cpu: cpu?.(r.ok + r.errors) };
}

export async function withClient<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    return await fn(c);
  } finally {
    c.release();
  }
}

/** One pooled connection per floor client for the whole phase, as the server's pool would give. */
export async function floorClients<T>(pool: pg.Pool, n: number, fn: (clients: pg.PoolClient[]) => Promise<T>): Promise<T> {
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

export function logSides(name: string, unit: string, api: SideResult, fl: SideResult) {
  progress(
    `${name}: API ${fmtNumber(api.figure)} ${unit} (p50 ${api.p50.toFixed(1)} ms, p99 ${api.p99.toFixed(1)} ms, ${fmtInt(api.count)} in ${seconds(api.ms)}), ` +
      `pavimento ${fmtNumber(fl.figure)} ${unit} (p50 ${fl.p50.toFixed(1)} ms, p99 ${fl.p99.toFixed(1)} ms)`,
  );
  progress(`  CPU per richiesta: API ${cpuText(api.cpu)}; pavimento ${cpuText(fl.cpu)}`);
}

/** Both sides of a concurrent scenario, measured; `rssMb` is the server's peak during the API side. */
export interface ConcurrentSides {
  api: LoadResult;
  floor: LoadResult;
  apiSide: SideResult;
  floorSide: SideResult;
  rssMb: number;
}

/** The check of a scenario whose requests must all succeed: none failed on either side, or the first of each. */
export function noErrors(api: LoadResult, floor: LoadResult): ScenarioResult["check"] {
  const ok = api.errors === 0 && floor.errors === 0;
  return {
    ok,
    text: ok
      ? "nessun errore"
      : `errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${floor.errors} (${floor.firstError ?? "-"})`,
  };
}

/** How many slices each side of an endless concurrent scenario is measured in (concurrentSides). */
export const SIDE_SLICES = 4;

/**
 * The shape every concurrent-request scenario shares: `clients` loops of the floor, each on its own
 * pooled connection, first warmed up for `warmUpMs` and then measured for `ctx.durationMs`; then the
 * same for the API over HTTP, with the server's memory sampled. An op does one request (`warmUp` true
 * while not measured) and returns false when its client has nothing left to do. Progress lines are
 * labelled `<label> pavimento`, `<label> API`, each with its `(riscaldamento)`.
 *
 * `slices` > 1 (scenarios whose work never runs out) alternates the two sides in that many slices each
 * (floor, API, floor, API…), both sides' slices adding up to `ctx.durationMs`: PostgreSQL's own background
 * work (autovacuum after the floor's inserts, checkpoints) and the machine's drift then fall on both sides
 * alike, instead of on whichever ran second. Run one side after the other, two floors of the same write in one
 * run read noticeably different throughputs, so a ratio over the floor moved with nothing changed. With
 * --pg-stats one slice each (the statements are listed per side).
 */
export async function concurrentSides(
  ctx: Ctx,
  o: {
    name: string;
    label: string;
    clients: number;
    warmUpMs: number;
    slices?: number;
    floor: (conn: pg.PoolClient, client: number, i: number, warmUp: boolean) => Promise<boolean>;
    api: (client: number, i: number, warmUp: boolean) => Promise<boolean>;
  },
): Promise<ConcurrentSides> {
  const slices = ctx.pgStats ? 1 : (o.slices ?? 1);
  const sliceMs = ctx.durationMs / slices;
  // Each client's requests are numbered across slices, as in one phase.
  const next = { floor: new Array<number>(o.clients).fill(0), api: new Array<number>(o.clients).fill(0) };
  const floor = new Measured();
  const api = new Measured();
  let rssMb = 0;
  await floorClients(ctx.pool, o.clients, async (cs) => {
    await load(`${o.label} pavimento (riscaldamento)`, o.clients, o.warmUpMs, (c, i) => o.floor(cs[c]!, c, i, true));
    for (let k = 0; k < slices; k++) {
      const part = slices > 1 ? ` ${k + 1}/${slices}` : "";
      await floor.add(ctx, () =>
        load(`${o.label} pavimento${part}`, o.clients, sliceMs, (c) => o.floor(cs[c]!, c, next.floor[c]!++, false)),
      );
      if (k === 0) await load(`${o.label} API (riscaldamento)`, o.clients, o.warmUpMs, (c, i) => o.api(c, i, true));
      if (slices === 1) continue;
      rssMb = Math.max(rssMb, await apiSlice(part));
    }
  });
  if (slices === 1) rssMb = await apiSlice("");
  const apiSide = api.side();
  const floorSide = floor.side();
  logSides(o.name, "richieste/s", apiSide, floorSide);
  return { api: api.result, floor: floor.result, apiSide, floorSide, rssMb };

  async function apiSlice(part: string): Promise<number> {
    const mem = sampleMemory(ctx.serverPid);
    await api.add(ctx, () => load(`${o.label} API${part}`, o.clients, sliceMs, (c) => o.api(c, next.api[c]!++, false)));
    return mem.stop();
  }
}

/** One side's CPU added up over its slices or blocks, per operation at the end. */
export class CpuTally {
  private ms = { serverMs: 0, postgresMs: 0, benchMs: 0 };

  add(used: { serverMs: number; postgresMs: number; benchMs: number }): void {
    this.ms = {
      serverMs: this.ms.serverMs + used.serverMs,
      postgresMs: this.ms.postgresMs + used.postgresMs,
      benchMs: this.ms.benchMs + used.benchMs,
    };
  }

  use(ops: number): CpuUse {
    const n = Math.max(1, ops);
    return { ...this.ms, perOp: { server: this.ms.serverMs / n, postgres: this.ms.postgresMs / n, bench: this.ms.benchMs / n } };
  }
}

/** One side's slices, added up: requests, latencies, time and CPU. */
class Measured {
  result: LoadResult = { ok: 0, errors: 0, latencies: [], ms: 0 };
  private cpu = new CpuTally();

  async add(ctx: Ctx, run: () => Promise<LoadResult>): Promise<void> {
    const [r, use] = await metered(ctx, run);
    this.cpu.add(use(1));
    const t = this.result;
    this.result = {
      ok: t.ok + r.ok,
      errors: t.errors + r.errors,
      latencies: t.latencies.concat(r.latencies),
      ms: t.ms + r.ms,
      firstError: t.firstError ?? r.firstError,
    };
  }

  side(): SideResult {
    return loadSide(this.result, (ops) => this.cpu.use(ops));
  }
}
