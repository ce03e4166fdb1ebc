import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, test, vi } from "vitest";
import { newSecret } from "../../src/server/modules/webhooks/webhooks.service";
import { call, launch, sleep, stop, waitUntil } from "./harness";
import { createFor, deliveriesOf, eventsAfter, loadOne, Receiver } from "./receiver";
import { articleCode } from "./seed";
import { ALLOW_PRIVATE, attemptsOf, DEFAULTS, report, SHORT_BACKOFF, seqs, withDb, webhookSuite } from "./webhook-support";

/**
 * Webhooks (docs/api.md section 10) with the real service as a child process: receivers are node:http servers on
 * 127.0.0.1 started here, every delivery is verified with the Standard Webhooks library, and what the
 * receivers saw is compared with GET /eventi and with the service's own log (webhook_consegne,
 * webhook_tentativi). Each test has its own database (no endpoint of one test is worked in another).
 *
 * Here: the signature of every delivery, a receiver down then back, a receiver that hangs. Endpoints are created with
 * the service's createEndpoint (as the CLI does) with private networks allowed. The other cases: webhook-crash,
 * webhook-uncommitted and webhook-private (.test.ts).
 */

webhookSuite();

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
});
