import type pg from "pg";
import { afterEach } from "vitest";
import type { Db } from "../../db/client";
import { startWebhookWorker, type WebhookWorker, type WorkerSettings } from "./worker";

/**
 * What the webhook tests share: quick worker settings, a wait for a condition, workers stopped after each test,
 * the last entry of the administrative log, and a committed event to deliver.
 */

export const testSettings = (over: Partial<WorkerSettings> = {}): WorkerSettings => ({
  workers: 4,
  parallelism: 8,
  timeoutMs: 2_000,
  backoffBaseMs: 50,
  backoffMaxMs: 200,
  retryWindowS: 3600,
  allowPrivate: true,
  timeZone: "Europe/Rome",
  ...over,
});

/** Waits until `what` holds (no timing is asserted: the bound only ends a test that would hang). */
export const until = async (what: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("condizione non raggiunta in tempo");
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** Starts workers that are stopped after each test of the file. */
export function workersStoppedAfterEach(): (db: Db, url: string, s: WorkerSettings) => WebhookWorker {
  let workers: WebhookWorker[] = [];
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    workers = [];
  });
  return (db, url, s) => {
    const w = startWebhookWorker(db, url, s, () => {});
    workers.push(w);
    return w;
  };
}

/** The newest entry of the administrative log. */
export const lastAudit = async (pool: pg.Pool) =>
  (await pool.query("SELECT autore_tipo, autore_id, azione, oggetto_id, dettagli FROM registro_amministrativo ORDER BY id DESC LIMIT 1"))
    .rows[0];

/** An event of type fornitore.modificato (the suppliers' trigger records it at commit); its sequenza. */
export async function supplierEvent(pool: pg.Pool, codice: string): Promise<number> {
  await pool.query("INSERT INTO fornitori (codice, nome) VALUES ($1, 'Fornitore dei webhook')", [codice]);
  return (await pool.query("SELECT max(id)::int AS id FROM eventi WHERE tipo = 'fornitore.modificato'")).rows[0].id;
}
