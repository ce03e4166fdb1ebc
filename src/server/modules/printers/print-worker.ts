import net from "node:net";
import type { PrismaClient } from "../../db/client";
import { first } from "../../db/sql";
import * as q from "./printers.queries";

/**
 * The print worker, started by main.ts: claims queued jobs (`in_invio`, once across instances) and sends
 * each job's ZPL raw over TCP (port 9100, what Zebra and compatible printers listen on). A refused
 * connection is tried once more, since nothing was sent; once connected, a failure leaves the outcome
 * unknown (the printer may have the bytes), so the job ends `fallita` "esito incerto" and a person
 * decides to reprint. A job is never sent twice.
 */

export interface PrintWorkerSettings {
  /** Connection and send timeout. */
  timeoutMs: number;
  /** Wait before the one retry of a refused connection. */
  retryDelayMs: number;
  /** How often to look for jobs other instances queued (this instance's own wake it at once). */
  pollMs: number;
  /** Jobs sent at once. */
  concurrency: number;
}

export const DEFAULT_PRINT_SETTINGS: PrintWorkerSettings = { timeoutMs: 5000, retryDelayMs: 1000, pollMs: 1000, concurrency: 4 };

type SendOutcome = { ok: true } | { ok: false; connected: boolean; refused: boolean; motivo: string };

/** One attempt: connect, write, close. Resolves once the bytes were handed to the system, or with why not. */
export function sendRaw(host: string, port: number, data: string, timeoutMs: number): Promise<SendOutcome> {
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const socket = net.connect({ host, port });
    const settle = (o: SendOutcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(o);
    };
    socket.setTimeout(timeoutMs, () =>
      settle({
        ok: false,
        connected,
        refused: false,
        motivo: connected
          ? `esito incerto: la stampante non ha confermato entro ${timeoutMs / 1000} s`
          : `timeout: nessuna risposta da ${host}:${port} entro ${timeoutMs / 1000} s`,
      }),
    );
    socket.on("connect", () => {
      connected = true;
      socket.end(data, () => settle({ ok: true }));
    });
    socket.on("error", (e: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        connected,
        refused: e.code === "ECONNREFUSED",
        motivo: connected
          ? `esito incerto: connessione interrotta durante l'invio (${e.code ?? e.message})`
          : e.code === "ECONNREFUSED"
            ? `connessione rifiutata da ${host}:${port}`
            : `stampante non raggiungibile a ${host}:${port} (${e.code ?? e.message})`,
      }),
    );
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one claimed job, retrying once a refused connection; records the outcome. */
async function deliver(db: PrismaClient, job: q.ClaimedJob, s: PrintWorkerSettings): Promise<void> {
  let outcome = await sendRaw(job.host, job.porta, job.zpl, s.timeoutMs);
  if (!outcome.ok && outcome.refused) {
    await pause(s.retryDelayMs);
    outcome = await sendRaw(job.host, job.porta, job.zpl, s.timeoutMs);
    if (!outcome.ok && outcome.refused) outcome = { ...outcome, motivo: `${outcome.motivo} (2 tentativi)` };
  }
  await first(db, q.finishJob(job.id, outcome.ok ? "stampata" : "fallita", outcome.ok ? null : outcome.motivo));
}

export interface PrintWorker {
  wake(): void;
  stop(): Promise<void>;
}

const running = new Set<PrintWorker>();

/** Called after a job was queued in this instance: its worker looks at once instead of at its next poll. */
export function wakePrintWorkers(): void {
  for (const w of running) w.wake();
}

export function startPrintWorker(
  db: PrismaClient,
  settings: Partial<PrintWorkerSettings> = {},
  log: (m: string) => void = console.log,
): PrintWorker {
  const s = { ...DEFAULT_PRINT_SETTINGS, ...settings };
  // Longer than any send can take (two attempts and the pause): a job still `in_invio` then was cut short.
  const staleSeconds = Math.ceil((3 * s.timeoutMs + s.retryDelayMs) / 1000) + 30;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wakeUp: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();

  async function round(): Promise<void> {
    await first(db, q.abandonStaleJobs(staleSeconds, "esito incerto: l'invio si è interrotto (servizio arrestato); ristampare se serve"));
    while (!stopped && inFlight.size < s.concurrency) {
      const job = await first(db, q.claimJob());
      if (!job) return;
      const p = deliver(db, job, s)
        .catch((e: unknown) => log(`Stampa ${job.id}: esito non registrato: ${(e as Error).message}`))
        .finally(() => {
          inFlight.delete(p);
          wakeUp?.();
        });
      inFlight.add(p);
    }
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        await round();
      } catch (e) {
        log(`Coda di stampa: ${(e as Error).message}`);
      }
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        timer = setTimeout(resolve, s.pollMs);
      });
      clearTimeout(timer);
    }
  })();

  const worker: PrintWorker = {
    wake: () => wakeUp?.(),
    async stop() {
      stopped = true;
      running.delete(worker);
      wakeUp?.();
      await loop;
      await Promise.all(inFlight);
    },
  };
  running.add(worker);
  return worker;
}
