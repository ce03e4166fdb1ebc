import { fmtInt, percentile, progress, seconds } from "../util";
import { startBareServer } from "./bare-node";
import { floorClients, load, loadSide, side, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";

/**
 * Latency at a fixed offered load, open loop: POST /movimenti (1 row) sent on a fixed
 * schedule at half the ceiling's throughput (bench/bare-server.ts, plain node:http + pg, 8 clients, closed
 * loop, measured first in the same run), whether or not earlier requests have answered, so a slow answer
 * cannot hold back the requests behind it (no coordinated omission). Each latency runs from the request's
 * scheduled time to its answer. Half the ceiling is a load any Node service here could carry; half the
 * floor (the write goal's rate) is more than even the ceiling carries on this machine. The floor's closed-loop
 * throughput is measured too: it is the row's floor side.
 */

const CLIENTS = 8;

export async function openLoop(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /movimenti a carico fisso (metà del tetto node:http + pg), anello aperto";
  const articles = await plainArticles(ctx, 5_000);
  const plan = movementPlan(articles, 700);
  const phaseMs = Math.min(ctx.durationMs, 8_000);
  const floor = await floorClients(ctx.pool, CLIENTS, (cs) =>
    load("anello aperto: pavimento", CLIENTS, phaseMs, (c, i) => floorMovement(ctx, cs[c]!, plan(i * CLIENTS + c)).then(() => true)),
  );
  const floorSide = loadSide(floor);
  // Against the bare server itself (tetto-node) its own throughput; else one started for the measure.
  const bare = ctx.bare ? undefined : await startBareServer(ctx);
  let ceiling: number;
  try {
    const on = bare?.ctx ?? ctx;
    const closed = await load("anello aperto: tetto node:http + pg", CLIENTS, phaseMs, (c, i) =>
      apiMovement(on, plan(50_000 + i * CLIENTS + c)).then(() => true),
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
  // state; a second of closed-loop writes then warms code, connections and plans, as other warm-ups do.
  await ctx.pool.query("VACUUM (ANALYZE)");
  await load("anello aperto: riscaldamento", CLIENTS, 1_000, (c, i) => apiMovement(ctx, plan(900_000 + i * CLIENTS + c)).then(() => true));
  progress(
    `${name}: tetto ${fmtInt(ceiling)} req/s (pavimento ${fmtInt(floorSide.figure)}), carico offerto ${fmtInt(rate)} req/s per ${seconds(ctx.durationMs)}`,
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
    const p: Promise<void> = apiMovement(ctx, plan(100_000 + i)).then(
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
  const p99 = percentile(latencies, 99);
  progress(
    `${name}: ${fmtInt(latencies.length)} risposte, p50 ${api.p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, errori ${errors}${firstError ? ` (${firstError})` : ""}`,
  );
  return {
    id: "anello-aperto",
    name,
    unit: "richieste/s",
    api,
    floor: floorSide,
    rssMb: 0,
    check: { ok: errors === 0, text: `offerte ${fmtInt(rate)} req/s (metà del tetto), p99 ${p99.toFixed(1)} ms (obiettivo ≤ 25 ms)` },
    details: { offertoRps: rate, tettoRps: ceiling, richieste: n, errori: errors },
  };
}
