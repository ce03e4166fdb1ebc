import net from "node:net";
import pg from "pg";
import { afterAll, describe, expect } from "vitest";
import { closePrisma, createPrisma, poolOf, type PrismaClient } from "../../db/client";
import type { ListenerOptions } from "../../db/listener";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { createUser, setUserPassword, updateUser } from "../users/users.service";
import type { Actor } from "./actor";
import { AUTH_CHANNEL, AuthCache, startAuthCache, type CachedApiKey, type RunningAuthCache } from "./auth-cache";
import { authenticateApiKey, createApiKey, revokeApiKeyById } from "./api-keys.service";
import { hashSessionToken, resolveSession, signIn, signOut } from "./sessions.service";
import type { ResolvedSession } from "./sessions.types";

/**
 * The authentication cache (auth-cache.ts) on a real PostgreSQL: two "instances" in this process, each a
 * client with its own pool, its own cache and its own LISTEN connection, on one database. What one changes
 * the other must stop accepting as soon as the commit's notification reaches it, not a TTL later; a hit
 * must ask the database nothing; a lost listener must send every request to the database.
 */

const LIMITS = { perSecond: 50, burst: 200 };
const ADMIN: Actor = { kind: "chiave", id: 0, nome: "test", permessi: ["lettura", "scrittura"] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestDb;
let a: Instance;
let b: Instance;
const stops: (() => Promise<void>)[] = [];

interface Instance {
  db: PrismaClient;
  running: RunningAuthCache;
  /** Connections taken from this instance's pool so far: every statement takes one. */
  statements(): number;
  /** Resolves with the moment (performance.now()) this instance applied a notification with that payload. */
  heard(payload: string, withinMs?: number): Promise<number>;
}

async function instance(url = t.url, listener?: Omit<ListenerOptions, "applicationName">): Promise<Instance> {
  const db = createPrisma(url, 4);
  let taken = 0;
  poolOf(db)!.on("acquire", () => taken++);
  const waiting = new Set<{ payload: string; resolve: () => void }>();
  const running = startAuthCache(db, url, {
    ttlSeconds: 300,
    log: () => {},
    listener: { retryMs: { min: 200, max: 1_000 }, ...listener },
    onNotification(payload) {
      for (const w of waiting)
        if (w.payload === payload) {
          waiting.delete(w);
          w.resolve();
        }
    },
  });
  stops.push(async () => {
    await running.stop();
    await closePrisma(db);
  });
  await running.whenListening();
  return {
    db,
    running,
    statements: () => taken,
    heard(payload, withinMs = 5_000) {
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`'${payload}' non ricevuto entro ${withinMs} ms`)), withinMs);
        waiting.add({
          payload,
          resolve: () => {
            clearTimeout(timer);
            resolve(performance.now());
          },
        });
      });
    },
  };
}

test.beforeAll(async ({ db }) => {
  t = db;
  a = await instance();
  b = await instance();
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

let seq = 0;
/** A key with the default bucket, or one no test can empty (`unbounded`). */
async function newKey(unbounded = false) {
  const bucket = unbounded ? { limiteAlSecondo: 1e6, raffica: 1e6 } : {};
  return createApiKey(t.prisma, { nome: `cache-${++seq}`, permessi: ["lettura", "scrittura"], ...bucket });
}

async function newSession(ruolo: "operatore" | "responsabile" = "operatore") {
  const username = `cache-utente-${++seq}`;
  const user = await createUser(t.prisma, { username, password: "password-lunga-abbastanza", ruolo });
  const opened = await signIn(t.prisma, { username, password: "password-lunga-abbastanza", address: `cache-${seq}` });
  return { userId: user.id, token: opened.token };
}

const refused = { codice: "non_autenticato" };

/** Polls `ok` until it holds (or fails the test after `ms`). */
async function until(ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error("condizione non raggiunta in tempo");
    await sleep(5);
  }
}

describe("one instance's cache", () => {
  test("a hit asks the database nothing, for a key as for a session", async () => {
    const key = await newKey();
    let before = b.statements();
    const actor = await authenticateApiKey(b.db, key.chiave, LIMITS);
    // Authenticated and charged a batch of tokens in one statement.
    expect(b.statements()).toBe(before + 1);
    before = b.statements();
    for (let i = 0; i < 5; i++) expect(await authenticateApiKey(b.db, key.chiave, LIMITS)).toEqual(actor);
    expect(b.statements()).toBe(before);

    const s = await newSession();
    before = b.statements();
    const session = await resolveSession(b.db, s.token);
    expect(session?.actor).toMatchObject({ id: s.userId, ruolo: "operatore" });
    expect(b.statements()).toBe(before + 1);
    before = b.statements();
    for (let i = 0; i < 5; i++) expect(await resolveSession(b.db, s.token)).toEqual(session);
    expect(b.statements()).toBe(before);
  });

  test("a session's expiry is checked at every hit against the clock, not only when it was read", async () => {
    const s = await newSession();
    const cut = b.heard(`sessioni:${s.userId}`);
    await t.pool.query("UPDATE sessioni SET scade_il = statement_timestamp() + interval '3 seconds' WHERE id = $1", [
      hashSessionToken(s.token),
    ]);
    await cut;
    expect(await resolveSession(b.db, s.token)).not.toBeNull();
    const before = b.statements();
    expect(await resolveSession(b.db, s.token)).not.toBeNull();
    expect(b.statements()).toBe(before);
    await sleep(3_100);
    expect(await resolveSession(b.db, s.token)).toBeNull();
    // The cache gave it up by itself and asked the database, which agreed.
    expect(b.statements()).toBe(before + 1);
  });

  test("what cannot be trusted is not stored: a load overtaken by a notification, anything while not listening", () => {
    let now = 0;
    const cache = new AuthCache(30_000, 3, () => now);
    const key = (id: number): CachedApiKey => ({ id, nome: `k${id}`, permessi: ["lettura"], raffica: null });
    const session = (user: number, id: string): ResolvedSession => ({
      id,
      csrf: "c",
      scadeIl: new Date(),
      actor: { kind: "utente", id: user, username: `u${user}`, ruolo: "operatore" },
    });

    // Not listening (start-up): nothing is read or stored.
    expect(cache.ticket()).toBeUndefined();
    cache.putApiKey(cache.ticket(), "h1", key(1));
    cache.setListening(true);
    expect(cache.apiKey("h1")).toBeUndefined();

    // A load that started before a notification may have read the row before the change committed.
    const ticket = cache.ticket();
    cache.invalidate("chiave:99");
    cache.putApiKey(ticket, "h1", key(1));
    expect(cache.apiKey("h1")).toBeUndefined();
    cache.putApiKey(cache.ticket(), "h1", key(1));
    expect(cache.apiKey("h1")).toEqual(key(1));

    // The TTL, and a session's own expiry, against the clock at every hit.
    cache.putSession(cache.ticket(), session(5, "s5"), 1_000);
    now = 999;
    expect(cache.session("s5")?.actor.id).toBe(5);
    now = 1_000;
    expect(cache.session("s5")).toBeUndefined();
    expect(cache.apiKey("h1")).toEqual(key(1));
    now = 30_000;
    expect(cache.apiKey("h1")).toBeUndefined();

    // What a notification names goes, and only that; a payload we do not know empties everything.
    cache.putApiKey(cache.ticket(), "h1", key(1));
    cache.putApiKey(cache.ticket(), "h2", key(2));
    cache.putSession(cache.ticket(), session(5, "s5"), 60_000);
    cache.invalidate("chiave:1");
    expect([cache.apiKey("h1"), cache.apiKey("h2")?.id, cache.session("s5")?.id]).toEqual([undefined, 2, "s5"]);
    cache.invalidate("sessioni:5");
    expect(cache.session("s5")).toBeUndefined();
    cache.putSession(cache.ticket(), session(6, "s6"), 60_000);
    cache.invalidate("utente:6");
    expect(cache.session("s6")).toBeUndefined();
    cache.invalidate("qualcosa di nuovo");
    expect(cache.size).toBe(0);

    // Bounded: the oldest entry makes room.
    for (const i of [1, 2, 3, 4]) cache.putApiKey(cache.ticket(), `h${i}`, key(i));
    expect([1, 2, 3, 4].map((i) => cache.apiKey(`h${i}`)?.id)).toEqual([undefined, 2, 3, 4]);

    // Listening lost, then back: empty both times.
    cache.setListening(false);
    expect(cache.apiKey("h2")).toBeUndefined();
    cache.setListening(true);
    expect(cache.size).toBe(0);
  });
});

describe("two instances on one database", () => {
  test("a key revoked through A is refused by B's cache as soon as the notification arrives, not a TTL later", async () => {
    const key = await newKey();
    for (const x of [a, b]) await authenticateApiKey(x.db, key.chiave, LIMITS);
    const before = b.statements();
    await authenticateApiKey(b.db, key.chiave, LIMITS);
    expect(b.statements()).toBe(before);

    const heardByB = b.heard(`chiave:${key.id}`);
    expect(await revokeApiKeyById(a.db, key.id)).toBe(true);
    const revokedAt = performance.now();
    // No cache can know of a commit before its notification reaches it: that is the only wait.
    const latency = (await heardByB) - revokedAt;
    await expect(authenticateApiKey(b.db, key.chiave, LIMITS)).rejects.toMatchObject(refused);
    await expect(authenticateApiKey(a.db, key.chiave, LIMITS)).rejects.toMatchObject(refused);
    console.log(`[cache] revoca: notifica ricevuta da B ${latency.toFixed(2)} ms dopo il ritorno della revoca`);
    expect(latency).toBeLessThan(1_000);
  });

  test("many requests racing a revocation on both instances: none starts after its instance heard it and passes", async () => {
    const key = await newKey(true);
    const heardAt = new Map<Instance, number>();
    for (const x of [a, b]) void x.heard(`chiave:${key.id}`, 10_000).then((at) => heardAt.set(x, at));
    const accepted: { x: Instance; startedAt: number }[] = [];
    let refusals = 0;
    const workers = [a, b].flatMap((x) =>
      Array.from({ length: 8 }, async () => {
        for (;;) {
          const startedAt = performance.now();
          try {
            await authenticateApiKey(x.db, key.chiave, LIMITS);
            accepted.push({ x, startedAt });
          } catch (e) {
            expect(e).toMatchObject(refused);
            refusals++;
            return;
          }
        }
      }),
    );
    await sleep(100);
    expect(await revokeApiKeyById(t.prisma, key.id)).toBe(true);
    await Promise.all(workers);
    expect(refusals).toBe(16);
    expect(accepted.length).toBeGreaterThan(16);
    for (const r of accepted) expect(r.startedAt).toBeLessThan(heardAt.get(r.x)!);
  });

  test("a session ended, a user deactivated or given another role through A: B knows at once", async () => {
    // Sign-out.
    const out = await newSession();
    expect(await resolveSession(b.db, out.token)).not.toBeNull();
    let heard = b.heard(`sessioni:${out.userId}`);
    await signOut(a.db, out.token);
    await heard;
    expect(await resolveSession(b.db, out.token)).toBeNull();

    // A new role, read at the next request.
    const s = await newSession();
    expect((await resolveSession(b.db, s.token))?.actor.ruolo).toBe("operatore");
    heard = b.heard(`utente:${s.userId}`);
    await updateUser(a.db, ADMIN, { id: s.userId, ruolo: "responsabile" });
    await heard;
    expect((await resolveSession(b.db, s.token))?.actor.ruolo).toBe("responsabile");

    // Deactivated by hand, its sessions left in place: the user's row alone refuses them.
    expect(await resolveSession(b.db, s.token)).not.toBeNull();
    heard = b.heard(`utente:${s.userId}`);
    await t.pool.query("UPDATE utenti SET attivo = false WHERE id = $1", [s.userId]);
    await heard;
    expect(await resolveSession(b.db, s.token)).toBeNull();

    // Deactivated through the service (which also ends the sessions).
    const d = await newSession("responsabile");
    expect(await resolveSession(b.db, d.token)).not.toBeNull();
    heard = b.heard(`utente:${d.userId}`);
    await updateUser(a.db, ADMIN, { id: d.userId, attivo: false });
    await heard;
    expect(await resolveSession(b.db, d.token)).toBeNull();
  });

  test("every change that can affect authentication is announced at commit; bookkeeping and rollbacks are not", async () => {
    const listen = new pg.Client({ connectionString: t.url });
    await listen.connect();
    const got: string[] = [];
    listen.on("notification", (n) => got.push(n.payload ?? ""));
    await listen.query(`LISTEN ${AUTH_CHANNEL}`);
    let mark = 0;
    /** The notices of `step`: a marker sent after it commits arrives after them (commit order). */
    const notices = async (step: () => Promise<unknown>) => {
      await step();
      const marker = `segno:${++mark}`;
      await t.pool.query("SELECT pg_notify($1, $2)", [AUTH_CHANNEL, marker]);
      await until(() => got.includes(marker));
      return got.splice(0).filter((p) => p !== marker);
    };
    try {
      const key = await newKey();
      const s = await newSession();
      const sid = hashSessionToken(s.token);
      // Rate-limit batches and the session's throttled last use and sliding expiry: silent.
      expect(await notices(() => authenticateApiKey(t.prisma, key.chiave, { perSecond: 50, burst: 20 }))).toEqual([]);
      expect(await notices(() => authenticateApiKey(t.prisma, key.chiave, { perSecond: 50, burst: 20 }))).toEqual([]);
      expect(
        await notices(() => t.pool.query("UPDATE sessioni SET ultimo_uso_il = now() - interval '2 minutes' WHERE id = $1", [sid])),
      ).toEqual([]);
      const slid = await notices(() => resolveSession(t.prisma, s.token));
      expect(slid).toEqual([]);
      const { rows } = await t.pool.query("SELECT ultimo_uso_il > now() - interval '1 minute' AS toccata FROM sessioni WHERE id = $1", [
        sid,
      ]);
      expect(rows[0].toccata).toBe(true);

      // A change rolled back says nothing.
      expect(
        await notices(async () => {
          const c = await t.pool.connect();
          await c.query("BEGIN");
          await c.query("UPDATE chiavi_api SET revocata_il = now() WHERE id = $1", [key.id]);
          await c.query("ROLLBACK");
          c.release();
        }),
      ).toEqual([]);

      expect(await notices(() => t.pool.query("UPDATE chiavi_api SET permessi = '{lettura}' WHERE id = $1", [key.id]))).toEqual([
        `chiave:${key.id}`,
      ]);
      expect(await notices(() => revokeApiKeyById(t.prisma, key.id))).toEqual([`chiave:${key.id}`]);
      expect(await notices(() => t.pool.query("DELETE FROM chiavi_api WHERE id = $1", [key.id]))).toEqual([`chiave:${key.id}`]);
      expect((await notices(() => setUserPassword(t.prisma, { id: s.userId, password: "Lampione-verde-93-Zq7!" }))).sort()).toEqual([
        `sessioni:${s.userId}`,
        `utente:${s.userId}`,
      ]);
      const s2 = await newSession();
      expect(
        await notices(() => t.pool.query("UPDATE sessioni SET scade_il = now() - interval '1 second' WHERE utente_id = $1", [s2.userId])),
      ).toEqual([`sessioni:${s2.userId}`]);
      expect((await notices(() => t.pool.query("DELETE FROM utenti WHERE id = $1", [s2.userId]))).sort()).toEqual([
        `sessioni:${s2.userId}`,
        `utente:${s2.userId}`,
      ]);
      await newSession();
      expect(await notices(() => t.pool.query("TRUNCATE sessioni"))).toEqual(["tutto"]);
    } finally {
      await listen.end();
    }
  });
});

describe("the listener", () => {
  test("killed: the cache is emptied and bypassed until it listens again, then starts empty; a revocation meanwhile is not missed", async () => {
    // An instance that waits long enough before reconnecting for the test to look at it while it is down.
    const c = await instance(t.url, { retryMs: { min: 1_500, max: 3_000 } });
    const kept = await newKey();
    const revoked = await newKey();
    for (const k of [kept, revoked]) await authenticateApiKey(c.db, k.chiave, LIMITS);
    expect(c.running.cache.size).toBe(2);

    const pid = c.running.backendPid;
    expect(pid).toBeGreaterThan(0);
    await t.pool.query("SELECT pg_terminate_backend($1)", [pid]);
    await until(() => !c.running.cache.active);
    expect(c.running.cache.size).toBe(0);

    // Bypassed: every request reads the database (this instance still holds rate-limit tokens, so the
    // statement is the key's lookup alone), and nothing is kept.
    const before = c.statements();
    for (let i = 0; i < 3; i++) await authenticateApiKey(c.db, kept.chiave, LIMITS);
    expect(c.statements()).toBe(before + 3);
    expect(c.running.cache.size).toBe(0);
    // A revocation this instance cannot hear of.
    await revokeApiKeyById(t.prisma, revoked.id);
    await expect(authenticateApiKey(c.db, revoked.chiave, LIMITS)).rejects.toMatchObject(refused);
    expect(c.running.cache.active).toBe(false);

    await c.running.whenListening();
    expect(c.running.backendPid).not.toBe(pid);
    expect(c.running.cache.size).toBe(0);
    await expect(authenticateApiKey(c.db, revoked.chiave, LIMITS)).rejects.toMatchObject(refused);
    const again = c.statements();
    await authenticateApiKey(c.db, kept.chiave, LIMITS);
    await authenticateApiKey(c.db, kept.chiave, LIMITS);
    expect(c.statements()).toBe(again + 1);
  });

  test("a connection that stops answering (no reset, no error) is given up after its health check, and the cache with it", async () => {
    // A TCP relay to PostgreSQL that can be frozen: bytes stop flowing both ways, the sockets stay open.
    const target = new URL(t.url);
    let frozen = false;
    const sockets: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const server = net.connect(Number(target.port), target.hostname);
      sockets.push(client, server);
      for (const [from, to] of [
        [client, server],
        [server, client],
      ] as const) {
        from.on("data", (chunk) => {
          if (!frozen) to.write(chunk);
        });
        from.on("error", () => {});
        from.on("close", () => to.destroy());
      }
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const via = new URL(t.url);
    // Over TCP through the relay, not the embedded server's socket directory.
    via.searchParams.delete("host");
    via.hostname = "127.0.0.1";
    via.port = String((relay.address() as net.AddressInfo).port);
    try {
      const c = await instance(via.toString(), { pingMs: 200, pingTimeoutMs: 300, retryMs: { min: 100, max: 200 } });
      const key = await newKey();
      await authenticateApiKey(c.db, key.chiave, LIMITS);
      expect(c.running.cache.size).toBe(1);
      frozen = true;
      const t0 = performance.now();
      await until(() => !c.running.cache.active, 3_000);
      expect(performance.now() - t0).toBeLessThan(1_000);
      expect(c.running.cache.size).toBe(0);
      frozen = false;
      await c.running.whenListening();
      expect(c.running.cache.size).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      relay.close();
    }
  });
});
