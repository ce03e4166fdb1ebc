import { describe, expect, test } from "vitest";
import type { TestDb } from "../../src/server/testing/db";
import { launch, sleep, stop, waitUntil } from "./harness";
import { createFor, deliveriesOf, eventsAfter, Receiver, writeMany } from "./receiver";
import {
  ALLOW_PRIVATE,
  attemptsOf,
  DEFAULTS,
  isStrictlyIncreasing,
  percentile,
  report,
  SHORT_BACKOFF,
  withDb,
  webhookSuite,
} from "./webhook-support";

/**
 * Batches and parallel delivery (docs/api.md section 10, "Throughput") with the real service as a child process,
 * across a SIGKILL and across two instances; the single-event cases are in webhook-delivery.test.ts and webhook-crash.test.ts.
 */

webhookSuite();

/** An endpoint's throughput settings (docs/api.md section 10), and whether it is active. */
async function setThroughput(t: TestDb, id: number, perRequest: number, consegna: "ordinata" | "parallela", attivo: boolean) {
  await t.pool.query("UPDATE webhook_endpoint SET eventi_per_richiesta = $2, consegna = $3, attivo = $4 WHERE id = $1", [
    id,
    perRequest,
    consegna,
    attivo,
  ]);
}

/**
 * Checks every request a receiver got as a message of an endpoint taking `perRequest` events each: verified;
 * with more than one, a `{ eventi }` body of at most `perRequest` events in increasing sequenza whose
 * webhook-id is msg_<first>_<last>, with one, the event alone under its own id; and the same events each
 * time one id comes again. Returns each message's events.
 */
function checkBatches(rx: Receiver, perRequest: number): Map<string, number[]> {
  const messages = new Map<string, number[]>();
  for (const a of rx.got) {
    expect(a.verified, a.verifyError).toBe(true);
    expect(a.sequenze.length).toBeLessThanOrEqual(perRequest);
    expect(isStrictlyIncreasing(a.sequenze)).toBe(true);
    if (perRequest > 1) expect(a.id).toBe(`msg_${a.sequenze[0]}_${a.sequenze.at(-1)}`);
    else expect(a.id).toBe(JSON.parse(a.body).id);
    const before = messages.get(a.id);
    if (before) expect(a.sequenze).toEqual(before);
    messages.set(a.id, a.sequenze);
  }
  return messages;
}

describe("webhook batches and parallel delivery, real service", () => {
  test("3b. batches: SIGKILL with batches in flight, restart: every event delivered; only the batches cut by the kill come again, whole, under their ids", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const ordered = new Receiver(() => ({ status: 204, delayMs: 300 }));
      const parallel = new Receiver(() => ({ status: 204, delayMs: 600 }));
      await ordered.open();
      await parallel.open();
      const eo = await createFor(c.t, ordered);
      const ep = await createFor(c.t, parallel);
      // Disabled while the burst is written, so that the batches are full from the first.
      await setThroughput(c.t, eo.id, 5, "ordinata", false);
      await setThroughput(c.t, ep.id, 3, "parallela", false);
      const env = { ...ALLOW_PRIVATE, ...SHORT_BACKOFF };
      const s = await launch({ databaseUrl: c.t.url, env });
      const burst = 60;
      await writeMany([s.base], c, burst, 5);
      await c.t.pool.query("UPDATE webhook_endpoint SET attivo = true WHERE id = ANY($1)", [[eo.id, ep.id]]);
      await waitUntil(
        "la consegna ordinata ha due lotti ricevuti e uno in corso, la parallela almeno due in corso",
        () => ordered.got.length >= 2 && ordered.pending.size === 1 && parallel.pending.size >= 2,
        30_000,
        5,
      );
      s.proc.kill("SIGKILL");
      const killedAt = Date.now();
      const cut = [ordered, parallel].map((rx) => new Set([...rx.pending].map((a) => a.id)));
      const countAtKill = ordered.got.length;
      // A batch answered just before the kill may not have been logged yet: it may come again too.
      const late = new Set(parallel.got.filter((a) => a.answered !== null && a.at > killedAt - 600 - 1_000).map((a) => a.id));
      await s.exit;

      const s2 = await launch({ databaseUrl: c.t.url, env });
      const all = (rx: Receiver) => new Set(rx.delivered().flatMap((a) => a.sequenze)).size;
      await waitUntil("tutti gli eventi consegnati dopo il riavvio", () => all(ordered) >= burst && all(parallel) >= burst, 60_000);
      await sleep(1_000);

      const events = await eventsAfter(s2.base, c.key, Math.min(eo.cursore, ep.cursore), "movimenti.registrati");
      expect(events).toHaveLength(burst);
      const sequences = events.map((e) => e.sequenza);
      const repeats: string[][] = [];
      for (const [i, [rx, per]] of (
        [
          [ordered, 5],
          [parallel, 3],
        ] as const
      ).entries()) {
        const messages = checkBatches(rx, per);
        // Every event in exactly one batch; every batch delivered.
        expect([...messages.values()].flat().sort((a, b) => a - b)).toEqual(sequences);
        expect(new Set(rx.delivered().map((a) => a.id))).toEqual(new Set(messages.keys()));
        const counts = new Map<string, number>();
        for (const a of rx.got) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
        const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
        expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
        for (const id of cut[i]!) expect(twice).toContain(id);
        for (const id of twice) expect(cut[i]!.has(id) || late.has(id), id).toBe(true);
        repeats.push(twice);
        // The log: one attempt per delivery, each delivered once; a cut attempt left no row.
        const endpoint = i === 0 ? eo.id : ep.id;
        const ds = await deliveriesOf(c.t, endpoint);
        expect(ds).toHaveLength(burst);
        for (const d of ds) expect(d).toMatchObject({ stato: "consegnata", tentativi: 1 });
        expect((await attemptsOf(c.t, endpoint)).filter((a) => a.esito === "consegnato")).toHaveLength(burst);
      }
      // Ordered: exactly the batch in flight again, first after the restart; batches in sequenza order.
      expect(repeats[0]).toEqual([...cut[0]!]);
      const order = ordered.got.map((a) => a.id);
      expect(order[countAtKill]).toBe(order[countAtKill - 1]);
      const flat = ordered.got.filter((_, j) => j !== countAtKill).flatMap((a) => a.sequenze);
      expect(flat).toEqual(sequences);
      expect(parallel.peak).toBeGreaterThan(1);
      expect(parallel.peak).toBeLessThanOrEqual(DEFAULTS.WEBHOOK_PARALLELISM);
      report("webhook 3b SIGKILL con lotti", {
        eventi: burst,
        lottiOrdinata: ordered.distinctIds().size,
        lottiParallela: parallel.distinctIds().size,
        tagliatiDalKill: cut.map((x) => x.size),
        ripetuti: repeats.map((x) => x.length),
        parallelaInVoloMax: parallel.peak,
        tutteDopoRiavvioMs: Math.max(...[ordered, parallel].map((rx) => rx.got.at(-1)!.at)) - killedAt,
      });
      await stop(s2);
    });
    report("webhook 3b durata", { ms: Date.now() - started });
  }, 240_000);

  test("4b. batches and parallel delivery, two instances, 600 events: each webhook-id once, batches in order, one logged attempt per delivery", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const ordered = new Receiver(() => ({ status: 204, delayMs: 20 }));
      const parallel = new Receiver(() => ({ status: 204, delayMs: 20 }));
      await ordered.open();
      await parallel.open();
      const eo = await createFor(c.t, ordered);
      const ep = await createFor(c.t, parallel);
      await setThroughput(c.t, eo.id, 10, "ordinata", true);
      await setThroughput(c.t, ep.id, 1, "parallela", true);
      const [a, b] = await Promise.all([
        launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE }),
        launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE }),
      ]);
      const n = 600;
      const writeStart = Date.now();
      await writeMany([a!.base, b!.base], c, n, 8);
      const all = (rx: Receiver) => new Set(rx.delivered().flatMap((x) => x.sequenze)).size;
      await waitUntil("600 eventi a ciascun endpoint", () => all(ordered) >= n && all(parallel) >= n, 240_000, 100);
      const drainedMs = Date.now() - writeStart;
      await sleep(1_500); // a late second attempt would show here
      const events = await eventsAfter(a!.base, c.key, Math.min(eo.cursore, ep.cursore), "movimenti.registrati");
      expect(events).toHaveLength(n);
      const sequences = events.map((e) => e.sequenza);
      for (const [rx, per] of [
        [ordered, 10],
        [parallel, 1],
      ] as const) {
        // Each message once, answered 2xx, verified; every event in exactly one.
        expect(rx.got.length).toBe(rx.distinctIds().size);
        expect(rx.delivered()).toHaveLength(rx.got.length);
        const messages = checkBatches(rx, per);
        expect([...messages.values()].flat().sort((x, y) => x - y)).toEqual(sequences);
      }
      // Ordered batches arrive in sequenza order; the parallel endpoint's bodies are the events themselves.
      expect(ordered.got.flatMap((x) => x.sequenze)).toEqual(sequences);
      const byId = new Map(events.map((e) => [e.id, e]));
      for (const x of parallel.got) expect(JSON.parse(x.body)).toEqual(byId.get(x.id));
      expect(parallel.peak).toBeLessThanOrEqual(DEFAULTS.WEBHOOK_PARALLELISM);
      for (const endpoint of [eo.id, ep.id]) {
        const { rows } = await c.t.pool.query(
          `SELECT count(*)::int AS tentativi, count(DISTINCT consegna_id)::int AS consegne,
                  count(*) FILTER (WHERE esito = 'consegnato')::int AS consegnati
             FROM webhook_tentativi WHERE endpoint_id = $1`,
          [endpoint],
        );
        expect(rows[0]).toEqual({ tentativi: n, consegne: n, consegnati: n });
        const ds = await deliveriesOf(c.t, endpoint);
        expect(ds.every((d) => d.stato === "consegnata" && d.tentativi === 1)).toBe(true);
      }
      const lag = (rx: Receiver) => {
        const xs = rx.got.flatMap((x) => {
          const body = JSON.parse(x.body) as { creato_il: string } | { eventi: { creato_il: string }[] };
          return ("eventi" in body ? body.eventi : [body]).map((e) => x.at - Date.parse(e.creato_il));
        });
        xs.sort((p, q) => p - q);
        return { p50: percentile(xs, 50), p95: percentile(xs, 95) };
      };
      report("webhook 4b due istanze, lotti e parallela", {
        eventi: n,
        lottiOrdinata: ordered.got.length,
        richiesteParallela: parallel.got.length,
        parallelaInVoloMax: parallel.peak,
        ritardoOrdinataMs: lag(ordered),
        ritardoParallelaMs: lag(parallel),
        tuttoConsegnatoMs: drainedMs,
      });
      await Promise.all([stop(a!), stop(b!)]);
    });
    report("webhook 4b durata", { ms: Date.now() - started });
  }, 360_000);
});
