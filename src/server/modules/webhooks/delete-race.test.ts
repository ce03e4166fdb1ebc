import { ENDPOINT_LOCK_CLASS } from "../../db/advisory-locks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import { expect } from "vitest";
import { test } from "../../testing/test";
import { supplierEvent, testSettings, until, workersStoppedAfterEach } from "./webhooks-testing";
import { createEndpoint, deleteEndpoint, setEndpointActive } from "./webhooks.service";

/**
 * A deletion against a worker delivering in process (the reliability suite races it on two service
 * processes: e2e/reliability/webhook-delete.test.ts). The receiver holds its answers, so requests are in
 * flight when the deletion comes, until the deletion is seen waiting for the endpoint's lock.
 */

const TZ = "Europe/Rome";
const settings = testSettings();
const startWorker = workersStoppedAfterEach();

interface Arrival {
  sequenza: number;
  at: number;
}

/** A receiver that answers 200, held back while `held()` is true until `release`. */
async function heldReceiver() {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let holding = true;
  const got: Arrival[] = [];
  const answered: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const sequenza = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { sequenza: number }).sequenza;
      got.push({ sequenza, at: Date.now() });
      const reply = () => {
        answered.push(sequenza);
        res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      };
      if (holding) void gate.then(reply);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    answered,
    release: () => {
      holding = false;
      release();
    },
    close: () => new Promise<void>((r) => server.closeAllConnections() ?? server.close(() => r())),
  };
}

const deletionWaits = async (pool: pg.Pool, id: number): Promise<boolean> =>
  (
    await pool.query(
      "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = $2 AND objsubid = 2) AS w",
      [ENDPOINT_LOCK_CLASS, id],
    )
  ).rows[0].w;

test("a deletion waits for the attempts in flight: delivered + discarded = recorded, and nothing is sent after it", async ({ db }) => {
  const rx = await heldReceiver();
  const control = await heldReceiver();
  control.release();
  const make = (url: string, consegna: "ordinata" | "parallela") =>
    createEndpoint(db.prisma, "riga_di_comando", { url, eventi: ["fornitore.modificato"], consegna }, { allowPrivate: true, timeZone: TZ });
  const { endpoint } = await make(rx.url, "parallela");
  await make(control.url, "ordinata");
  const id = endpoint.id;
  // Disabled while the events are recorded, so they all wait for it; then the worker finds them at once.
  await setEndpointActive(db.prisma, "riga_di_comando", id, false, TZ);
  const recorded: number[] = [];
  for (let i = 1; i <= 20; i++) recorded.push(await supplierEvent(db.pool, `WH-CORSA-${i}`));
  await setEndpointActive(db.prisma, "riga_di_comando", id, true, TZ);
  startWorker(db.prisma, db.url, settings);
  await until(() => rx.got.length >= 4);

  let answered = false;
  const deletion = deleteEndpoint(db.prisma, "riga_di_comando", id, null, settings.timeoutMs).finally(() => {
    answered = true;
  });
  await until(async () => answered || (await deletionWaits(db.pool, id)));
  rx.release();
  const out = await deletion;
  const answeredAt = Date.now();

  // A barrier that is not a wait: a later event reaches the other endpoint, so the worker has come round.
  const later = await supplierEvent(db.pool, "WH-CORSA-DOPO");
  await until(() => control.got.some((a) => a.sequenza === later));

  const { rows } = await db.pool.query<{ evento_id: number; stato: string }>(
    "SELECT evento_id, stato FROM webhook_consegne WHERE endpoint_id = $1 ORDER BY evento_id",
    [id],
  );
  const delivered = rows.filter((d) => d.stato === "consegnata").map((d) => d.evento_id);
  expect(rows.filter((d) => d.stato !== "consegnata")).toEqual([]);
  expect(delivered).toEqual([...rx.answered].sort((a, b) => a - b));
  expect(delivered.every((s) => recorded.includes(s))).toBe(true);
  expect(delivered.length + out.consegne_scartate).toBe(recorded.length);
  expect(rx.got.filter((a) => a.at > answeredAt)).toEqual([]);
  expect(rx.got.some((a) => a.sequenza === later)).toBe(false);
  await rx.close();
  await control.close();
});
