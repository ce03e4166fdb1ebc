import pg from "pg";
import type { Config } from "../../config";
import type { Db } from "../../db/client";
import { first, rows } from "../../db/sql";
import { syncBound } from "../lists/lists";
import { eventsByIds } from "../events/events.queries";
import { renderEvents } from "../events/events.service";
import { sendWebhook, type AttemptOutcome } from "./delivery";
import * as q from "./webhooks.queries";

/**
 * The delivery workers. Every instance runs them; they share the work through PostgreSQL alone.
 *
 * - An endpoint is worked by one worker at a time, across instances: the worker holds a SESSION advisory
 *   lock on the endpoint's id, on a connection of its own, while it works it. If its process dies (SIGKILL,
 *   a crash), PostgreSQL drops the connection and the lock with it, and another worker, or the restarted
 *   instance, takes the endpoint at once. So each attempt is made once, and an attempt cut by a crash is
 *   made again (at least once: the receiver may see it twice only when its 2xx was lost).
 * - Per endpoint, deliveries go in the events' sequence: the oldest pending delivery first, and nothing
 *   after it while it waits for a retry (API.md section 10: "keep sequenza order"). Endpoints are
 *   independent: a receiver that hangs holds one worker for at most the timeout, the others go on.
 * - Failed attempts are retried with exponential backoff and jitter (`retryDelayMs`) until the retry
 *   window (30 hours by default) has passed since the first attempt; then the delivery is `fallita`,
 *   shown on the screen and replayable, and the endpoint moves on to the next event.
 * - The write path only inserts events (a trigger in its own transaction); the workers find new work by
 *   polling (`POLL_MS`), never by a notification the writer would have to send.
 */

const LOCK_CLASS = 0x5748; // "WH": the two-key advisory lock space of webhook endpoints (the sync gates use one-key locks)
const POLL_MS = 200;
/** A worker lets go of an endpoint after this long, so others are not starved by one busy endpoint. */
const SLICE_MS = 5_000;
const FANOUT_BATCH = 5_000;
/** Deliveries read and rendered together; they are still sent one at a time, in order. */
const BATCH = 100;

export interface WorkerSettings {
  workers: number;
  timeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryWindowS: number;
  allowPrivate: boolean;
  timeZone: string;
}

export function webhookSettings(c: Config): WorkerSettings {
  return {
    workers: c.WEBHOOK_WORKERS,
    timeoutMs: c.WEBHOOK_TIMEOUT_MS,
    backoffBaseMs: c.WEBHOOK_BACKOFF_BASE_MS,
    backoffMaxMs: c.WEBHOOK_BACKOFF_MAX_MS,
    retryWindowS: c.WEBHOOK_RETRY_WINDOW_S,
    allowPrivate: c.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true",
    timeZone: c.SERVICE_TIME_ZONE,
  };
}

/**
 * The wait before attempt n+1 after n failed ones: base × 3^(n-1), at most `max`, times a jitter in
 * [0.75, 1.25) so that many failed deliveries do not come back in step. With the defaults (5 s, 4 h):
 * 5 s, 15 s, 45 s, 2¼ min, 7 min, 20 min, 1 h, 3 h, then every 4 h until the window closes.
 */
export function retryDelayMs(failedAttempts: number, s: Pick<WorkerSettings, "backoffBaseMs" | "backoffMaxMs">, random = Math.random) {
  const plain = Math.min(s.backoffBaseMs * 3 ** Math.max(0, failedAttempts - 1), s.backoffMaxMs);
  return Math.round(plain * (0.75 + random() * 0.5));
}

/** What a failed or successful attempt makes of its delivery. */
export function nextState(
  outcome: AttemptOutcome,
  attemptsBefore: number,
  sinceFirstS: number | null,
  s: WorkerSettings,
): { stato: "consegnata" | "fallita" | "in_attesa"; ritardo_ms: number } {
  if (outcome.esito === "consegnato") return { stato: "consegnata", ritardo_ms: 0 };
  // The window counts from the first attempt (this one, when it is the first).
  if ((sinceFirstS ?? 0) >= s.retryWindowS) return { stato: "fallita", ritardo_ms: 0 };
  return { stato: "in_attesa", ritardo_ms: retryDelayMs(attemptsBefore + 1, s) };
}

const clean = (text: string | null) => (text === null ? null : text.replaceAll("\u0000", ""));

export interface WebhookWorker {
  stop(): Promise<void>;
}

export function startWebhookWorker(db: Db, connectionString: string, s: WorkerSettings, log: (m: string) => void): WebhookWorker {
  // Connections that hold endpoint locks: one per worker, apart from the service's pool.
  const lockPool = new pg.Pool({ connectionString, max: s.workers, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  lockPool.on("error", () => {}); // a dropped idle connection: the next checkout opens another
  const running = new Map<number, Promise<unknown>>();
  // An endpoint that gave nothing to do (held elsewhere, events not yet committed, none of its types) is
  // looked at again after a poll interval, not in a tight loop.
  const restUntil = new Map<number, number>();
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let lastError = "";

  const report = (e: unknown) => {
    const m = (e as Error).message;
    if (m !== lastError) log(`Webhook: consegne sospese per un errore, riprovo (${m}).`);
    lastError = m;
  };

  /**
   * Sends the endpoint's due pending deliveries in sequence order, rendered together; stops at the first
   * that must wait for a retry (later ones keep their place behind it). "wait": nothing more to send now.
   */
  async function deliverDue(endpoint: q.WorkEndpoint, until: number): Promise<"again" | "wait"> {
    const pending = await rows(db, q.pendingDeliveries(endpoint.id, BATCH));
    const firstWaiting = pending.findIndex((d) => !d.dovuta);
    const due = firstWaiting < 0 ? pending : pending.slice(0, firstWaiting);
    if (due.length === 0) return "wait";
    const events = await renderEvents(db, await rows(db, eventsByIds(due.map((d) => d.evento_id))), s.timeZone);
    const byId = new Map(events.map((e) => [e.sequenza, e]));
    for (const d of due) {
      if (stopping || Date.now() > until) return "again";
      const event = byId.get(d.evento_id)!;
      const iniziato_il = new Date();
      const outcome = await sendWebhook(endpoint, event.id, JSON.stringify(event), {
        timeoutMs: s.timeoutMs,
        allowPrivate: s.allowPrivate,
      });
      const next = nextState(outcome, d.tentativi, d.da_primo_s ?? 0, s);
      await first(
        db,
        q.recordAttempt(
          {
            consegna: d.id,
            endpoint: endpoint.id,
            iniziato_il,
            durata_ms: outcome.durata_ms,
            stato_http: outcome.stato_http,
            esito: outcome.esito,
            risposta: clean(outcome.risposta),
          },
          next,
        ),
      );
      lastError = "";
      if (next.stato === "in_attesa") return "wait";
    }
    return firstWaiting >= 0 ? "wait" : "again";
  }

  /** Works one endpoint for a slice; true when it delivered (or gave up on) something. */
  async function work(id: number): Promise<boolean> {
    const conn = await lockPool.connect();
    // Its connection may die while held (PostgreSQL restarted): heard, that error only ends this round.
    let lost: Error | undefined;
    const onError = (e: Error) => {
      lost = e;
    };
    conn.on("error", onError);
    let locked = false;
    let progressed = false;
    try {
      locked = (await conn.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [LOCK_CLASS, id])).rows[0]!.ok;
      if (!locked) return false; // another worker (here or in another instance) has it
      const until = Date.now() + SLICE_MS;
      while (!stopping && Date.now() < until) {
        const endpoint = await first(db, q.workEndpoint(id));
        if (!endpoint?.attivo) break;
        const bound = await syncBound(db, "eventi");
        await rows(db, q.fanOut(id, bound, FANOUT_BATCH));
        if ((await deliverDue(endpoint, until)) === "wait") break;
        progressed = true;
      }
      return progressed;
    } finally {
      // A connection that could not let go of the lock is closed, which lets go of it.
      const unlocked =
        lost === undefined &&
        (!locked ||
          (await conn.query("SELECT pg_advisory_unlock($1, $2)", [LOCK_CLASS, id]).then(
            () => true,
            () => false,
          )));
      conn.off("error", onError);
      conn.release(!unlocked);
    }
  }

  async function tick(): Promise<void> {
    timer = undefined;
    if (stopping) return;
    try {
      const free = s.workers - running.size;
      if (free > 0) {
        const resting = [...restUntil].filter(([, until]) => until > Date.now()).map(([id]) => id);
        for (const { id } of await rows(db, q.endpointsWithWork(free, LOCK_CLASS, [...running.keys(), ...resting]))) {
          if (running.size >= s.workers || stopping) break;
          if (running.has(id)) continue;
          const job = work(id)
            .catch((e) => {
              report(e);
              return false;
            })
            .then((progressed) => {
              running.delete(id);
              if (progressed) return schedule(0);
              restUntil.set(id, Date.now() + POLL_MS);
            });
          running.set(id, job);
        }
      }
    } catch (e) {
      report(e);
    }
    schedule(POLL_MS);
  }

  function schedule(ms: number) {
    if (stopping) return;
    if (timer !== undefined) {
      if (ms > 0) return;
      clearTimeout(timer);
    }
    timer = setTimeout(() => void tick(), ms);
  }

  if (s.workers > 0) schedule(0);
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await Promise.allSettled(running.values());
      await lockPool.end();
    },
  };
}
