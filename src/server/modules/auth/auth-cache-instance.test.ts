import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import type { CachedApiKey } from "./auth-cache";
import { AuthCache } from "./auth-cache";
import { authenticateApiKey } from "./api-keys.service";
import { hashSessionToken, resolveSession } from "./sessions.service";
import type { ResolvedSession } from "./sessions.types";
import { b, LIMITS, newKey, newSession, sleep, startInstancesBeforeAll, t } from "../../testing/auth-cache-fixtures";

/** The authentication cache (auth-cache.ts) of one instance: a hit asks the database nothing, a session's expiry is checked at every hit, what cannot be trusted is not stored. */

startInstancesBeforeAll();

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
