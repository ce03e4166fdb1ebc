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
  /** How one attempt is made (sendRaw); tests wrap it to count the attempts. */
  send: Sender;
}

export const DEFAULT_PRINT_SETTINGS: PrintWorkerSettings = {
  timeoutMs: 5000,
  retryDelayMs: 1000,
  pollMs: 1000,
  concurrency: 4,
  send: sendRaw,
};

export type SendOutcome = { ok: true } | { ok: false; connected: boolean; refused: boolean; motivo: string };

/** One attempt at sending a job's bytes; the worker's default is sendRaw, tests may wrap it to count attempts. */
export type Sender = (host: string, port: number, data: string, timeoutMs: number) => Promise<SendOutcome>;

/**
 * One attempt: connect, write, half-close, then wait for the printer to close its side. A raw-port printer
 * closes once it has read everything we sent, so its close is the only sign the job arrived; bytes merely
 * handed to our kernel prove nothing (a printer that accepts and never reads would look printed). So:
 * a printer that never closes is a timeout, and a reset or an error after connecting leaves the outcome
 * unknown ("esito incerto"). Neither is retried: the printer may hold the bytes, and a retry could print twice.
 */
export function sendRaw(host: string, port: number, data: string, timeoutMs: number): Promise<SendOutcome> {
  return new Promise((resolve) => {
    let connected = false;
    let flushed = false;
    let settled = false;
    const where = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    const seconds = timeoutMs / 1000;
    const socket = net.connect({ host, port });
    const settle = (o: SendOutcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(o);
    };
    // An idle timeout: it restarts on every byte in either direction, so a long job still sending is not cut.
    socket.setTimeout(timeoutMs, () =>
      settle({
        ok: false,
        connected,
        refused: false,
        motivo: connected
          ? `timeout: la stampante ${where} non ha confermato la ricezione entro ${seconds} s (esito incerto: ristampare se l'etichetta non è uscita)`
          : `timeout: nessuna risposta da ${where} entro ${seconds} s`,
      }),
    );
    socket.on("connect", () => {
      connected = true;
      socket.end(data, () => {
        flushed = true;
      });
    });
    // Whatever the printer answers (status bytes) is read and ignored: reading keeps the close observable.
    socket.on("data", () => {});
    socket.on("close", (hadError) => {
      if (hadError) return; // the error handler settled it
      settle(
        flushed
          ? { ok: true }
          : {
              ok: false,
              connected,
              refused: false,
              motivo: `esito incerto: la stampante ${where} ha chiuso la connessione prima di ricevere tutto`,
            },
      );
    });
    socket.on("error", (e: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        connected,
        refused: e.code === "ECONNREFUSED",
        motivo: connected
          ? `esito incerto: connessione con ${where} interrotta durante l'invio (${e.code ?? e.message}); ristampare se l'etichetta non è uscita`
          : e.code === "ECONNREFUSED"
            ? `connessione rifiutata da ${where}`
            : `stampante non raggiungibile a ${where} (${e.code ?? e.message})`,
      }),
    );
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one claimed job, retrying once a refused connection; records the outcome. */
async function deliver(db: PrismaClient, job: q.ClaimedJob, s: PrintWorkerSettings): Promise<void> {
  let outcome = await s.send(job.host, job.porta, job.zpl, s.timeoutMs);
  // Only a refused connection is tried again: nothing reached the printer. Any other failure may have printed.
  if (!outcome.ok && !outcome.connected && outcome.refused) {
    await pause(s.retryDelayMs);
    outcome = await s.send(job.host, job.porta, job.zpl, s.timeoutMs);
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
