import fs from "node:fs";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { ERROR_STATUS } from "../../src/server/lib/errors";
import { EVENT_TYPES } from "../../src/lib/domain-lists";
import { createEndpoint, newSecret } from "../../src/server/modules/webhooks/webhooks.service";
import type { TestDb } from "../../src/server/testing/db";
import { seedSession } from "../../src/server/testing/fixtures";
import {
  call,
  callUntilSettled,
  cleanup,
  ensureBuild,
  launch,
  sleep,
  snapshot,
  stop,
  waitUntil,
  type HttpResult,
  type Service,
} from "./harness";
import { inFlight, requestLock } from "./inflight";
import {
  type Arrival,
  type Ctx,
  closeReceivers,
  createFor,
  deliveriesOf,
  type Endpoint,
  eventsAfter,
  loadOne,
  Receiver,
  TZ,
  writeMany,
} from "./receiver";
import { articleCode, seedArticles, seedOrder, seedSupplier } from "./seed";
import { ALLOW_PRIVATE, attemptsOf, DEFAULTS, isStrictlyIncreasing, percentile, report, SHORT_BACKOFF, withDb } from "./webhook-support";

/**
 * Webhooks (docs/api.md section 10) with the real service as a child process: receivers are node:http servers on
 * 127.0.0.1 started here, every delivery is verified with the Standard Webhooks library, and what the
 * receivers saw is compared with GET /eventi and with the service's own log (webhook_consegne,
 * webhook_tentativi). Each test has its own database (no endpoint of one test is worked in another).
 *
 * Endpoints are created with the service's createEndpoint (as the CLI does) with private networks allowed,
 * except in the last test, where the running service is asked through its UI channel (an administrator's
 * session) and refuses.
 */

beforeAll(async () => ensureBuild((m) => console.log(`[affidabilità] ${m}`)), 600_000);
afterAll(async () => {
  await closeReceivers();
  await cleanup();
}, 120_000);
afterEach(async () => closeReceivers(), 30_000);

// ---- the service, the database, the writes ---------------------------------------------------------------

/** n one-row writes at `perSecond` (request i due at start + i / perSecond), `clients` at a time. */
async function writePaced(bases: string[], c: Ctx, n: number, perSecond: number, clients: number): Promise<void> {
  const start = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < n; i = next++) {
        const wait = start + (i * 1000) / perSecond - Date.now();
        if (wait > 0) await sleep(wait);
        await loadOne(bases[i % bases.length]!, c, i);
      }
    }),
  );
}

async function eventCount(t: TestDb): Promise<{ n: number; max: number }> {
  return (await t.pool.query("SELECT count(*)::int AS n, coalesce(max(id), 0)::int AS max FROM eventi")).rows[0];
}

const seqs = (as: Arrival[]) => as.map((a) => a.sequenza);
/** The pid among `pids` that owns the local TCP port of a connection (to a receiver), read from /proc. */
function ownerOfLocalPort(port: number, pids: number[]): number | undefined {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  let inode: string | undefined;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(hex)) inode = cols[9];
    }
    if (inode) break;
  }
  if (!inode) return undefined;
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return undefined;
}

// ---- the tests -------------------------------------------------------------------------------------------

describe("webhooks, real service", () => {
  test("1. every delivery is signed per Standard Webhooks; a tampered body, id, timestamp or a stale replay fail verification", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const rx = new Receiver();
      await rx.open();
      const ep = await createFor(c.t, rx, ["movimenti.registrati", "giacenze.allineate"]);
      const s = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
      await loadOne(s.base, c, 0);
      await loadOne(s.base, c, 1);
      const al = await call(s.base, "POST", "/giacenze/allinea", {
        key: c.key,
        body: { magazzino: c.m1, righe: [{ codice: articleCode("WH", 3), contato: 9 }] },
      });
      expect(al.status, al.text).toBe(200);
      expect(al.body.scritte).toBe(1);
      await waitUntil("3 consegne", () => rx.delivered().length >= 3, 20_000);
      await sleep(500);

      const events = await eventsAfter(s.base, c.key, ep.cursore, "movimenti.registrati,giacenze.allineate");
      expect(events.map((e) => e.tipo)).toEqual(["movimenti.registrati", "movimenti.registrati", "giacenze.allineate"]);
      expect(rx.got).toHaveLength(3);
      for (const [i, a] of rx.got.entries()) {
        const e = events[i]!;
        expect(a.verified, a.verifyError).toBe(true);
        expect(a.headers["webhook-id"]).toBe(e.id);
        expect(a.id).toMatch(/^evt_[0-9a-f]{32}$/);
        const body = JSON.parse(a.body);
        expect(Object.keys(body).sort()).toEqual(["creato_il", "dati", "id", "sequenza", "tipo"]);
        expect(body).toEqual(e);
        expect(a.headers["content-type"]).toBe("application/json");
        expect(a.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        const ts = Number(a.headers["webhook-timestamp"]);
        expect(ts * 1000).toBeGreaterThan(a.at - 5_000);
        expect(ts * 1000).toBeLessThanOrEqual(a.at + 1_000);
      }

      const d = rx.got[0]!;
      const wh = new Webhook(ep.segreto);
      const fails = (body: string, headers: Record<string, string>, message: string, secret = ep.segreto) => {
        let error: unknown;
        try {
          new Webhook(secret).verify(body, headers);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(WebhookVerificationError);
        expect((error as Error).message).toBe(message);
      };
      expect(wh.verify(d.body, d.headers)).toEqual(JSON.parse(d.body));
      // The body: a value changed, or one byte added.
      const altered = JSON.parse(d.body);
      (altered.dati.movimenti[0] as { quantita: string }).quantita = "1000";
      fails(JSON.stringify(altered), d.headers, "No matching signature found");
      fails(`${d.body} `, d.headers, "No matching signature found");
      // Another event's id on this body, and the id of this event with another's body.
      fails(d.body, { ...d.headers, "webhook-id": rx.got[1]!.id }, "No matching signature found");
      fails(rx.got[1]!.body, d.headers, "No matching signature found");
      // The timestamp: 10 minutes back is outside the tolerance; even one second back breaks the signature.
      const now = Math.floor(Date.now() / 1000);
      fails(d.body, { ...d.headers, "webhook-timestamp": String(now - 600) }, "Message timestamp too old");
      fails(
        d.body,
        { ...d.headers, "webhook-timestamp": String(Number(d.headers["webhook-timestamp"]) - 1) },
        "No matching signature found",
      );
      // Another secret.
      fails(d.body, d.headers, "No matching signature found", newSecret());
      // The genuine delivery replayed 10 minutes later.
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 600_000 });
      try {
        fails(d.body, d.headers, "Message timestamp too old");
      } finally {
        vi.useRealTimers();
      }
      expect(wh.verify(d.body, d.headers)).toEqual(JSON.parse(d.body));
      await stop(s);
    });
    report("webhook 1 firme", { ms: Date.now() - started });
  }, 180_000);

  test("2. receiver down (port closed) for 60 s: the head is retried with backoff, then every event arrives once, in sequenza order", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const rx = new Receiver();
      await rx.open();
      const ep = await createFor(c.t, rx);
      const s = await launch({ databaseUrl: c.t.url, env: { ...ALLOW_PRIVATE, ...SHORT_BACKOFF } });
      // It works before the outage.
      await loadOne(s.base, c, 0);
      await waitUntil("la prima consegna", () => rx.delivered().length === 1, 20_000);

      await rx.close();
      const downAt = Date.now();
      const outageWrites = 10;
      for (let i = 1; i <= outageWrites; i++) {
        await loadOne(s.base, c, i);
        await sleep(500);
      }
      await sleep(downAt + 60_000 - Date.now());
      const during = await attemptsOf(c.t, ep.id);
      const connectionsBefore = rx.connections;
      await rx.open(); // the same port
      const upAt = Date.now();
      await waitUntil("tutte le consegne dopo il ritorno", () => rx.delivered().length >= 1 + outageWrites, 60_000);
      await sleep(1_000); // nothing more comes

      const events = await eventsAfter(s.base, c.key, ep.cursore, "movimenti.registrati");
      expect(events).toHaveLength(1 + outageWrites);
      // During the outage: only the head (the first event written while down) was attempted, refused by the closed port.
      const failed = during.filter((a) => a.esito !== "consegnato");
      const head = events[1]!.sequenza;
      expect(failed.length).toBeGreaterThanOrEqual(10);
      for (const a of failed) {
        expect(a.esito).toBe("errore_rete");
        expect(a.stato_http).toBeNull();
        expect(a.risposta).toContain("ECONNREFUSED");
        expect(a.evento_id).toBe(head);
      }
      // Backoff base 500 ms × 3^(n-1), capped at 3 s, jitter ×[0.75, 1.25): the gaps between attempts.
      const gaps = failed.slice(1).map((a, i) => a.iniziato_ms - failed[i]!.iniziato_ms);
      gaps.forEach((g, i) => {
        const plain = Math.min(500 * 3 ** i, 3000);
        expect(g, `intervallo ${i + 1}`).toBeGreaterThanOrEqual(plain * 0.75 - 20);
        expect(g, `intervallo ${i + 1}`).toBeLessThanOrEqual(plain * 1.25 + 1_000);
      });

      const ok = rx.delivered();
      expect(ok.length).toBe(1 + outageWrites);
      expect(rx.got.length).toBe(1 + outageWrites); // nothing reached the receiver that it did not answer 2xx
      expect(new Set(ok.map((a) => a.id)).size).toBe(ok.length); // none twice
      expect(seqs(ok)).toEqual(events.map((e) => e.sequenza)); // every one, in sequenza order
      expect(ok.map((a) => a.id)).toEqual(events.map((e) => e.id));
      for (const a of ok) expect(a.verified, a.verifyError).toBe(true);
      const firstBack = ok[1]!.at - upAt;
      expect(firstBack).toBeLessThanOrEqual(3_000 * 1.25 + 1_500);

      const ds = await deliveriesOf(c.t, ep.id);
      expect(ds.map((d) => d.stato)).toEqual(Array(1 + outageWrites).fill("consegnata"));
      const all = await attemptsOf(c.t, ep.id);
      expect(all.filter((a) => a.esito === "consegnato").map((a) => a.evento_id)).toEqual(events.map((e) => e.sequenza));
      expect(ds.find((d) => d.evento_id === head)!.tentativi).toBe(all.filter((a) => a.evento_id === head).length);
      report("webhook 2 ricevitore giù 60 s", {
        tentativiFalliti: failed.length,
        intervalliMs: gaps.map(Math.round),
        primaConsegnaDopoRitornoMs: firstBack,
        tutteDopoRitornoMs: ok.at(-1)!.at - upAt,
        connessioniPrimaDelRitorno: connectionsBefore,
      });
      await stop(s);
    });
    report("webhook 2 durata", { ms: Date.now() - started });
  }, 240_000);

  test("3. SIGKILL with deliveries in flight, restart: every event delivered; only the attempts cut by the kill come twice", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const rxs = [0, 1, 2].map(() => new Receiver(() => ({ status: 204, delayMs: 300 })));
      for (const rx of rxs) await rx.open();
      const eps: Endpoint[] = [];
      for (const rx of rxs) eps.push(await createFor(c.t, rx));
      const env = { ...ALLOW_PRIVATE, ...SHORT_BACKOFF };
      const s = await launch({ databaseUrl: c.t.url, env });
      const burst = 30;
      await writeMany([s.base], c, burst, 5);
      await waitUntil(
        "ogni ricevitore ha ricevuto 2 consegne e ne ha una in corso",
        () => rxs.every((rx) => rx.got.length >= 2 && rx.pending.size === 1),
        30_000,
        5,
      );
      s.proc.kill("SIGKILL");
      const killedAt = Date.now();
      const cut = rxs.map((rx) => [...rx.pending].map((a) => a.id));
      const lastBefore = rxs.map((rx) => rx.got.at(-1)!.id);
      const countAtKill = rxs.map((rx) => rx.got.length);
      await s.exit;
      for (const ids of cut) expect(ids).toHaveLength(1);

      const s2 = await launch({ databaseUrl: c.t.url, env });
      await waitUntil("tutte le consegne dopo il riavvio", () => rxs.every((rx) => rx.distinctIds().size >= burst), 60_000);
      await sleep(1_000);

      const events = await eventsAfter(s2.base, c.key, Math.min(...eps.map((e) => e.cursore)), "movimenti.registrati");
      expect(events).toHaveLength(burst);
      let duplicates = 0;
      for (const [i, rx] of rxs.entries()) {
        for (const a of rx.got) expect(a.verified, a.verifyError).toBe(true);
        // None lost: the delivered set is the set of events.
        expect([...rx.distinctIds()].sort()).toEqual(events.map((e) => e.id).sort());
        expect(new Set(rx.delivered().map((a) => a.sequenza))).toEqual(new Set(events.map((e) => e.sequenza)));
        // Twice: only the attempt that was in flight at the kill (the service never logged it).
        const counts = new Map<string, number>();
        for (const a of rx.got) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
        const twice = [...counts].filter(([, n]) => n > 1);
        expect(twice).toEqual([[cut[i]![0]!, 2]]);
        expect(cut[i]![0]).toBe(lastBefore[i]);
        duplicates += twice.length;
        // Order: increasing sequenza, the cut one repeated first after the restart.
        const order = seqs(rx.got);
        expect(order[countAtKill[i]!]).toBe(order[countAtKill[i]! - 1]);
        expect(isStrictlyIncreasing([...order.slice(0, countAtKill[i]), ...order.slice(countAtKill[i]! + 1)])).toBe(true);
        // The log: one attempt per delivery, every one delivered; the cut attempt left no row.
        const ds = await deliveriesOf(c.t, eps[i]!.id);
        expect(ds).toHaveLength(burst);
        for (const d of ds) expect(d).toMatchObject({ stato: "consegnata", tentativi: 1 });
        const at = await attemptsOf(c.t, eps[i]!.id);
        expect(at).toHaveLength(burst);
        expect(at.every((a) => a.esito === "consegnato")).toBe(true);
      }
      expect(duplicates).toBeLessThanOrEqual(DEFAULTS.WEBHOOK_WORKERS);
      report("webhook 3 SIGKILL", {
        eventi: burst,
        endpoint: rxs.length,
        ricevuteAlKill: countAtKill,
        tagliateDalKill: cut.map((x) => x.length),
        doppie: duplicates,
        connessioneChiusaDopoKillMs: rxs.map((rx) => rx.got[countAtKill[rxs.indexOf(rx)]! - 1]!.closedAt! - killedAt),
        tutteDopoRiavvioMs: Math.max(...rxs.map((rx) => rx.got.at(-1)!.at)) - killedAt,
      });
      await stop(s2);
    });
    report("webhook 3 durata", { ms: Date.now() - started });
  }, 240_000);

  test("4. two instances, one receiver, 1,000 events: each webhook-id once, one logged attempt per delivery; latency", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const rx = new Receiver();
      await rx.open();
      const ep = await createFor(c.t, rx);
      const [a, b] = await Promise.all([
        launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE }),
        launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE }),
      ]);
      const n = 1_000;
      const steady = 500;
      // Which instance sent a delivery: the owner of its connection's source port (every 10th delivery).
      rx.identify = (port) => {
        const owner = ownerOfLocalPort(port, [a!.pid, b!.pid]);
        return owner === a!.pid ? "A" : owner === b!.pid ? "B" : "?";
      };
      // Half at a steady 40 writes/s (below what one endpoint delivers: the workers catch up and let go of it,
      // so the instances take it in turns), half in a burst of 8 concurrent clients (a backlog builds up).
      const writeStart = Date.now();
      await writePaced([a!.base, b!.base], c, steady, 40, 2);
      const steadyMs = Date.now() - writeStart;
      const split = (await eventCount(c.t)).max;
      const burstStart = Date.now();
      await writeMany([a!.base, b!.base], c, n - steady, 8, steady);
      const burstMs = Date.now() - burstStart;
      await waitUntil("1000 consegne", () => rx.distinctIds().size >= n, 240_000, 100);
      const allDeliveredMs = Date.now() - writeStart;
      await sleep(1_500); // a late second attempt would show here
      const events = await eventsAfter(a!.base, c.key, ep.cursore, "movimenti.registrati");
      expect(events).toHaveLength(n);
      // Each webhook-id exactly once, every one answered 2xx and verified, in sequenza order.
      expect(rx.got).toHaveLength(n);
      expect(rx.distinctIds().size).toBe(n);
      expect(rx.delivered()).toHaveLength(n);
      expect(rx.got.map((x) => x.id)).toEqual(events.map((e) => e.id));
      const byId = new Map(events.map((e) => [e.id, e]));
      for (const x of rx.got) {
        expect(x.verified, x.verifyError).toBe(true);
        expect(JSON.parse(x.body)).toEqual(byId.get(x.id));
      }
      // One attempt row per delivery, each delivered at its first attempt.
      const { rows } = await c.t.pool.query(
        `SELECT count(*)::int AS tentativi, count(DISTINCT consegna_id)::int AS consegne,
                count(*) FILTER (WHERE esito = 'consegnato')::int AS consegnati
           FROM webhook_tentativi WHERE endpoint_id = $1`,
        [ep.id],
      );
      expect(rows[0]).toEqual({ tentativi: n, consegne: n, consegnati: n });
      const ds = await deliveriesOf(c.t, ep.id);
      expect(ds).toHaveLength(n);
      expect(ds.every((d) => d.stato === "consegnata" && d.tentativi === 1)).toBe(true);

      const latencies = (xs: Arrival[]) => xs.map((x) => x.at - x.creatoMs).sort((p, q) => p - q);
      const stats = (xs: Arrival[]) => {
        const lat = latencies(xs);
        return { n: lat.length, p50: percentile(lat, 50), p95: percentile(lat, 95), max: lat.at(-1)! };
      };
      const all = stats(rx.got);
      const calm = stats(rx.got.filter((x) => x.sequenza <= split));
      const burst = stats(rx.got.filter((x) => x.sequenza > split));
      const burstDrainedMs = Math.max(...rx.got.map((x) => x.at)) - burstStart;
      console.log(
        `[affidabilità] WEBHOOK LATENCY (test 4: event creato_il → receiver arrival, 2 instances, 1 endpoint, 1 receiver): ` +
          `all ${all.n} deliveries p50 ${all.p50} ms, p95 ${all.p95} ms, max ${all.max} ms | ` +
          `steady ${calm.n} writes at 40/s (${steadyMs} ms): p50 ${calm.p50} ms, p95 ${calm.p95} ms, max ${calm.max} ms | ` +
          `burst ${burst.n} writes by 8 clients in ${burstMs} ms (${Math.round((burst.n * 1000) / burstMs)}/s), delivered within ${burstDrainedMs} ms ` +
          `(${Math.round((burst.n * 1000) / burstDrainedMs)} deliveries/s): p50 ${burst.p50} ms, p95 ${burst.p95} ms, max ${burst.max} ms`,
      );
      const senders: Record<string, number> = {};
      for (const x of rx.got) if (x.by) senders[x.by] = (senders[x.by] ?? 0) + 1;
      report("webhook 4 mittente (una consegna su 10, dalla porta sorgente)", { ...senders, totaleMs: allDeliveredMs });
      // The latency is reported, not asserted (a slower or busier machine must not fail the suite): speed is
      // the bench's (webhook-portata, eventi-webhook).
      await Promise.all([stop(a!), stop(b!)]);
    });
    report("webhook 4 durata", { ms: Date.now() - started });
  }, 360_000);

  test("5. a write that does not commit leaves no event: refusals, and a SIGKILL before COMMIT", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const N = 5_000;
      const ids = await seedArticles(c.t.pool, "RB", N);
      await seedArticles(c.t.pool, "LT", 1, { lotti: true });
      const f1 = await seedSupplier(c.t.pool, "F1");
      const order = await seedOrder(c.t.pool, {
        numero: "RB-1",
        fornitore: f1,
        magazzino: c.m1,
        righe: [{ articolo: ids[0]!, quantita: 5 }],
      });
      const rx = new Receiver();
      await rx.open();
      const ep = await createFor(c.t, rx, EVENT_TYPES);
      let s: Service = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
      const righe = (contato: number) => ids.map((_, i) => ({ codice: articleCode("RB", i + 1), contato }));
      const lastEventSeq = async (): Promise<number> => (await c.t.pool.query("SELECT last_value::int AS v FROM eventi_id_seq")).rows[0].v;

      const warm = await call(s.base, "POST", "/giacenze/allinea", {
        key: c.key,
        body: { magazzino: c.m1, righe: righe(5) },
        idem: "warm-allinea",
      });
      expect(warm.status, warm.text.slice(0, 300)).toBe(200);
      expect(warm.body.scritte).toBe(N);
      await waitUntil("la consegna dell'allineamento di riscaldamento", () => rx.delivered().length === 1, 90_000);
      const before = await eventCount(c.t);
      const snap = await snapshot(c.t.pool);

      // Refusals: nothing written, no event.
      const refusals: [string, HttpResult][] = [];
      const refuse = async (what: string, p: string, body: unknown, check: (r: HttpResult) => void) => {
        const r = await call(s.base, "POST", p, { key: c.key, body });
        check(r);
        refusals.push([what, r]);
        expect(await eventCount(c.t), what).toEqual(before);
      };
      await refuse(
        "movimento su un'operazione inesistente",
        "/movimenti",
        { natura: "carico", magazzino: c.m1, operazione: 999_999, righe: [{ codice: articleCode("WH", 1), quantita: 1 }] },
        (r) => {
          expect(r.status, r.text).toBe(422);
          expect(r.body.codice).toBe("operazione_non_trovata");
        },
      );
      await refuse(
        "scarico da un lotto vuoto",
        "/movimenti",
        { natura: "scarico", magazzino: c.m1, righe: [{ codice: articleCode("LT", 1), quantita: 1, lotto: "NESSUNO" }] },
        (r) => {
          expect(r.status, r.text).toBe(200);
          expect(r.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 1 });
        },
      );
      await refuse("arrivo oltre l'ordinato", "/arrivi", { magazzino: c.m1, ddt: "RB", riga: order.righe[0], quantita: 6 }, (r) => {
        expect(r.status, r.text).toBe(422);
        expect(r.body.codice).toBe("quantita_eccessiva");
      });
      await refuse(
        "allineamento rifiutato (articolo ripetuto)",
        "/giacenze/allinea",
        {
          magazzino: c.m1,
          righe: [
            { codice: articleCode("RB", 1), contato: 1 },
            { codice: articleCode("RB", 1), contato: 2 },
          ],
        },
        (r) => {
          expect(r.status, r.text).toBe(200);
          expect(r.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 2 });
          for (const x of r.body.righe) expect(x.errore.codice).toBe("articolo_ripetuto");
        },
      );
      await refuse("allineamento simulato", "/giacenze/allinea", { magazzino: c.m1, simula: true, righe: righe(6).slice(0, 10) }, (r) => {
        expect(r.status, r.text).toBe(200);
        expect(r.body.operazione).toBeNull();
      });
      await refuse(
        "allineamento su un magazzino inesistente",
        "/giacenze/allinea",
        { magazzino: 999_999, righe: righe(6).slice(0, 1) },
        (r) => {
          expect(r.status, r.text).toBeGreaterThanOrEqual(400);
          expect(r.status).toBeLessThan(500);
        },
      );
      expect(await snapshot(c.t.pool)).toEqual(snap);

      // SIGKILL in the middle of a 5,000-row alignment: its transaction never commits, its event never exists.
      // The count reads its balances under lock before it sends its last statement with COMMIT, so a balance
      // held by another transaction stops it there, mid-transaction, for as long as the test needs: the kill
      // lands before COMMIT is sent however fast the machine is.
      const seqBefore = await lastEventSeq();
      const crashBody = { magazzino: c.m1, righe: righe(7) };
      const lock = requestLock(c.keyId, "/giacenze/allinea", "crash-allinea");
      const holder = await c.t.pool.connect();
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2 FOR UPDATE", [ids[N - 1], c.m1]);
      const sentAt = Date.now();
      const pending = call(s.base, "POST", "/giacenze/allinea", { key: c.key, body: crashBody, idem: "crash-allinea" }).then(
        () => true,
        () => false,
      );
      const blocked = async () => {
        const f = await inFlight(c.t.pool, lock);
        if (!f) return false;
        const w = await c.t.pool.query("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", [f.pid]);
        return w.rows[0]?.wait_event_type === "Lock";
      };
      await waitUntil("l'allineamento attende il saldo tenuto dal test", blocked, 60_000, 5);
      const seen = { firstSeenMs: Date.now() - sentAt };
      s.proc.kill("SIGKILL");
      const killedAt = Date.now() - sentAt;
      expect(await pending, "the client got no answer").toBe(false);
      await s.exit;
      await holder.query("ROLLBACK");
      holder.release();
      await waitUntil("la transazione orfana termina", async () => !(await inFlight(c.t.pool, lock)), 120_000, 20);
      expect(await eventCount(c.t)).toEqual(before);
      expect(await snapshot(c.t.pool)).toEqual(snap);
      const seqAfterKill = await lastEventSeq();

      // SIGKILL after the event row was written, before COMMIT: the ledger's statement has drawn the event's
      // sequenza (the sequence moved) and the transaction is still open (it stores the idempotent response
      // next). The event row existed, uncommitted: it must vanish with the transaction. The window is short:
      // a try whose COMMIT slips in before the kill is a committed write (with its one event) and is tried
      // again with another key, three times at most.
      let cutAfterEvent: Record<string, unknown> | undefined;
      const missed: string[] = [];
      let committedExtra = 0;
      for (let attempt = 1; attempt <= 3 && !cutAfterEvent; attempt++) {
        s = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
        const idem = `crash-dopo-evento-${attempt}`;
        const seq0 = await lastEventSeq();
        const count0 = await eventCount(c.t);
        const lock2 = requestLock(c.keyId, "/giacenze/allinea", idem);
        const sent = Date.now();
        let answered = false;
        const req = call(s.base, "POST", "/giacenze/allinea", {
          key: c.key,
          body: { magazzino: c.m1, righe: righe(10 + attempt) },
          idem,
        }).then(
          (r) => {
            answered = true;
            return r.status;
          },
          () => null,
        );
        let seenOpen: { seq: number; xid: string | null; ms: number } | undefined;
        while (!answered && Date.now() - sent < 30_000) {
          const f = await inFlight(c.t.pool, lock2);
          const seq = await lastEventSeq();
          if (f?.xid && seq > seq0 && (await inFlight(c.t.pool, lock2))?.xid) {
            seenOpen = { seq, xid: f.xid, ms: Date.now() - sent };
            break;
          }
          await sleep(1);
        }
        if (seenOpen) s.proc.kill("SIGKILL");
        const status = await req;
        if (seenOpen) await s.exit;
        await stop(s); // already dead after a kill; a plain stop otherwise
        await waitUntil("la transazione orfana termina", async () => !(await inFlight(c.t.pool, lock2)), 120_000, 20);
        const count1 = await eventCount(c.t);
        if (seenOpen && status === null && count1.n === count0.n) {
          cutAfterEvent = { tentativo: attempt, ...seenOpen, sequenzaDopo: await lastEventSeq(), eventi: count1 };
          expect(count1).toEqual(count0);
          expect(seenOpen.seq).toBeGreaterThan(count0.max);
          expect((await c.t.pool.query("SELECT count(*)::int AS n FROM eventi WHERE id = $1", [seenOpen.seq])).rows[0].n).toBe(0);
        } else {
          // Committed before the kill landed (or before it was seen in the window): one event, as any write.
          missed.push(`${attempt}: ${seenOpen ? "COMMIT prima del colpo" : "finestra non vista"} (risposta ${status})`);
          expect(count1.n).toBe(count0.n + 1);
          committedExtra++;
        }
      }
      expect(cutAfterEvent, `nessun colpo tra la scrittura dell'evento e il COMMIT: ${missed.join("; ")}`).toBeDefined();
      const baseline = { n: before.n + committedExtra };

      // Restarted: the first request's retry with the same key commits once, with exactly one event.
      s = await launch({ databaseUrl: c.t.url, env: ALLOW_PRIVATE });
      await waitUntil("le consegne dei tentativi arrivati al COMMIT", () => rx.delivered().length === 1 + committedExtra, 60_000);
      await sleep(500);
      expect(rx.got).toHaveLength(1 + committedExtra);
      const retry = await callUntilSettled(s.base, "POST", "/giacenze/allinea", { key: c.key, body: crashBody, idem: "crash-allinea" });
      expect(retry.status, retry.text.slice(0, 300)).toBe(200);
      expect(retry.body).toMatchObject({ scritte: N, rifiutate: 0 });
      const after = await eventCount(c.t);
      expect(after.n).toBe(baseline.n + 1);
      await waitUntil("la consegna del nuovo tentativo", () => rx.delivered().length === 2 + committedExtra, 60_000);
      await sleep(500);
      const events = await eventsAfter(s.base, c.key, ep.cursore);
      expect(events.map((e) => e.tipo)).toEqual(Array(2 + committedExtra).fill("giacenze.allineate"));
      expect(events.at(-1)!.dati.operazione).toBe(retry.body.operazione);
      expect((events.at(-1)!.dati.movimenti as unknown[]).length).toBe(N);
      expect(rx.got.map((x) => x.id)).toEqual(events.map((e) => e.id));
      for (const x of rx.got) expect(x.verified, x.verifyError).toBe(true);
      report("webhook 5 nessun evento senza commit", {
        rifiuti: refusals.map(([w, r]) => `${w}: ${r.status} ${r.body?.codice ?? ""}`.trim()),
        riscaldamentoMs: warm.ms,
        vistaScrivereMs: seen.firstSeenMs,
        uccisaMs: killedAt,
        sequenzaEventiPrimaDopoKill: [seqBefore, seqAfterKill],
        colpoDopoEvento: cutAfterEvent,
        mancati: missed,
        eventi: { prima: before, dopo: after },
      });
      await stop(s);
    });
    report("webhook 5 durata", { ms: Date.now() - started });
  }, 300_000);

  test("6. a receiver that hangs is cut at 10 s and retried; another endpoint keeps receiving without delay", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      expect(DEFAULTS.WEBHOOK_TIMEOUT_MS).toBe(10_000);
      const hanging = new Receiver((_, n) => (n === 1 ? "hang" : { status: 204 }));
      const fast = new Receiver();
      await hanging.open();
      await fast.open();
      const eh = await createFor(c.t, hanging);
      const ef = await createFor(c.t, fast);
      // The timeout is the default (10 s): WEBHOOK_TIMEOUT_MS is not set.
      const s = await launch({ databaseUrl: c.t.url, env: { ...ALLOW_PRIVATE, ...SHORT_BACKOFF, WEBHOOK_TIMEOUT_MS: "" } });
      await loadOne(s.base, c, 0);
      await waitUntil("il primo evento arriva a entrambi", () => hanging.got.length === 1 && fast.delivered().length === 1, 20_000);
      const hungAt = hanging.got[0]!.at;
      const written: number[] = [];
      for (let i = 1; i <= 5; i++) {
        await loadOne(s.base, c, i);
        written.push(Date.now());
        await sleep(1_000);
      }
      await waitUntil("il nuovo tentativo al ricevitore bloccato", () => hanging.got.length >= 2, 20_000);
      await waitUntil("tutto consegnato", () => hanging.delivered().length === 6 && fast.delivered().length === 6, 20_000);
      await sleep(500);

      const events = await eventsAfter(s.base, c.key, Math.min(eh.cursore, ef.cursore), "movimenti.registrati");
      expect(events).toHaveLength(6);
      // The hanging receiver: the first attempt cut by the service at 10 s, the same event again, then the rest in order.
      const h = hanging.got;
      expect(h.map((x) => x.id)).toEqual([events[0]!.id, ...events.map((e) => e.id)]);
      expect(h[0]!.answered).toBeNull();
      const cutAfter = h[0]!.closedAt! - hungAt;
      expect(cutAfter).toBeGreaterThanOrEqual(9_900);
      expect(cutAfter).toBeLessThanOrEqual(10_800);
      const retryAfter = h[1]!.at - hungAt;
      expect(retryAfter).toBeGreaterThanOrEqual(10_000 + 500 * 0.75 - 100);
      expect(retryAfter).toBeLessThanOrEqual(10_000 + 500 * 1.25 + 1_500);
      const at = await attemptsOf(c.t, eh.id);
      expect(at).toHaveLength(7);
      expect(at[0]).toMatchObject({ evento_id: events[0]!.sequenza, esito: "timeout", stato_http: null });
      expect(at[0]!.durata_ms).toBeGreaterThanOrEqual(9_990);
      expect(at[0]!.durata_ms).toBeLessThanOrEqual(10_500);
      expect(at[0]!.risposta).toContain("10000 ms");
      expect(at.slice(1).map((x) => [x.evento_id, x.esito])).toEqual(events.map((e) => [e.sequenza, "consegnato"]));

      // The other endpoint: every event while the first hung, each within 2 s of its write.
      const f = fast.delivered();
      expect(f.map((x) => x.id)).toEqual(events.map((e) => e.id));
      const lat = f.map((x) => x.at - x.creatoMs);
      const afterWrite = f.slice(1).map((x, i) => x.at - written[i]!);
      for (const l of lat) expect(l).toBeLessThanOrEqual(2_000);
      for (const l of afterWrite) expect(l).toBeLessThanOrEqual(2_000);
      for (const x of f.slice(1)) expect(x.at).toBeLessThan(hungAt + 10_000);
      expect((await attemptsOf(c.t, ef.id)).map((x) => x.esito)).toEqual(Array(6).fill("consegnato"));
      for (const x of [...h.slice(1), ...f]) expect(x.verified, x.verifyError).toBe(true);
      report("webhook 6 ricevitore bloccato", {
        taglioMs: cutAfter,
        durataTentativoMs: at[0]!.durata_ms,
        nuovoTentativoDopoMs: retryAfter,
        altroEndpointLatenzaMs: lat,
        altroEndpointDopoScritturaMs: afterWrite,
      });
      await stop(s);
    });
    report("webhook 6 durata", { ms: Date.now() - started });
  }, 180_000);

  test("7a. private networks: without WEBHOOK_ALLOW_PRIVATE_NETWORKS the running service refuses to create an endpoint on them", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const rx = new Receiver();
      await rx.open();
      expect(DEFAULTS.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe("false");
      const s = await launch({ databaseUrl: c.t.url, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "" } });
      // An administrator on the UI channel (screen /webhook): signed in, the list answers; every private URL is refused.
      const { cookie, csrf } = await seedSession(c.t.prisma, "admin", "amministratore");
      const headers = { cookie, "x-csrf-token": csrf };
      const list = await call(s.base, "GET", "/api/trpc/webhooks.list", { headers });
      expect(list.status, list.text).toBe(200);
      expect(list.body.result.data.endpoint).toEqual([]);
      const refused: string[] = [];
      for (const url of [
        `http://127.0.0.1:${rx.port}/hook`,
        `http://localhost:${rx.port}/hook`,
        `http://[::1]:${rx.port}/hook`,
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest",
      ]) {
        const r = await call(s.base, "POST", "/api/trpc/webhooks.create", { headers, body: { url, eventi: ["movimenti.registrati"] } });
        expect(r.status, `${url}: ${r.text}`).toBe(ERROR_STATUS.richiesta_non_valida);
        expect(r.body.error.data.codice).toBe("richiesta_non_valida");
        expect(r.body.error.data.campo).toBe("url");
        expect(r.body.error.message).toContain("rete privata");
        refused.push(url);
      }
      expect((await c.t.pool.query("SELECT count(*)::int AS n FROM webhook_endpoint")).rows[0].n).toBe(0);
      // The service function with the configuration of an unset flag (what the CLI passes) refuses too.
      const direct = await createEndpoint(
        c.t.prisma,
        "riga_di_comando",
        { url: `http://localhost:${rx.port}/hook`, eventi: ["movimenti.registrati"] },
        { allowPrivate: DEFAULTS.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true", timeZone: TZ },
      ).then(
        () => undefined,
        (e: unknown) => e as { codice?: string; campo?: string },
      );
      expect(direct).toMatchObject({ codice: "richiesta_non_valida", campo: "url" });
      expect(rx.connections).toBe(0);
      report("webhook 7a reti private alla creazione", { rifiutati: refused });
      await stop(s);
    });
    report("webhook 7a durata", { ms: Date.now() - started });
  }, 120_000);

  test("7b. private networks: endpoints created with the flag are not delivered to without it (rete_privata logged, nothing received)", async () => {
    const started = Date.now();
    await withDb(async (c) => {
      const rx = new Receiver();
      await rx.open();
      // Created while the flag was on (an installation that later turned it off): one by address, one by name.
      const ipEp = await createFor(c.t, rx);
      const nameEp = await createFor(c.t, rx, ["movimenti.registrati"], `http://localhost:${rx.port}/hook`);
      rx.secret = ipEp.segreto; // the only one that will reach it, at the end, with the flag on
      let s = await launch({ databaseUrl: c.t.url, env: { ...SHORT_BACKOFF, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "" } });
      await loadOne(s.base, c, 0);
      await loadOne(s.base, c, 1);
      const events = await eventsAfter(s.base, c.key, ipEp.cursore, "movimenti.registrati");
      expect(events).toHaveLength(2);
      // Backoff 0.5 s, 1.5 s: three attempts take about 2 s; 10 s is plenty.
      const enough = async (ep: Endpoint) => (await attemptsOf(c.t, ep.id)).length >= 3;
      await waitUntil("3 tentativi per endpoint", async () => (await enough(nameEp)) && (await enough(ipEp)), 10_000, 100).catch(() => {});
      await sleep(500);
      const logged: Record<string, unknown> = {};
      for (const [name, ep] of [
        ["localhost", nameEp],
        ["127.0.0.1", ipEp],
      ] as const) {
        const at = await attemptsOf(c.t, ep.id);
        const ds = await deliveriesOf(c.t, ep.id);
        const serviceErrors = s
          .output()
          .split("\n")
          .filter((l) => l.startsWith("Webhook:"));
        const where = `endpoint ${name}: tentativi ${JSON.stringify(at.map((a) => a.esito))}, consegne ${JSON.stringify(ds)}; log del servizio: ${JSON.stringify([...new Set(serviceErrors)])} ×${serviceErrors.length}`;
        // Soft: the other endpoint and the rest of the test still run and report.
        expect.soft(at.length, where).toBeGreaterThanOrEqual(3);
        for (const a of at) {
          expect.soft(a, where).toMatchObject({ esito: "rete_privata", stato_http: null, evento_id: events[0]!.sequenza });
          expect.soft(a.risposta, where).toContain(`${name} corrisponde a `);
          expect.soft(a.risposta, where).toContain("rete privata");
        }
        expect.soft(ds.map((d) => d.stato)).toEqual(["in_attesa", "in_attesa"]);
        logged[name] = {
          tentativi: at.length,
          primo: at[0]?.risposta ?? null,
          logServizio: [...new Set(serviceErrors)],
          righeLog: serviceErrors.length,
        };
      }
      // Nothing reached the receiver: not a request, not even a connection.
      expect(rx.got).toHaveLength(0);
      expect(rx.connections).toBe(0);
      report("webhook 7b reti private alla consegna", logged);
      await stop(s);

      // The flag on again (the localhost endpoint disabled: its name may resolve to ::1 first): the pending
      // deliveries go through to the same receiver, so what stopped them was the guard.
      await c.t.pool.query("UPDATE webhook_endpoint SET attivo = false WHERE id = $1", [nameEp.id]);
      s = await launch({ databaseUrl: c.t.url, env: { ...SHORT_BACKOFF, ...ALLOW_PRIVATE } });
      await waitUntil("le consegne con il permesso", () => rx.delivered().length === 2, 30_000);
      expect(rx.delivered().map((x) => x.id)).toEqual(events.map((e) => e.id));
      for (const x of rx.got) expect(x.verified, x.verifyError).toBe(true);
      await stop(s);
    });
    report("webhook 7b durata", { ms: Date.now() - started });
  }, 180_000);
});
