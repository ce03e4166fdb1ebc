import pg from "pg";

/**
 * One connection of its own that LISTENs on a channel, apart from the shared pool (a pooled connection
 * is handed to other statements and may be closed when idle, and a LISTEN belongs to its session).
 *
 * What it promises its user is the state: `listening` is true only while the LISTEN is in place on a
 * connection that answers; `onState(false)` is called as soon as that stops being certain (an error,
 * the connection closed, a health check unanswered), and `onState(true)` once a new connection listens
 * again. Notifications sent while it was down are lost: a user that caches must treat a down → up as
 * "anything may have changed". It reconnects by itself, with a growing delay, until stopped.
 *
 * A connection can die without a word (a network cut with no reset): every `pingMs` it runs a trivial
 * statement and gives up on the connection when no answer comes within `pingTimeoutMs`.
 */
export interface ListenerOptions {
  /** Shown in pg_stat_activity. */
  applicationName: string;
  pingMs?: number;
  pingTimeoutMs?: number;
  /** First and longest wait before connecting again. */
  retryMs?: { min: number; max: number };
}

export interface ListenerHandlers {
  onNotification(payload: string): void;
  onState(listening: boolean, reason?: string): void;
}

export interface Listener {
  readonly listening: boolean;
  /** The server process of the current connection, while listening (tests terminate it). */
  readonly backendPid: number | undefined;
  stop(): Promise<void>;
}

/** A channel name as an SQL identifier (LISTEN takes no parameter). */
function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function startListener(connectionString: string, channel: string, on: ListenerHandlers, opts: ListenerOptions): Listener {
  const pingMs = opts.pingMs ?? 10_000;
  const pingTimeoutMs = opts.pingTimeoutMs ?? 5_000;
  const retry = opts.retryMs ?? { min: 250, max: 5_000 };
  let stopped = false;
  let current: pg.Client | undefined;
  let listening = false;
  let backendPid: number | undefined;
  let delay = retry.min;
  let retryTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let closing: Promise<void> = Promise.resolve();

  /** Gives up on `c` (once): the state goes down at once, a new connection is tried later. */
  function lose(c: pg.Client, reason: string): void {
    if (c !== current) return;
    current = undefined;
    backendPid = undefined;
    clearInterval(pingTimer);
    c.removeAllListeners("notification");
    // An unanswered connection is destroyed rather than waited for (end() destroys it while a statement hangs).
    closing = c.end().catch(() => {});
    if (listening) {
      listening = false;
      on.onState(false, reason);
    }
    if (stopped) return;
    retryTimer = setTimeout(connect, delay);
    retryTimer.unref();
    delay = Math.min(delay * 2, retry.max);
  }

  async function ping(c: pg.Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        c.query("SELECT 1"),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`nessuna risposta entro ${pingTimeoutMs} ms`)), pingTimeoutMs);
        }),
      ]);
    } catch (e) {
      lose(c, e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
  }

  async function connect(): Promise<void> {
    if (stopped) return;
    const c = new pg.Client({ connectionString, application_name: opts.applicationName, keepAlive: true, connectionTimeoutMillis: 5_000 });
    current = c;
    // Heard for the client's whole life: an unheard 'error' would end the process.
    c.on("error", (e) => lose(c, e.message));
    c.on("end", () => lose(c, "connessione chiusa"));
    c.on("notification", (n) => {
      if (n.channel === channel) on.onNotification(n.payload ?? "");
    });
    try {
      await c.connect();
      const pid = await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await c.query(`LISTEN ${quoteIdent(channel)}`);
      if (c !== current) return;
      backendPid = pid.rows[0]?.pid;
    } catch (e) {
      lose(c, e instanceof Error ? e.message : String(e));
      return;
    }
    delay = retry.min;
    listening = true;
    on.onState(true);
    pingTimer = setInterval(() => void ping(c), pingMs);
    pingTimer.unref();
  }

  void connect();
  return {
    get listening() {
      return listening;
    },
    get backendPid() {
      return backendPid;
    },
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      if (current) lose(current, "arresto");
      await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    },
  };
}
