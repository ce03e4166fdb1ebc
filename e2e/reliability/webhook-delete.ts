import { expect } from "vitest";
import { ENDPOINT_LOCK_CLASS } from "../../src/server/db/advisory-locks";
import { call, type HttpResult, type Service, waitUntil } from "./harness";
import { type Ctx, deliveriesOf, Receiver, writeMany } from "./receiver";
import { report } from "./webhook-support";

/**
 * DELETE /webhook/{id} against deliveries in flight, with two service processes on one database (docs/api.md
 * section 10: "its pending deliveries are dropped"; section 3: every guarantee holds across instances), for
 * webhook-delete.test.ts and pgbouncer.test.ts. The deletion is sent to both instances at once, so whichever
 * holds the endpoint's worker, one request comes from the other. What must hold, however the race falls: no
 * 5xx, one deletion wins and the other is a 404; every event recorded for the endpoint is delivered, failed
 * or discarded, and the figures say which (the receiver's 2xx answers are exactly the deliveries logged as
 * done); after the deletion's answer the receiver gets nothing, and the endpoint is gone from both instances.
 */

const EVENTS = 40;

/** A request waits for the endpoint's lock: a deletion waiting for the worker that holds it. */
async function deletionWaits(c: Ctx, id: number): Promise<boolean> {
  const { rows } = await c.t.pool.query(
    `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = $2 AND objsubid = 2) AS w`,
    [ENDPOINT_LOCK_CLASS, id],
  );
  return rows[0].w;
}

const lastEvent = async (c: Ctx): Promise<number> => (await c.t.pool.query("SELECT coalesce(max(id), 0)::int AS m FROM eventi")).rows[0].m;

/**
 * One race. The endpoint (parallel, made by REST) is disabled while EVENTS writes land on both instances,
 * so they all wait for it; enabled, it starts delivering, and the deletion comes while requests are out:
 * `held`, the receiver keeps its answers until the deletion is seen waiting (or has answered); otherwise it
 * answers in 100 ms, and attempts are being logged as the deletion runs.
 */
export async function deleteWhileDelivering(c: Ctx, services: Service[], hookKey: string, control: Receiver, round: number, held: boolean) {
  const bases = services.map((s) => s.base);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let holding = held;
  const rx = new Receiver(() => (holding ? { status: 200, after: gate } : { status: 200, delayMs: 100 }));
  await rx.open();
  const created = await call(bases[0]!, "POST", "/webhook", {
    key: hookKey,
    body: { url: rx.url, eventi: ["movimenti.registrati"], consegna: "parallela" },
  });
  expect(created.status, created.text).toBe(201);
  rx.secret = created.body.segreto;
  const id = created.body.webhook.id as number;
  const from = (await c.t.pool.query("SELECT cursore FROM webhook_endpoint WHERE id = $1", [id])).rows[0].cursore as number;
  const off = await call(bases[1]!, "PATCH", `/webhook/${id}`, { key: hookKey, body: { attivo: false } });
  expect(off.status, off.text).toBe(200);

  await writeMany(bases, c, EVENTS, 8, round * 1000);
  const upTo = await lastEvent(c);
  const { rows: rec } = await c.t.pool.query(
    "SELECT count(*)::int AS n FROM eventi WHERE tipo = 'movimenti.registrati' AND id > $1 AND id <= $2",
    [from, upTo],
  );
  const recorded = rec[0].n as number;
  expect(recorded).toBe(EVENTS);

  const on = await call(bases[0]!, "PATCH", `/webhook/${id}`, { key: hookKey, body: { attivo: true } });
  expect(on.status, on.text).toBe(200);
  await waitUntil("consegne in corso", () => (held ? rx.pending.size >= 4 : rx.got.length >= 5), 60_000);

  let answered = false;
  const deletes = [services[round % 2]!, services[(round + 1) % 2]!].map((s) =>
    call(s.base, "DELETE", `/webhook/${id}`, { key: hookKey }).then((r: HttpResult) => {
      answered = true;
      return { r, at: Date.now() };
    }),
  );
  if (held) {
    await waitUntil("eliminazione in attesa del lavoratore", async () => answered || (await deletionWaits(c, id)), 60_000);
    holding = false;
    release();
  }
  const outcomes = await Promise.all(deletes);
  for (const { r } of outcomes) expect(r.status, r.text).toBeLessThan(500);
  const won = outcomes.filter((o) => o.r.status === 200);
  expect(won, JSON.stringify(outcomes.map((o) => o.r.body))).toHaveLength(1);
  for (const { r } of outcomes.filter((o) => o.r.status !== 200)) {
    expect(r.status).toBe(404);
    expect(r.body.codice).toBe("non_trovato");
  }
  const answeredAt = won[0]!.at;
  const discarded = won[0]!.r.body.consegne_scartate as number;

  // A barrier that is not a wait: new events reach another endpoint (ordered) through the workers of both
  // instances, so they have come round since the deletion.
  await writeMany(bases, c, 6, 3, round * 1000 + 500);
  const after = await lastEvent(c);
  await waitUntil("l'altro webhook riceve gli eventi successivi", () => control.got.some((a) => a.sequenza >= after), 60_000);

  const late = rx.got.filter((a) => a.at > answeredAt).map((a) => a.sequenze);
  const rows = await deliveriesOf(c.t, id);
  const done = rows.filter((d) => d.stato === "consegnata").map((d) => d.evento_id);
  const failed = rows.filter((d) => d.stato === "fallita").length;
  const answered2xx = [...new Set(rx.delivered().flatMap((a) => a.sequenze))].sort((x, y) => x - y);
  report(`eliminazione durante le consegne (${held ? "richieste trattenute" : "ricevente a 100 ms"})`, {
    registrati: recorded,
    consegnate: done.length,
    fallite: failed,
    scartate: discarded,
    ricevute: rx.got.length,
    dopo_la_risposta: late.length,
  });
  expect(late).toEqual([]);
  expect(rows.filter((d) => d.stato === "in_attesa")).toEqual([]);
  expect(done.every((s) => s > from && s <= upTo)).toBe(true);
  expect([...done].sort((x, y) => x - y)).toEqual(answered2xx);
  expect(done.length + failed + discarded).toBe(recorded);
  for (const s of services) {
    const one = await call(s.base, "GET", `/webhook/${id}`, { key: hookKey });
    expect(one.status).toBe(404);
    const all = await call(s.base, "GET", "/webhook", { key: hookKey });
    expect(all.body.webhook.map((w: { id: number }) => w.id)).not.toContain(id);
  }
}

/** No instance logged a suspended delivery (a worker's statement that failed) meanwhile. */
export function expectNoSuspendedDeliveries(services: Service[]): void {
  for (const s of services) expect(s.output()).not.toContain("consegne sospese");
}
