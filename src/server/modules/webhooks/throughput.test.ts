import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { describe, expect } from "vitest";
import { rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import type { TestDb as Db } from "../../testing/db";
import { test } from "../../testing/test";
import { planMessages } from "./messages";
import type { HeadRow } from "./deliveries.queries";
import { createEndpoint } from "./webhooks.service";
import { testSettings, until, workersStoppedAfterEach } from "./webhooks-testing";

const settings = testSettings({ parallelism: 4, timeoutMs: 5000 });
const startWorker = workersStoppedAfterEach();

/**
 * Batches and parallel delivery (docs/api.md section 10, "Throughput"), in process against receivers on
 * 127.0.0.1; the crash and two-instance runs are in e2e/reliability/webhook-crash.test.ts.
 */

interface Received {
  id: string;
  headers: Record<string, string>;
  body: string;
  /** The sequenze the request carried, in body order. */
  seq: number[];
  status?: number;
}

/** A receiver; `answer` may return a promise (held requests) and sees how many are in flight. */
async function receiver(answer: (r: Received, n: number) => number | Promise<number> = () => 204) {
  const got: Received[] = [];
  let inFlight = 0;
  let peak = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const parsed = JSON.parse(body) as { sequenza: number } | { eventi: { sequenza: number }[] };
      const seq = "eventi" in parsed ? parsed.eventi.map((e) => e.sequenza) : [parsed.sequenza];
      const r: Received = { id: String(req.headers["webhook-id"]), headers: req.headers as Record<string, string>, body, seq };
      got.push(r);
      const status = await answer(r, got.length);
      r.status = status;
      inFlight--;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    got,
    inFlight: () => inFlight,
    peak: () => peak,
    close: () => new Promise<void>((r) => server.closeAllConnections() ?? server.close(() => r())),
  };
}

/** An endpoint with the given throughput settings, and `n` committed movements written for it. */
async function setUp(
  db: Db,
  key: string,
  url: string,
  o: { tag: string; perRequest: number; consegna?: "ordinata" | "parallela"; n: number },
) {
  const { endpoint, segreto } = await createEndpoint(
    db.prisma,
    "riga_di_comando",
    { url, eventi: ["movimenti.registrati"] },
    { allowPrivate: true, timeZone: "Europe/Rome" },
  );
  await db.prisma.webhookEndpoint.update({
    where: { id: endpoint.id },
    data: { eventi_per_richiesta: o.perRequest, consegna: o.consegna ?? "ordinata" },
  });
  const mag = await seedWarehouse(db.prisma, `M${o.tag}`);
  await seedArticle(db.prisma, `A${o.tag}`);
  const write = async (quantita: number) => {
    const w = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: mag.id, righe: [{ codice: `A${o.tag}`, quantita }] },
    });
    expect(w.status).toBeLessThan(300);
  };
  for (let i = 1; i <= o.n; i++) await write(i);
  // The file's tests run one after the other: the last n movement events are this test's.
  const events = (await db.prisma.evento.findMany({ where: { tipo: "movimenti.registrati" }, orderBy: { id: "asc" } })).slice(-o.n);
  return { endpoint, segreto, write, seq: events.map((e) => e.id) };
}

const delivered = (db: Db, endpoint: number) => db.prisma.webhookConsegna.count({ where: { endpoint_id: endpoint, stato: "consegnata" } });

describe("batches", () => {
  test("up to eventi_per_richiesta events in one signed { eventi } body, in sequenza order, with webhook-id msg_<first>_<last>", async ({
    db,
    key,
  }) => {
    const r = await receiver();
    const { endpoint, segreto, seq } = await setUp(db, key, r.url, { tag: "B1", perRequest: 3, n: 7 });
    startWorker(db.prisma, db.url, settings);
    await until(async () => (await delivered(db, endpoint.id)) === 7);
    expect(r.got.map((g) => g.seq)).toEqual([seq.slice(0, 3), seq.slice(3, 6), seq.slice(6)]);
    expect(r.got.map((g) => g.id)).toEqual([`msg_${seq[0]}_${seq[2]}`, `msg_${seq[3]}_${seq[5]}`, `msg_${seq[6]}_${seq[6]}`]);
    const wh = new Webhook(segreto);
    for (const g of r.got) {
      const body = wh.verify(g.body, g.headers) as { eventi: { id: string; tipo: string; sequenza: number }[] };
      expect(Object.keys(body)).toEqual(["eventi"]);
      expect(body.eventi.every((e) => e.tipo === "movimenti.registrati" && e.id.startsWith("evt_"))).toBe(true);
    }
    expect(() => wh.verify(r.got[0]!.body.replace(`"sequenza":${seq[0]}`, `"sequenza":${seq[1]}`), r.got[0]!.headers)).toThrow();
    // One attempt logged per delivery, in one statement per request.
    expect(await db.prisma.webhookTentativo.count({ where: { endpoint_id: endpoint.id, esito: "consegnato" } })).toBe(7);
    await r.close();
  });

  test("a retry resends exactly the same events under the same webhook-id; later events go in the next batch", async ({ db, key }) => {
    let down = true;
    const r = await receiver(() => (down ? 503 : 200));
    const { endpoint, seq, write } = await setUp(db, key, r.url, { tag: "B2", perRequest: 10, n: 4 });
    startWorker(db.prisma, db.url, settings);
    await until(() => r.got.length >= 2);
    await write(5); // arrives while the batch waits for its retry
    const after = (await db.prisma.evento.findFirst({ where: { tipo: "movimenti.registrati" }, orderBy: { id: "desc" } }))!.id;
    await until(() => r.got.length >= 4);
    down = false;
    await until(async () => (await delivered(db, endpoint.id)) === 5);
    const first = r.got[0]!;
    expect(first.id).toBe(`msg_${seq[0]}_${seq[3]}`);
    expect(first.seq).toEqual(seq);
    const retries = r.got.filter((g) => g.id === first.id);
    expect(retries.length).toBeGreaterThanOrEqual(4);
    for (const g of retries) expect(g.seq).toEqual(seq);
    // In order: the batch (however many attempts), then the later event, alone in its own batch, once.
    expect(r.got.at(-1)).toMatchObject({ id: `msg_${after}_${after}`, seq: [after] });
    expect(r.got.findIndex((g) => g.id !== first.id)).toBe(r.got.length - 1);
    const attempts = await db.prisma.webhookTentativo.count({ where: { endpoint_id: endpoint.id } });
    expect(attempts).toBe(retries.length * 4 + 1);
    await r.close();
  });

  test("a change of settings applies to batches not yet formed", async ({ db, key }) => {
    let down = true;
    const r = await receiver(() => (down ? 500 : 200));
    const { endpoint, seq } = await setUp(db, key, r.url, { tag: "B3", perRequest: 3, n: 5 });
    startWorker(db.prisma, db.url, settings);
    await until(() => r.got.length >= 1);
    await db.prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { eventi_per_richiesta: 1 } });
    down = false;
    await until(async () => (await delivered(db, endpoint.id)) === 5);
    const accepted = r.got.slice(r.got.findIndex((g) => g.seq.length === 1 && g.id.startsWith("evt_")) - 1);
    // The formed batch is retried as it was; the two events after it now go one per request, the body
    // being the event alone with its own id.
    expect(accepted.map((g) => g.seq)).toEqual([seq.slice(0, 3), [seq[3]], [seq[4]]]);
    expect(accepted[0]!.id).toBe(`msg_${seq[0]}_${seq[2]}`);
    for (const g of accepted.slice(1)) {
      const body = JSON.parse(g.body) as { id: string; sequenza: number };
      expect(g.id).toBe(body.id);
      expect(body).not.toHaveProperty("eventi");
    }
    await r.close();
  });
});

describe("parallel delivery", () => {
  test("several requests in flight at once, never more than the parallelism; each event delivered once", async ({ db, key }) => {
    let release: () => void = () => {};
    const released = new Promise<void>((res) => {
      release = res;
    });
    const r = await receiver(async () => {
      await released;
      return 204;
    });
    const { endpoint, seq } = await setUp(db, key, r.url, { tag: "P1", perRequest: 1, consegna: "parallela", n: 12 });
    startWorker(db.prisma, db.url, settings);
    // Held answers: the worker only gets past one request at a time if it sends them together.
    await until(() => r.inFlight() >= 2);
    release();
    await until(async () => (await delivered(db, endpoint.id)) === 12);
    expect(r.peak()).toBeGreaterThan(1);
    expect(r.peak()).toBeLessThanOrEqual(settings.parallelism);
    expect(r.got.flatMap((g) => g.seq).sort((a, b) => a - b)).toEqual(seq);
    expect(await db.prisma.webhookTentativo.count({ where: { endpoint_id: endpoint.id } })).toBe(12);
    await r.close();
  });

  test("a message waiting for a retry holds nothing back; every other event arrives once", async ({ db, key }) => {
    let target = 0;
    let refused: () => void = () => {};
    const firstRefusal = new Promise<void>((res) => {
      refused = res;
    });
    // The first event is always refused, and waits a minute for its retry; the others are answered only
    // after its first refusal. With more messages than one window reads (100), they all arrive only if
    // the worker, reading the next window, goes on past the message that waits.
    const r = await receiver(async (g) => {
      if (g.seq.includes(target)) {
        refused();
        return 503;
      }
      await firstRefusal;
      return 204;
    });
    const { endpoint, seq } = await setUp(db, key, r.url, { tag: "P2", perRequest: 1, consegna: "parallela", n: 120 });
    target = seq[0]!;
    startWorker(db.prisma, db.url, { ...settings, backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
    await until(async () => (await delivered(db, endpoint.id)) === 119);
    const accepted = r.got.filter((g) => g.status === 204).flatMap((g) => g.seq);
    expect(accepted.sort((a, b) => a - b)).toEqual(seq.slice(1));
    expect(r.got.filter((g) => g.seq.includes(target))).toHaveLength(1);
    const waiting = await db.prisma.webhookConsegna.findMany({ where: { endpoint_id: endpoint.id, stato: "in_attesa" } });
    expect(waiting.map((d) => [d.evento_id, d.tentativi])).toEqual([[target, 1]]);
    await r.close();
  });
});

describe("planning messages", () => {
  const row = (evento_id: number, messaggio: string | null = null, dovuta = true): HeadRow => ({
    id: evento_id * 10,
    evento_id,
    evento_uid: `evt_${evento_id}`,
    messaggio,
    tentativi: 0,
    dovuta,
    da_primo_s: null,
  });

  test("ordered: a formed message waiting for its retry holds back what follows; runs stop at a formed delivery", () => {
    const pending = [row(1, "msg_1_2", false), row(2, "msg_1_2", false), row(3), row(4)];
    expect(planMessages(pending, { perRequest: 5, ordered: true, max: 8 })).toEqual([]);
    const parallel = planMessages(pending, { perRequest: 5, ordered: false, max: 8 });
    expect(parallel.map((m) => [m.id, m.deliveries.map((d) => d.evento_id)])).toEqual([["msg_3_4", [3, 4]]]);
    const mixed = planMessages([row(1), row(2), row(3, "evt_3"), row(4), row(5)], { perRequest: 5, ordered: true, max: 8 });
    expect(mixed.map((m) => [m.id, m.batch, m.toForm, m.formed])).toEqual([
      ["msg_1_2", true, true, false],
      ["evt_3", false, false, true],
      ["msg_4_5", true, true, false],
    ]);
    const singles = planMessages([row(7), row(8)], { perRequest: 1, ordered: true, max: 1 });
    expect(singles.map((m) => [m.id, m.batch, m.toForm])).toEqual([["evt_7", false, false]]);
  });
});
