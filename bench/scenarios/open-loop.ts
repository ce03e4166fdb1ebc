import { fmtInt, percentile, progress, seconds } from "../util";
import { floorClients, load, loadSide, side, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";

/**
 * Latency at a fixed offered load (issue 13), open loop: POST /movimenti (1 row) sent on a fixed schedule
 * at half the floor's throughput, whether or not earlier requests have answered, so a slow answer cannot
 * hold back the requests behind it (no coordinated omission). Each latency runs from the request's
 * scheduled time to its answer. The floor's throughput is measured first, in the same run (8 clients,
 * closed loop); the floor side of this row is that measurement.
 */

const CLIENTS = 8;

export async function openLoop(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /movimenti a carico fisso (metà del pavimento), anello aperto";
  const articles = await plainArticles(ctx, 5_000);
  const plan = movementPlan(articles, 700);
  const floor = await floorClients(ctx.pool, CLIENTS, (cs) =>
    load("anello aperto: pavimento", CLIENTS, Math.min(ctx.durationMs, 8_000), (c, i) =>
      floorMovement(ctx, cs[c]!, plan(i * CLIENTS + c)).then(() => true),
    ),
  );
  const floorSide = loadSide(floor);
  const rate = floorSide.figure / 2;
  const intervalMs = 1000 / rate;
  progress(`${name}: pavimento ${fmtInt(floorSide.figure)} req/s, carico offerto ${fmtInt(rate)} req/s per ${seconds(ctx.durationMs)}`);

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
    check: { ok: errors === 0, text: `offerte ${fmtInt(rate)} req/s, p99 ${p99.toFixed(1)} ms (obiettivo ≤ 25 ms)` },
    details: { offertoRps: rate, richieste: n, errori: errors },
  };
}
