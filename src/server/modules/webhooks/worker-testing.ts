import { afterEach } from "vitest";
import type { Db } from "../../db/client";
import { startWebhookWorker, type WebhookWorker, type WorkerSettings } from "./worker";

/** What the worker tests share: quick settings, a wait for a condition, and workers stopped after each test. */

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
