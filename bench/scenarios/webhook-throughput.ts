import http from "node:http";
import type { AddressInfo } from "node:net";
import { newSecret } from "../../src/server/modules/webhooks/webhooks.service";
import { fmtInt, percentile, progress, seconds } from "../util";
import { side, withClient, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";

/**
 * Webhook throughput to a slow receiver (docs/api.md section 10 "Throughput"): POST /movimenti (1 row)
 * sent open loop at a fixed rate (`--webhook-rate`, default 500/s) for the phase's duration, while one
 * endpoint of each kind receives every movimenti.registrati from a receiver in this process that answers
 * each request after `--webhook-latency` ms (default 100):
 *   - ordinata ×1: the default, one event per request, one request in flight;
 *   - ordinata ×100: batches of up to 100 events, one request in flight;
 *   - parallela ×1: one event per request, up to WEBHOOK_PARALLELISM requests in flight.
 * Per kind: events delivered, events/s (delivered over the time from the first write to the last arrival),
 * lag p50/p95 (arrival minus the event's creato_il, same clock), repeats, whether the ordered kinds kept
 * sequenza order, and the most requests seen in flight at once. Goals: the batched ordered endpoint keeps
 * up (lag p95 under 5 s), the parallel one delivers at least 60 events/s. After the writes the phase waits
 * up to 30 s for the endpoints to drain, then disables them (a slow kind's backlog stays pending).
 *
 * The writes go through the floor by default (`--webhook-writes pavimento`: the service's own ledger
 * statement, event included, on PostgreSQL directly), as if other instances took them: on this 2-core
 * machine 500 writes/s through the API leave the server no CPU to deliver with, and the row measures
 * delivery. `--webhook-writes api` sends them to the server under test instead.
 */

const KINDS = [
  { label: "ordinata ×1", perRequest: 1, consegna: "ordinata" },
  { label: "ordinata ×100", perRequest: 100, consegna: "ordinata" },
  { label: "parallela ×1", perRequest: 1, consegna: "parallela" },
] as const;

const DRAIN_MS = 30_000;

interface Arrival {
  at: number;
  sequenza: number;
  latencyMs: number;
}

export async function webhookThroughput(ctx: Ctx): Promise<ScenarioResult> {
  const rate = ctx.webhook.rate;
  const latencyMs = ctx.webhook.latencyMs;
  const name = `Webhook a un ricevente lento (${latencyMs} ms), ${fmtInt(rate)} scritture/s (${ctx.webhook.writes})`;
  const articles = await plainArticles(ctx, 5_000);
  const plan = movementPlan(articles, 900);

  const arrivals = KINDS.map(() => [] as Arrival[]);
  const inFlight = KINDS.map(() => 0);
  const peak = KINDS.map(() => 0);
  const receiver = http.createServer((req, res) => {
    const k = Number(req.url?.slice(1));
    inFlight[k]!++;
    peak[k] = Math.max(peak[k]!, inFlight[k]!);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as
        | { sequenza: number; creato_il: string }
        | { eventi: { sequenza: number; creato_il: string }[] };
      for (const e of "eventi" in body ? body.eventi : [body])
        arrivals[k]!.push({ at, sequenza: e.sequenza, latencyMs: at - Date.parse(e.creato_il) });
      setTimeout(() => {
        inFlight[k]!--;
        res.writeHead(204).end();
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const endpoints = await withClient(ctx.pool, async (c) => {
    const out: { id: number; cursore: number }[] = [];
    for (const [k, kind] of KINDS.entries()) {
      const r = await c.query<{ id: number; cursore: number }>(
        `INSERT INTO webhook_endpoint (url, eventi, segreto, cursore, eventi_per_richiesta, consegna)
         VALUES ($1, ARRAY['movimenti.registrati'], $2, (SELECT coalesce(max(id), 0) FROM eventi), $3, $4) RETURNING id, cursore`,
        [`${base}/${k}`, newSecret(), kind.perRequest, kind.consegna],
      );
      out.push(r.rows[0]!);
    }
    return out;
  });

  try {
    // Open loop: each write at its scheduled time, whether or not earlier ones have answered.
    const writeLatencies: number[] = [];
    let errors = 0;
    const pending = new Set<Promise<void>>();
    const start = performance.now();
    const startWall = Date.now();
    const n = Math.floor((ctx.durationMs / 1000) * rate);
    for (let i = 0; i < n; i++) {
      const scheduled = start + (i * 1000) / rate;
      const wait = scheduled - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const m = plan(200_000 + i);
      const write = ctx.webhook.writes === "api" ? apiMovement(ctx, m) : withClient(ctx.pool, (c) => floorMovement(ctx, c, m));
      const p: Promise<void> = write.then(
        () => void writeLatencies.push(performance.now() - scheduled),
        () => void errors++,
      );
      pending.add(p);
      void p.finally(() => pending.delete(p));
    }
    await Promise.all(pending);
    const writeMs = performance.now() - start;
    const writes = side(writeLatencies, writeLatencies.length, writeMs, writeLatencies.length / (writeMs / 1000), errors);
    progress(`${name}: ${fmtInt(writes.count)} scritture in ${seconds(writeMs)} (${fmtInt(writes.figure)}/s), errori ${errors}`);

    const expected = await withClient(
      ctx.pool,
      async (c) =>
        (
          await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM eventi WHERE id > $1 AND tipo = 'movimenti.registrati'`, [
            Math.max(...endpoints.map((e) => e.cursore)),
          ])
        ).rows[0]!.n,
    );
    const deadline = Date.now() + DRAIN_MS;
    const unique = (k: number) => new Set(arrivals[k]!.map((a) => a.sequenza)).size;
    while (KINDS.some((_, k) => unique(k) < expected) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    const perKind = KINDS.map((kind, k) => {
      const got = arrivals[k]!;
      const seq = got.map((a) => a.sequenza);
      const lastAt = Math.max(startWall, ...got.map((a) => a.at));
      const eventsPerS = unique(k) / Math.max(0.001, (lastAt - startWall) / 1000);
      const lat = got.map((a) => a.latencyMs);
      return {
        tipo: kind.label,
        consegnati: unique(k),
        attesi: expected,
        ripetuti: got.length - unique(k),
        eventiAlSecondo: eventsPerS,
        ritardoP50Ms: percentile(lat, 50),
        ritardoP95Ms: percentile(lat, 95),
        inOrdine: seq.every((s, i) => i === 0 || s > seq[i - 1]!),
        richiesteInVoloMax: peak[k]!,
      };
    });
    for (const r of perKind)
      progress(
        `  ${r.tipo.padEnd(14)} ${fmtInt(r.consegnati)}/${fmtInt(r.attesi)} consegnati, ${r.eventiAlSecondo.toFixed(1)} eventi/s, ` +
          `ritardo p50 ${seconds(r.ritardoP50Ms)} p95 ${seconds(r.ritardoP95Ms)}, ripetuti ${r.ripetuti}, ` +
          `in ordine ${r.inOrdine ? "sì" : "no"}, richieste in volo al più ${r.richiesteInVoloMax}`,
      );
    const [, batched, parallel] = perKind as [(typeof perKind)[0], (typeof perKind)[0], (typeof perKind)[0]];
    const ok =
      errors === 0 &&
      batched.consegnati === expected &&
      batched.inOrdine &&
      batched.ritardoP95Ms < 5_000 &&
      parallel.eventiAlSecondo >= 60 &&
      perKind[0]!.inOrdine;
    return {
      id: "webhook-portata",
      name,
      unit: "richieste/s",
      api: writes,
      // No floor for this row: the figure is the writes' rate; what it measures is in the check and details.
      floor: writes,
      rssMb: 0,
      check: {
        ok,
        text: perKind.map((r) => `${r.tipo}: ${r.eventiAlSecondo.toFixed(0)} eventi/s, p95 ${seconds(r.ritardoP95Ms)}`).join("; "),
      },
      details: { scrittureAlSecondo: rate, ricevente_ms: latencyMs, tipi: perKind },
    };
  } finally {
    await withClient(ctx.pool, (c) =>
      c.query(`UPDATE webhook_endpoint SET attivo = false WHERE id = ANY($1)`, [endpoints.map((e) => e.id)]),
    );
    receiver.closeAllConnections();
    receiver.close();
  }
}
