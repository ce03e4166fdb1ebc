import type pg from "pg";
import { fmtInt, percentile, progress, seconds } from "../util";
import { startBareServer } from "./bare-node";
import { floorClients, load, loadSide, side, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";
import { availabilityOf } from "../floor/lists";

/**
 * Latency at a fixed offered load, open loop: a request (POST /movimenti of 1 row; GET /disponibilita?articolo=) sent on a fixed
 * schedule at half the ceiling's throughput (bench/bare-server.ts, plain node:http + pg, 8 clients, closed
 * loop, measured first in the same run), whether or not earlier requests have answered, so a slow answer
 * cannot hold back the requests behind it (no coordinated omission). Each latency runs from the request's
 * scheduled time to its answer. Half the ceiling is a load any Node service here could carry; half the
 * floor (the write goal's rate) is more than even the ceiling carries on this machine. The floor's closed-loop
 * throughput is measured too: it is the row's floor side.
 */

const CLIENTS = 8;

interface OpenLoopSpec {
  id: string;
  name: string;
  label: string;
  /** The floor's request number i, on one of the floor's connections. */
  floor: (c: pg.PoolClient, i: number) => Promise<unknown>;
  /** Request number i through HTTP, against `on` (the service, or the ceiling). */
  request: (on: Ctx, i: number) => Promise<unknown>;
  /** The check's text from what was measured. */
  goal: (m: { rate: number; p95: number; p99: number }) => string;
}

async function openLoopOf(ctx: Ctx, o: OpenLoopSpec): Promise<ScenarioResult> {
  const phaseMs = Math.min(ctx.durationMs, 8_000);
  const floor = await floorClients(ctx.pool, CLIENTS, (cs) =>
    load(`${o.label}: pavimento`, CLIENTS, phaseMs, (c, i) => o.floor(cs[c]!, i * CLIENTS + c).then(() => true)),
  );
  const floorSide = loadSide(floor);
  // Against the bare server itself (tetto-node) its own throughput; else one started for the measure.
  const bare = ctx.bare ? undefined : await startBareServer(ctx);
  let ceiling: number;
  try {
    const on = bare?.ctx ?? ctx;
    const closed = await load(`${o.label}: tetto node:http + pg`, CLIENTS, phaseMs, (c, i) =>
      o.request(on, 50_000 + i * CLIENTS + c).then(() => true),
    );
    ceiling = loadSide(closed).figure;
  } finally {
    bare?.stop();
  }
  const rate = ceiling / 2;
  const intervalMs = 1000 / rate;
  // As pgbench does before its runs: the phases above inserted tens of thousands of rows, and the autovacuum
  // and autoanalyze they trigger landed inside the measured seconds in some runs and not in others (pg.log shows
  // them on movimenti, operazioni and eventi in the very second of a stall, and the p99 follows them).
  // Vacuumed and analysed first, the service and the ceiling start from the same
  // state; a second of closed-loop requests then warms code, connections and plans, as other warm-ups do.
  await ctx.pool.query("VACUUM (ANALYZE)");
  await load(`${o.label}: riscaldamento`, CLIENTS, 1_000, (c, i) => o.request(ctx, 900_000 + i * CLIENTS + c).then(() => true));
  progress(
    `${o.name}: tetto ${fmtInt(ceiling)} req/s (pavimento ${fmtInt(floorSide.figure)}), carico offerto ${fmtInt(rate)} req/s per ${seconds(ctx.durationMs)}`,
  );

  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const inFlight = new Set<Promise<void>>();
  const start = performance.now();
  const n = Math.floor(ctx.durationMs / intervalMs);
  for (let i = 0; i < n; i++) {
    const scheduled = start + i * intervalMs;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const p: Promise<void> = o.request(ctx, 100_000 + i).then(
      () => void latencies.push(performance.now() - scheduled),
      (e: unknown) => {
        errors++;
        firstError ??= (e as Error).message;
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  const ms = performance.now() - start;
  const api = side(latencies, latencies.length, ms, latencies.length / (ms / 1000), errors);
  const p95 = percentile(latencies, 95);
  const p99 = percentile(latencies, 99);
  progress(
    `${o.name}: ${fmtInt(latencies.length)} risposte, p50 ${api.p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, errori ${errors}${firstError ? ` (${firstError})` : ""}`,
  );
  return {
    id: o.id,
    name: o.name,
    unit: "richieste/s",
    api,
    floor: floorSide,
    rssMb: 0,
    check: { ok: errors === 0, text: o.goal({ rate, p95, p99 }) },
    details: { offertoRps: rate, tettoRps: ceiling, richieste: n, errori: errors, p95_ms: p95 },
  };
}

/** `anello-aperto`: one-row movements (goal: p99 within 25 ms). */
export async function openLoop(ctx: Ctx): Promise<ScenarioResult> {
  const articles = await plainArticles(ctx, 5_000);
  const plan = movementPlan(articles, 700);
  return openLoopOf(ctx, {
    id: "anello-aperto",
    name: "POST /movimenti a carico fisso (metà del tetto node:http + pg), anello aperto",
    label: "anello aperto",
    floor: (c, i) => floorMovement(ctx, c, plan(i)),
    request: (on, i) => apiMovement(on, plan(i)),
    goal: (m) => `offerte ${fmtInt(m.rate)} req/s (metà del tetto), p99 ${m.p99.toFixed(1)} ms (obiettivo ≤ 25 ms)`,
  });
}

/**
 * `disponibilita-articolo`: one article's availability, `GET /disponibilita?articolo=`, as a shop asks it before it
 * promises (goal: p95 within 10 ms). Run after post-prenotazioni, so that the articles hold reservations.
 */
export async function availabilityOfOne(ctx: Ctx): Promise<ScenarioResult> {
  const ids = (await plainArticles(ctx, 5_000)).map((a) => a.id);
  const article = (i: number) => ids[(i * 7919) % ids.length]!;
  return openLoopOf(ctx, {
    id: "disponibilita-articolo",
    name: "GET /disponibilita?articolo= a carico fisso (metà del tetto node:http + pg), anello aperto",
    label: "disponibilità di un articolo",
    floor: (c, i) => availabilityOf(c, article(i)),
    request: (on, i) => on.api.json("GET", `/disponibilita?articolo=${article(i)}`),
    goal: (m) => `offerte ${fmtInt(m.rate)} req/s (metà del tetto), p95 ${m.p95.toFixed(1)} ms (obiettivo ≤ 10 ms)`,
  });
}
