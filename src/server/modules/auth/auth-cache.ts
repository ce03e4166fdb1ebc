import type { PrismaClient } from "../../db/client";
import { startListener, type Listener, type ListenerOptions } from "../../db/listener";
import type { Scope } from "./actor";
import type { ResolvedSession } from "./sessions.types";

/**
 * What authenticates a request, kept in process so that a request whose key or session was seen
 * recently asks nothing of the database: an API key by the SHA-256 of its text (id, name, scopes, burst),
 * a UI session by the SHA-256 of its token (the user, the role, the CSRF token, the expiry).
 *
 * Safety comes before hits:
 * - Changes arrive from every instance through PostgreSQL: triggers on chiavi_api, utenti and sessioni
 *   NOTIFY `banchina_autenticazione` at commit (migration 20261126000000_avvisi_autenticazione), naming
 *   the key or the user; each instance LISTENs on a connection of its own and drops what was named.
 * - Only while that connection listens is anything read from or written to the cache. When it is lost
 *   (start-up, an error, the server restarting, an unanswered health check) the cache is emptied and
 *   bypassed: every request goes to the database. When it listens again the cache is emptied once more,
 *   for notifications sent meanwhile were never heard.
 * - A load started before a notification (or a reconnection) is not stored: it may have read the row
 *   before the change committed. Every invalidation moves a generation; a load stores only under the
 *   generation it started in (`ticket`).
 * - Entries live `ttlMs` at most, a backstop for what no trigger could say; a session's expiry is
 *   checked on every hit against the clock, with the time it had left on the database's clock when
 *   read, so the two hosts' clocks never need to agree.
 * - Only what exists is cached, never a refusal: an unknown token costs a statement every time, and the
 *   cache can only hold keys and sessions that someone was given.
 * What remains: an instance knows of a commit when its notice arrives (the listening backend is signalled
 * at commit), so a request that reaches it first is served as one in flight during the change would be.
 * Closing that window needs a round trip per request (a statement on the listener's connection after
 * which every earlier notice has arrived), which is what the cache exists to save.
 */

export const AUTH_CHANNEL = "banchina_autenticazione";

export interface CachedApiKey {
  id: number;
  nome: string;
  permessi: Scope[];
  raffica: number | null;
}

interface Entry {
  value: CachedApiKey | ResolvedSession;
  /** clock() after which the entry is not used. */
  until: number;
  /** What a notification names: `chiave:<id>` or `utente:<id>`. */
  owner: string;
}

export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private listening = false;
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** In use: the listener is connected, so what the cache holds is known to be current. */
  get active(): boolean {
    return this.listening;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Either way, what the cache held may be stale: it starts again empty. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.clear();
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** A notification's payload: drops what it names (and everything when it names nothing we know). */
  invalidate(payload: string): void {
    this.generation++;
    const m = /^(chiave|utente|sessioni):(\d+)$/.exec(payload);
    if (!m) {
      this.entries.clear();
      return;
    }
    const owner = m[1] === "chiave" ? `chiave:${m[2]}` : `utente:${m[2]}`;
    for (const [k, e] of this.entries) if (e.owner === owner) this.entries.delete(k);
  }

  /**
   * Lets the event loop read what has already reached the process before a request is served from
   * the cache, so a notification waiting in the listener's socket is applied first. Two turns: a first
   * setImmediate queued from an I/O callback runs before the loop polls its sockets again.
   */
  async caughtUp(): Promise<void> {
    await new Promise(setImmediate);
    await new Promise(setImmediate);
  }

  /** Taken before a load; undefined while the cache is bypassed (nothing will be stored). */
  ticket(): number | undefined {
    return this.listening ? this.generation : undefined;
  }

  apiKey(hash: string): CachedApiKey | undefined {
    const v = this.get(`k${hash}`);
    return v && { ...(v as CachedApiKey) };
  }

  putApiKey(ticket: number | undefined, hash: string, key: CachedApiKey): void {
    this.put(ticket, `k${hash}`, `chiave:${key.id}`, { ...key }, this.ttlMs);
  }

  session(id: string): ResolvedSession | undefined {
    const v = this.get(`s${id}`) as ResolvedSession | undefined;
    return v && { ...v, actor: { ...v.actor } };
  }

  /** `lifeMs`: how long the session had left on the database's clock when it was read. */
  putSession(ticket: number | undefined, session: ResolvedSession, lifeMs: number): void {
    const copy = { ...session, actor: { ...session.actor } };
    this.put(ticket, `s${session.id}`, `utente:${session.actor.id}`, copy, Math.min(this.ttlMs, lifeMs));
  }

  private get(k: string): Entry["value"] | undefined {
    if (!this.listening) return undefined;
    const e = this.entries.get(k);
    if (!e) return undefined;
    if (this.clock() >= e.until) {
      this.entries.delete(k);
      return undefined;
    }
    return e.value;
  }

  private put(ticket: number | undefined, k: string, owner: string, value: Entry["value"], lifeMs: number): void {
    if (ticket === undefined || ticket !== this.generation || !this.listening || lifeMs <= 0) return;
    this.entries.delete(k);
    // The oldest entry goes first (a Map keeps insertion order).
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(k, { value, until: this.clock() + lifeMs, owner });
  }
}

// On the client itself, under a global symbol, as the pool is (client.ts): Next's bundles of the route
// handlers and page helpers have their own copies of this module and must find the server's cache.
const CACHE = Symbol.for("banchina.authCache");

/** The cache of a client's instance, if it has one (never for a transaction: auth reads run outside them). */
export function authCacheOf(db: object): AuthCache | undefined {
  const entry = (db as { [CACHE]?: { cache: AuthCache; client: object } })[CACHE];
  return entry?.client === db ? entry.cache : undefined;
}

export interface RunningAuthCache {
  cache: AuthCache;
  /** The listener's server process while it listens (tests terminate it). */
  readonly backendPid: number | undefined;
  /** Resolves once the listener listens (at once when it already does). */
  whenListening(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Gives `db` (one instance's client) its cache and starts the listener that keeps it current. Nothing
 * waits for the listener: until it listens, requests simply go to the database.
 */
export function startAuthCache(
  db: PrismaClient,
  connectionString: string,
  opts: {
    ttlSeconds: number;
    log: (m: string) => void;
    maxEntries?: number;
    /** The listener's health checks and reconnection delays (defaults in listener.ts). */
    listener?: Omit<ListenerOptions, "applicationName">;
    /** Told of every notification once it is applied (tests). */
    onNotification?: (payload: string) => void;
  },
): RunningAuthCache {
  const cache = new AuthCache(opts.ttlSeconds * 1000, opts.maxEntries);
  let waiters: (() => void)[] = [];
  let wasUp = false;
  let stopping = false;
  const listener: Listener = startListener(
    connectionString,
    AUTH_CHANNEL,
    {
      onNotification(payload) {
        cache.invalidate(payload);
        opts.onNotification?.(payload);
      },
      onState(listening, reason) {
        cache.setListening(listening);
        if (listening) {
          if (wasUp) opts.log("Autenticazione: ascolto delle modifiche ripreso; la cache riparte vuota.");
          wasUp = true;
          for (const w of waiters.splice(0)) w();
        } else if (!stopping) {
          opts.log(
            `Autenticazione: ascolto delle modifiche interrotto (${reason}); chiavi e sessioni si verificano sul database finché non riprende.`,
          );
        }
      },
    },
    { ...opts.listener, applicationName: "banchina-autenticazione" },
  );
  Object.defineProperty(db, CACHE, { value: { cache, client: db }, configurable: true });
  return {
    cache,
    get backendPid() {
      return listener.backendPid;
    },
    whenListening: () => (listener.listening ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    async stop() {
      Object.defineProperty(db, CACHE, { value: undefined, configurable: true });
      waiters = [];
      stopping = true;
      await listener.stop();
      cache.setListening(false);
    },
  };
}
