import net from "node:net";
import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import { authenticateApiKey, revokeApiKeyById } from "./api-keys.service";
import { instance, LIMITS, newKey, refused, startInstancesBeforeAll, t, until } from "../../testing/auth-cache-fixtures";

/** The cache's LISTEN connection lost (killed, or silent): the cache is emptied and every request goes to the database until it listens again. */

startInstancesBeforeAll();

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
