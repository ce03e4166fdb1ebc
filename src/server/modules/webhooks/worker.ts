import { ENDPOINT_LOCK_CLASS } from "../../db/advisory-locks";
import pg from "pg";
import type { Config } from "../../config";
import type { Db } from "../../db/client";
import { first, rows } from "../../db/sql";
import { syncBound } from "../lists/lists";
import { renderEventsByIds } from "../events/events.service";
import { sendWebhook, type AttemptOutcome } from "./delivery";
import { type Message, messageBody, planMessages } from "./messages";
import * as aq from "./attempts.queries";
import * as dq from "./deliveries.queries";
import * as q from "./endpoints.queries";

/**
 * The delivery workers. Every instance runs them; they share the work through PostgreSQL alone.
 *
 * - An endpoint is worked by one worker at a time, across instances: the worker holds a SESSION advisory
 *   lock on the endpoint's id, on a connection of its own, while it works it. If its process dies (SIGKILL,
 *   a crash), PostgreSQL drops the connection and the lock with it, and another worker, or the restarted
 *   instance, takes the endpoint at once. So each attempt is made once, and an attempt cut by a crash is
 *   made again (at least once: the receiver may see it twice only when its 2xx was lost).
 * - Deliveries go out as messages (messages.ts): one event alone, or a batch of `eventi_per_richiesta`
 *   events, formed before its first attempt and kept as it is for every retry.
 * - An ordered endpoint (the default) has one request in flight, in the events' sequence: the oldest
 *   pending message first, and nothing after it while it waits for a retry (docs/api.md section 10: "keep
 *   sequenza order"). A parallel one has up to WEBHOOK_PARALLELISM requests in flight, all sent by the
 *   worker that holds it (so still each attempt once), in no order, and a message waiting for a retry
 *   holds nothing back. Endpoints are independent: a receiver that hangs holds one worker for at most the
 *   timeout, the others go on.
 * - A deletion wins against deliveries in flight: it waits for the endpoint's lock, and the worker holding
 *   it, on whichever instance, sees it waiting, sends nothing more, logs what is in flight and lets go. The
 *   deletion then finds every attempt logged, and no request of the endpoint leaves after it.
 * - Failed attempts are retried with exponential backoff and jitter (`retryDelayMs`) until the retry
 *   window (30 hours by default) has passed since the first attempt; then the delivery is `fallita`,
 *   shown on the screen and replayable, and the endpoint moves on to the next event.
 * - The write path only inserts events (a trigger in its own transaction); the workers find new work by
 *   polling (`POLL_MS`), never by a notification the writer would have to send.
 */

const LOCK_CLASS = ENDPOINT_LOCK_CLASS;
const POLL_MS = 200;
/** How often a worker looks whether a deletion waits for the endpoint it holds. */
const YIELD_CHECK_MS = POLL_MS / 2;
/** A request waiting for this endpoint's lock: only a deletion waits for it (workers only try it). */
const DELETION_WAITS = `SELECT EXISTS (SELECT 1 FROM pg_locks l
  WHERE l.locktype = 'advisory' AND NOT l.granted AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 2
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS waits`;
/** A worker lets go of an endpoint after this long, so others are not starved by one busy endpoint. */
const SLICE_MS = 5_000;
const FANOUT_BATCH = 5_000;
/** Deliveries read and rendered together (at least; a window of batches reads as many as they hold). */
const BATCH = 100;

/** A message ready to go: its body rendered. */
type Ready = Message & { body: string };

export interface WorkerSettings {
  workers: number;
  /** Requests in flight at once to a parallel endpoint. */
  parallelism: number;
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
    parallelism: c.WEBHOOK_PARALLELISM,
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
   * Sends the endpoint's due messages until the slice ends or nothing is due: one request in flight for an
   * ordered endpoint, which stops at the first message that must wait for a retry (later ones keep their
   * place behind it); up to `parallelism` for a parallel one, which keeps no order and goes on past a
   * message that waits. The messages come from a queue, refilled (new events fanned out, the next window
   * read and planned, its events rendered together) as its last message goes out. True when it attempted
   * something.
   */
  async function deliver(endpoint: q.WorkEndpoint, until: number, mustYield: () => boolean): Promise<boolean> {
    const ordered = endpoint.consegna === "ordinata";
    const lanes = ordered ? 1 : s.parallelism;
    const perRequest = endpoint.eventi_per_richiesta;
    // Events alone need no writing before they are sent: plan a window of them. Batches are formed only as
    // they are about to go, so that a change of settings reaches all the others.
    const max = perRequest === 1 ? BATCH : lanes;
    const queue: Ready[] = [];
    const taken = new Set<number>(); // deliveries queued or in flight
    let refilling: Promise<void> | undefined;
    /** When a refill last found nothing: lanes waiting for others do not ask again before a poll interval. */
    let emptyAt = 0;
    let blocked = false;
    let attempted = false;

    async function refill() {
      await rows(db, dq.fanOut(endpoint.id, await syncBound(db, "eventi"), FANOUT_BATCH));
      const window = await rows(
        db,
        dq.pendingDeliveries(endpoint.id, Math.max(BATCH, perRequest * max), { dueOnly: !ordered, skip: [...taken] }),
      );
      const plan = planMessages(window, { perRequest, ordered, max });
      for (const m of plan.filter((m) => m.formed)) m.deliveries = await rows(db, dq.messageDeliveries(endpoint.id, m.id));
      const sendable = plan.filter((m) => m.deliveries.length > 0);
      const ids = sendable.flatMap((m) => m.deliveries.map((d) => d.evento_id));
      const rendered = await renderEventsByIds(db, ids, s.timeZone);
      const bySequence = new Map(rendered.map((e) => [e.sequenza, e]));
      for (const m of sendable) {
        for (const d of m.deliveries) taken.add(d.id);
        const events = m.deliveries.map((d) => bySequence.get(d.evento_id)!);
        queue.push({ ...m, body: messageBody(m, events) });
      }
      if (sendable.length === 0) emptyAt = Date.now();
    }

    function startRefill(): Promise<void> {
      const p = refill().finally(() => {
        refilling = undefined;
      });
      p.catch(() => {}); // a prefetch nobody waits for any more must not be an unhandled rejection
      refilling = p;
      return p;
    }

    async function next(): Promise<Ready | undefined> {
      if (queue.length === 0 && refilling === undefined && Date.now() - emptyAt < POLL_MS) return undefined;
      if (queue.length === 0) await (refilling ?? startRefill());
      const m = queue.shift();
      // The last one queued goes out: the next are read, formed and rendered meanwhile, behind the
      // receiver's answer time rather than after it (its deliveries are `taken`, so they are not read again).
      if (m !== undefined && queue.length === 0 && refilling === undefined) startRefill();
      return m;
    }

    let inFlight = 0;
    /** Attempts of a parallel endpoint still being logged. */
    const logging = new Set<Promise<void>>();
    const release = (m: Ready) => {
      for (const d of m.deliveries) taken.delete(d.id);
    };
    async function lane() {
      while (!stopping && !blocked && !mustYield() && Date.now() < until) {
        const m = await next();
        if (m === undefined) {
          // Nothing more now; while other requests are out, look again shortly (they free no work of
          // their own, but new events may come).
          if (inFlight === 0) return;
          await new Promise((r) => setTimeout(r, POLL_MS / 4));
          continue;
        }
        inFlight++;
        let trailing = false;
        try {
          const sent = await attempt(endpoint, m);
          if (sent === undefined) {
            if (ordered) blocked = true; // planned again from the start, in order
            continue;
          }
          attempted = true;
          if (ordered) {
            if ((await sent.logged) === "in_attesa") {
              blocked = true; // what follows waits behind it, and is planned again next time
              queue.length = 0;
            }
          } else {
            // A parallel lane sends its next message while this attempt is logged (no order to keep);
            // its deliveries stay taken until then, so they are not read again meanwhile. An attempt whose
            // logging fails stays pending and is made again later (at least once).
            trailing = true;
            const p: Promise<void> = sent.logged.then(
              () => {},
              (e: unknown) => report(e),
            );
            logging.add(p);
            void p.finally(() => {
              logging.delete(p);
              release(m);
            });
          }
        } finally {
          inFlight--;
          if (!trailing) release(m);
        }
      }
    }
    try {
      await Promise.all(Array.from({ length: lanes }, lane));
    } finally {
      // Nothing of this endpoint's goes on once its lock may be let go.
      await Promise.allSettled([...logging, refilling]);
    }
    return attempted;
  }

  /**
   * One attempt of one message: a new batch formed (written on its deliveries) just before it goes, so a
   * change of settings reaches every batch not yet sent, then sent; `logged` then logs it for all its
   * deliveries in one statement and says what became of them. A batch that cannot be formed whole (a
   * replay or a deletion came between) is not sent: it is planned again. Undefined when nothing was sent.
   */
  async function attempt(endpoint: q.WorkEndpoint, m: Ready): Promise<{ logged: Promise<aq.AttemptState> } | undefined> {
    if (m.toForm) {
      const ids = m.deliveries.map((d) => d.id);
      if ((await rows(db, dq.formMessage(ids, m.id))).length !== ids.length) return undefined;
    }
    const head = m.deliveries[0]!;
    const iniziato_il = new Date();
    const outcome = await sendWebhook(endpoint, m.id, m.body, { timeoutMs: s.timeoutMs, allowPrivate: s.allowPrivate });
    const next = nextState(outcome, head.tentativi, head.da_primo_s ?? 0, s);
    const attempt = {
      consegne: m.deliveries.map((d) => d.id),
      messaggio: m.id,
      endpoint: endpoint.id,
      iniziato_il,
      durata_ms: outcome.durata_ms,
      stato_http: outcome.stato_http,
      esito: outcome.esito,
      risposta: clean(outcome.risposta),
    };
    const logged = rows(db, aq.recordAttempt(attempt, next)).then(() => {
      lastError = "";
      return next.stato;
    });
    return { logged };
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
    let deletionWaits = false;
    let watch: NodeJS.Timeout | undefined;
    try {
      locked = (await conn.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [LOCK_CLASS, id])).rows[0]!.ok;
      if (!locked) return false; // another worker (here or in another instance) has it
      let looking = false;
      watch = setInterval(() => {
        if (looking || deletionWaits) return;
        looking = true;
        conn.query<{ waits: boolean }>(DELETION_WAITS, [LOCK_CLASS, id]).then(
          (r) => {
            looking = false;
            if (r.rows[0]?.waits) deletionWaits = true;
          },
          () => {
            looking = false;
          },
        );
      }, YIELD_CHECK_MS);
      const until = Date.now() + SLICE_MS;
      // The endpoint is read again each round: a change of its settings applies from the next message formed.
      while (!stopping && !deletionWaits && Date.now() < until) {
        const endpoint = await first(db, q.workEndpoint(id));
        if (!endpoint?.attivo) break;
        if (!(await deliver(endpoint, until, () => deletionWaits))) break;
        progressed = true;
      }
      return progressed;
    } finally {
      clearInterval(watch);
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
        for (const { id } of await rows(db, q.endpointsWithWork(free, [...running.keys(), ...resting]))) {
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
