import { describe, expect, test } from "vitest";
import { ERROR_STATUS } from "../../src/server/lib/errors";
import { createEndpoint } from "../../src/server/modules/webhooks/webhooks.service";
import { seedSession } from "../../src/server/testing/fixtures";
import { call, launch, sleep, stop, waitUntil } from "./harness";
import { createFor, deliveriesOf, type Endpoint, eventsAfter, loadOne, Receiver, TZ } from "./receiver";
import { ALLOW_PRIVATE, attemptsOf, DEFAULTS, report, SHORT_BACKOFF, withDb, webhookSuite } from "./webhook-support";

/**
 * Webhooks (docs/api.md section 10) with the real service as a child process: receivers are node:http servers on
 * 127.0.0.1 started here, every delivery is verified with the Standard Webhooks library, and what the
 * receivers saw is compared with GET /eventi and with the service's own log (webhook_consegne,
 * webhook_tentativi). Each test has its own database (no endpoint of one test is worked in another).
 *
 * Here: private networks. Endpoints are created with the service's createEndpoint (as the CLI does) with private
 * networks allowed, except in 7a, where the running service is asked through its UI channel (an administrator's
 * session) and refuses.
 */

webhookSuite();

// ---- the tests -------------------------------------------------------------------------------------------

describe("webhooks, real service", () => {
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
