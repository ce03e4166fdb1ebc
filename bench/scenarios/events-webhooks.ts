import http from "node:http";
import type { AddressInfo } from "node:net";
import { newSecret } from "../../src/server/modules/webhooks/webhooks.service";
import { fmtInt, percentile, progress, seconds } from "../util";
import { concurrentSides, withClient, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";

/**
 * The outbox and the webhooks under write load: POST /movimenti, 1 row, 8 clients, measured
 * three times in the same run, both sides each time:
 *   1. without the outbox: a BEFORE INSERT trigger on `eventi`, created for this phase only, drops every
 *      event row (the ledger's statement is unchanged, its event is not written);
 *   2. with the outbox, no webhook;
 *   3. with the outbox and one webhook endpoint delivering every movimenti.registrati to a receiver in this
 *      process on 127.0.0.1 (the server runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true). The receiver notes
 *      each delivery's arrival; event-to-delivery latency is arrival minus the event's `creato_il` (taken in
 *      the writing transaction, same clock).
 * The row reports phase 3; the others are in its check and details. At the end the endpoint is disabled
 * so later scenarios run without deliveries.
 */

export async function eventsAndWebhooks(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /movimenti con eventi e webhook, 8 client";
  const clients = 8;
  const articles = await plainArticles(ctx, 5_000);
  const plans = Array.from({ length: clients }, (_, c) => movementPlan(articles, 300 + c));
  const sides = (label: string) =>
    concurrentSides(ctx, {
      name: `${name} (${label})`,
      label: `movimenti ${label}`,
      clients,
      warmUpMs: 1_000,
      floor: async (conn, c, i) => (await floorMovement(ctx, conn, plans[c]!(i)), true),
      api: async (c, i) => (await apiMovement(ctx, plans[c]!(i)), true),
    });

  await withClient(ctx.pool, (c) =>
    c.query(`CREATE FUNCTION bench_scarta_evento() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
             CREATE TRIGGER bench_scarta_evento BEFORE INSERT ON eventi FOR EACH ROW EXECUTE FUNCTION bench_scarta_evento();`),
  );
  let without: Awaited<ReturnType<typeof sides>>;
  try {
    without = await sides("senza eventi");
  } finally {
    await withClient(ctx.pool, (c) => c.query("DROP TRIGGER bench_scarta_evento ON eventi; DROP FUNCTION bench_scarta_evento();"));
  }
  const outboxOnly = await sides("con eventi");

  const arrivals: { latencyMs: number; sequenza: number }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const arrived = Date.now();
      const e = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { sequenza: number; creato_il: string };
      arrivals.push({ latencyMs: arrived - Date.parse(e.creato_il), sequenza: e.sequenza });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/banchina`;
  const endpoint = await withClient(ctx.pool, async (c) => {
    const r = await c.query<{ id: number; cursore: number }>(
      `INSERT INTO webhook_endpoint (url, eventi, segreto, cursore)
       VALUES ($1, ARRAY['movimenti.registrati'], $2, (SELECT coalesce(max(id), 0) FROM eventi)) RETURNING id, cursore`,
      [url, newSecret()],
    );
    return r.rows[0]!;
  });
  try {
    const withEvents = await sides("con eventi e webhook");
    const expected = await withClient(
      ctx.pool,
      async (c) =>
        (
          await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM eventi WHERE id > $1 AND tipo = 'movimenti.registrati'`, [
            endpoint.cursore,
          ])
        ).rows[0]!.n,
    );
    const drainFrom = performance.now();
    const deadline = Date.now() + 120_000;
    while (arrivals.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const drainMs = performance.now() - drainFrom;
    const latencies = arrivals.map((a) => a.latencyMs);
    const sequences = arrivals.map((a) => a.sequenza);
    const inOrder = sequences.every((s, i) => i === 0 || s > sequences[i - 1]!);
    const unique = new Set(sequences).size;
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    const costApi = outboxOnly.apiSide.figure / without.apiSide.figure;
    const costFloor = outboxOnly.floorSide.figure / without.floorSide.figure;
    progress(
      `${name}: senza eventi API ${fmtInt(without.apiSide.figure)} req/s, pavimento ${fmtInt(without.floorSide.figure)}; ` +
        `con eventi API ${fmtInt(outboxOnly.apiSide.figure)} (×${costApi.toFixed(2)}), pavimento ${fmtInt(outboxOnly.floorSide.figure)} (×${costFloor.toFixed(2)}); ` +
        `con eventi e webhook API ${fmtInt(withEvents.apiSide.figure)}, pavimento ${fmtInt(withEvents.floorSide.figure)}`,
    );
    progress(
      `  webhook: ${fmtInt(arrivals.length)}/${fmtInt(expected)} consegnati, latenza evento→consegna p50 ${p50.toFixed(0)} ms, ` +
        `p95 ${p95.toFixed(0)} ms; coda smaltita ${seconds(drainMs)} dopo la fine delle scritture; in ordine: ${inOrder ? "sì" : "NO"}`,
    );
    const ok =
      withEvents.api.errors === 0 && withEvents.floor.errors === 0 && arrivals.length === expected && unique === expected && inOrder;
    return {
      id: "eventi-webhook",
      name,
      unit: "richieste/s",
      api: withEvents.apiSide,
      floor: withEvents.floorSide,
      rssMb: Math.max(without.rssMb, outboxOnly.rssMb, withEvents.rssMb),
      check: {
        ok,
        text:
          `senza eventi: API ${fmtInt(without.apiSide.figure)}, pavimento ${fmtInt(without.floorSide.figure)} req/s; ` +
          `con eventi senza webhook: API ${fmtInt(outboxOnly.apiSide.figure)}, pavimento ${fmtInt(outboxOnly.floorSide.figure)}; ` +
          `webhook ${fmtInt(arrivals.length)}/${fmtInt(expected)} in ordine${inOrder ? "" : " NO"}, latenza p50 ${p50.toFixed(0)} ms p95 ${p95.toFixed(0)} ms`,
      },
      details: {
        client: clients,
        senzaEventi: { api: without.apiSide, pavimento: without.floorSide },
        conEventiSenzaWebhook: { api: outboxOnly.apiSide, pavimento: outboxOnly.floorSide },
        costoOutbox: { api: costApi, pavimento: costFloor },
        webhook: {
          consegnati: arrivals.length,
          attesi: expected,
          unici: unique,
          inOrdine: inOrder,
          latenzaP50Ms: p50,
          latenzaP95Ms: p95,
          smaltimentoMs: drainMs,
        },
      },
    };
  } finally {
    await withClient(ctx.pool, (c) => c.query(`UPDATE webhook_endpoint SET attivo = false WHERE id = $1`, [endpoint.id]));
    receiver.closeAllConnections();
    receiver.close();
  }
}
