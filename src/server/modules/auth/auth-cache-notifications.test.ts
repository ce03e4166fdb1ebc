import pg from "pg";
import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import { setUserPassword, updateUser } from "../users/users.service";
import { AUTH_CHANNEL } from "./auth-cache";
import { authenticateApiKey, revokeApiKeyById } from "./api-keys.service";
import { hashSessionToken, resolveSession, signOut } from "./sessions.service";
import {
  a,
  ADMIN,
  b,
  type Instance,
  LIMITS,
  newKey,
  newSession,
  refused,
  startInstancesBeforeAll,
  t,
  until,
} from "../../testing/auth-cache-fixtures";

/** Two instances on one database: what one changes the other stops accepting as soon as the commit's notification reaches it, not a TTL later; what is announced and what is not. */

startInstancesBeforeAll();

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
    // The revocation lands while requests are in flight on both instances: once each has accepted some, not after a
    // pause (on busy cores a pause may pass before many were accepted, or any).
    const acceptedOn = (x: Instance) => accepted.filter((r) => r.x === x).length;
    await until(() => acceptedOn(a) > 8 && acceptedOn(b) > 8, 30_000);
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
