import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { describe, expect } from "vitest";
import { rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { createEndpoint, replayDelivery, setEndpointActive } from "./webhooks.service";
import { nextState, retryDelayMs } from "./worker";
import { testSettings, until, workersStoppedAfterEach } from "./webhooks-testing";

/**
 * The delivery workers in process, against receivers on 127.0.0.1 (the reliability suite drives the real
 * service: e2e/reliability/webhook-*.test.ts).
 */

const settings = testSettings();
const startWorker = workersStoppedAfterEach();

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function receiver(answer: (r: Received, n: number) => number | "hang" = () => 204) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      got.push(r);
      const status = answer(r, got.length);
      if (status === "hang") return;
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `rifiutato ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, got, close: () => new Promise<void>((r) => server.closeAllConnections() ?? server.close(() => r())) };
}

describe("delivery", () => {
  test("events are delivered signed, in order, each once; the signature verifies with the specification's library", async ({ db, key }) => {
    const r = await receiver();
    const { segreto } = await createEndpoint(
      db.prisma,
      "riga_di_comando",
      { url: r.url, eventi: ["movimenti.registrati"] },
      { allowPrivate: true, timeZone: "Europe/Rome" },
    );
    const mag = await seedWarehouse(db.prisma);
    await seedArticle(db.prisma, "W1");
    startWorker(db.prisma, db.url, settings);
    for (let i = 1; i <= 5; i++) {
      const w = await rest("POST", "/movimenti", {
        key,
        body: { natura: "carico", magazzino: mag.id, righe: [{ codice: "W1", quantita: i }] },
      });
      expect(w.status).toBeLessThan(300);
    }
    await until(() => r.got.length >= 5);
    const wh = new Webhook(segreto);
    const events = r.got.map(
      (g) =>
        wh.verify(g.body, g.headers as Record<string, string>) as {
          id: string;
          sequenza: number;
          dati: { movimenti: { quantita: string }[] };
        },
    );
    expect(events.map((e) => e.dati.movimenti[0]!.quantita)).toEqual(["1", "2", "3", "4", "5"]);
    expect(events.map((e) => e.id)).toEqual(r.got.map((g) => g.headers["webhook-id"]));
    const tampered = r.got[0]!.body.replace('"1"', '"9"');
    expect(() => wh.verify(tampered, r.got[0]!.headers as Record<string, string>)).toThrow();
    await r.close();
  });

  test("a refusing receiver is retried until it accepts, keeping the order", async ({ db, key }) => {
    let down = true;
    const r = await receiver(() => (down ? 503 : 200));
    const { endpoint } = await createEndpoint(
      db.prisma,
      "riga_di_comando",
      { url: r.url, eventi: ["movimenti.registrati"] },
      { allowPrivate: true, timeZone: "Europe/Rome" },
    );
    const mag = await seedWarehouse(db.prisma, "MAGR");
    await seedArticle(db.prisma, "W2");
    startWorker(db.prisma, db.url, settings);
    for (let i = 1; i <= 3; i++)
      await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: mag.id, righe: [{ codice: "W2", quantita: i }] } });
    await until(() => r.got.length >= 3);
    down = false;
    await until(async () => (await db.prisma.webhookConsegna.count({ where: { endpoint_id: endpoint.id, stato: "consegnata" } })) >= 3);
    const accepted = r.got.filter((_, i) => i >= r.got.length - 3).map((g) => JSON.parse(g.body).dati.movimenti[0].quantita);
    expect(accepted).toEqual(["1", "2", "3"]);
    await r.close();
  });
});

describe("failed deliveries", () => {
  test("after the retry window a delivery is failed and the endpoint moves on; replayed, it is delivered", async ({ db, key }) => {
    let refuse = true;
    const r = await receiver(() => (refuse ? 500 : 200));
    const { endpoint } = await createEndpoint(
      db.prisma,
      "riga_di_comando",
      { url: r.url, eventi: ["movimenti.registrati"] },
      { allowPrivate: true, timeZone: "Europe/Rome" },
    );
    const mag = await seedWarehouse(db.prisma, "MAGF");
    await seedArticle(db.prisma, "W4");
    startWorker(db.prisma, db.url, { ...settings, retryWindowS: 1 });
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: mag.id, righe: [{ codice: "W4", quantita: 1 }] } });
    const failed = async () => db.prisma.webhookConsegna.findMany({ where: { endpoint_id: endpoint.id, stato: "fallita" } });
    await until(async () => (await failed()).length === 1);
    // The next event is not held behind the failed one.
    refuse = false;
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: mag.id, righe: [{ codice: "W4", quantita: 2 }] } });
    await until(async () => (await db.prisma.webhookConsegna.count({ where: { endpoint_id: endpoint.id, stato: "consegnata" } })) === 1);
    const [gaveUp] = await failed();
    expect(gaveUp!.tentativi).toBeGreaterThan(1);
    const log = await db.prisma.webhookTentativo.findMany({ where: { consegna_id: gaveUp!.id }, orderBy: { id: "asc" } });
    expect(log.map((t) => [t.esito, t.stato_http, t.risposta])).toContainEqual(["rifiutato", 500, "rifiutato 500"]);

    await replayDelivery(db.prisma, "riga_di_comando", endpoint.id, gaveUp!.id);
    await until(async () => (await db.prisma.webhookConsegna.count({ where: { endpoint_id: endpoint.id, stato: "consegnata" } })) === 2);
    const quantities = r.got.slice(-2).map((g) => JSON.parse(g.body).dati.movimenti[0].quantita);
    expect(quantities).toEqual(["2", "1"]);
    await r.close();
  });

  test("a disabled endpoint is not delivered to; enabled again, it receives what came meanwhile", async ({ db, key }) => {
    const r = await receiver();
    const { endpoint } = await createEndpoint(
      db.prisma,
      "riga_di_comando",
      { url: r.url, eventi: ["movimenti.registrati"] },
      { allowPrivate: true, timeZone: "Europe/Rome" },
    );
    await setEndpointActive(db.prisma, "riga_di_comando", endpoint.id, false, "Europe/Rome");
    const mag = await seedWarehouse(db.prisma, "MAGD");
    await seedArticle(db.prisma, "W5");
    startWorker(db.prisma, db.url, settings);
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: mag.id, righe: [{ codice: "W5", quantita: 7 }] } });
    await new Promise((res) => setTimeout(res, 800));
    expect(r.got).toHaveLength(0);
    await setEndpointActive(db.prisma, "riga_di_comando", endpoint.id, true, "Europe/Rome");
    await until(() => r.got.length === 1);
    expect(JSON.parse(r.got[0]!.body).dati.movimenti[0].quantita).toBe("7");
    await r.close();
  });
});

describe("private networks at delivery", () => {
  test("a name that resolves to loopback is refused when it connects: the attempt says so, the receiver sees nothing", async ({
    db,
    key,
  }) => {
    const r = await receiver();
    const url = r.url.replace("127.0.0.1", "localhost");
    const { endpoint } = await createEndpoint(
      db.prisma,
      "riga_di_comando",
      { url, eventi: ["movimenti.registrati"] },
      { allowPrivate: true, timeZone: "Europe/Rome" },
    );
    const mag = await seedWarehouse(db.prisma, "MAGP");
    await seedArticle(db.prisma, "W3");
    startWorker(db.prisma, db.url, { ...settings, allowPrivate: false, backoffBaseMs: 60_000 });
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: mag.id, righe: [{ codice: "W3", quantita: 1 }] } });
    await until(async () => (await db.prisma.webhookTentativo.count({ where: { endpoint_id: endpoint.id } })) >= 1);
    const [attempt] = await db.prisma.webhookTentativo.findMany({ where: { endpoint_id: endpoint.id } });
    expect(attempt).toMatchObject({ esito: "rete_privata", stato_http: null });
    expect(attempt!.risposta).toMatch(/localhost corrisponde a (127\.0\.0\.1|::1)/);
    expect(r.got).toHaveLength(0);
    await r.close();
  });
});

describe("retry schedule", () => {
  test("exponential with jitter, capped; failed only after the window", () => {
    const s = { ...settings, backoffBaseMs: 5000, backoffMaxMs: 4 * 3600_000, retryWindowS: 30 * 3600 };
    expect(retryDelayMs(1, s, () => 0.5)).toBe(5000);
    expect(retryDelayMs(2, s, () => 0.5)).toBe(15000);
    expect(retryDelayMs(20, s, () => 0.5)).toBe(4 * 3600_000);
    expect(retryDelayMs(1, s, () => 0)).toBe(3750);
    const failed = { esito: "rifiutato" as const, stato_http: 500, risposta: "", durata_ms: 1 };
    expect(nextState(failed, 3, 29 * 3600, s).stato).toBe("in_attesa");
    expect(nextState(failed, 3, 30 * 3600, s).stato).toBe("fallita");
    // Retries go on for at least 30 hours: the schedule's sum before the window closes.
    let t = 0;
    let n = 0;
    while (t < 30 * 3600_000) t += retryDelayMs(++n, s, () => 0);
    expect(n).toBeGreaterThan(8);
  });
});
