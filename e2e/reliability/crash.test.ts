import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDb, type TestDb } from "../../src/server/testing/db";
import {
  call,
  callUntilSettled,
  cleanup,
  embeddedUrl,
  ensureBuild,
  launch,
  postgresFor,
  snapshot,
  tempDir,
  verify,
  waitUntil,
  type Service,
} from "./harness";
import { inFlight, requestLock, waitMidTransaction } from "./inflight";
import { articleCode, createKey, seedArticles, seedOrder, seedSupplier, seedWarehouse } from "./seed";

/**
 * Crash: the service SIGKILLed in the middle of a large write. After the restart the request is
 * wholly absent (its transaction never committed), its retry with the same Idempotency-Key completes
 * it exactly once, a second retry replays, and the ledger check passes.
 *
 * How the kill is made to land inside the request: a warm-up request of the same size measures its
 * duration D; the crash request is sent, the test polls pg_locks/pg_stat_activity for the backend
 * holding the request's Idempotency-Key lock (taken first thing in its transaction) until that
 * backend has a transaction id (it has written rows), waits until 40% of D has passed since sending,
 * checks once more that the transaction is still open, and sends SIGKILL at once. On the embedded database the
 * test also holds the order's row, the last lock an arrival takes, so the request cannot finish first.
 */

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

beforeAll(async () => ensureBuild((m) => console.log(`[affidabilità] ${m}`)), 600_000);
afterAll(async () => cleanup(), 120_000);

describe("SIGKILL during a write", () => {
  test("500-row POST /arrivi, service on its embedded PostgreSQL (the watchdog stops it with the service)", async () => {
    const dataDir = tempDir();
    let s: Service = await launch({ dataDir });
    let pool = new pg.Pool({ connectionString: embeddedUrl(dataDir), max: 3 });
    pool.on("error", () => {});

    const m1 = await seedWarehouse(pool, "M1");
    const f1 = await seedSupplier(pool, "F1");
    const plain = await seedArticles(pool, "CR", 50);
    const lotted = await seedArticles(pool, "CL", 10, { lotti: true });
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        i < 400 ? { articolo: plain[i % 50]!, quantita: 10 } : { articolo: lotted[(i - 400) % 10]!, quantita: 5 },
      );
    const warm = await seedOrder(pool, { numero: "WARM", fornitore: f1, magazzino: m1, righe: rows(500) });
    const crash = await seedOrder(pool, { numero: "CRASH", fornitore: f1, magazzino: m1, righe: rows(500) });
    const { chiave: key, id: keyId } = await createKey(pool, ["scrittura"]);
    const body = (order: { righe: number[] }, ddt: string) => ({
      magazzino: m1,
      ddt,
      righe: order.righe.map((riga, i) =>
        i < 400 ? { riga, quantita: 3 } : { riga, quantita: 2, lotto: `${ddt}-L${i}`, scadenza: "2027-12-31" },
      ),
    });
    const expectedQty = 400 * 3 + 100 * 2;

    const w = await call(s.base, "POST", "/arrivi", { key, body: body(warm, "WARM"), idem: "warm-arrivo" });
    expect(w.status, w.text).toBe(200);
    expect(w.body).toMatchObject({ registrate: 500, rifiutate: 0 });
    const duration = w.ms;

    const before = await snapshot(pool);
    const lock = requestLock(keyId, "/arrivi", "crash-arrivo");
    // The order's row is the last lock an arrival takes (ARCHITECTURE.md, the lock order): held here, the
    // request writes its rows and then waits, open, for as long as the kill needs (a fast machine finished
    // the write before 40% of the warm-up's time had passed). PostgreSQL stops with the service, and this
    // connection with it.
    const holder = new pg.Client({ connectionString: embeddedUrl(dataDir) });
    holder.on("error", () => {});
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM ordini_acquisto WHERE id = $1 FOR NO KEY UPDATE", [crash.id]);
    const sentAt = Date.now();
    const pending = call(s.base, "POST", "/arrivi", { key, body: body(crash, "CRASH"), idem: "crash-arrivo" }).then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    const seen = await waitMidTransaction(pool, lock, { sentAt, expectedMs: duration, fraction: 0.4 });
    s.proc.kill("SIGKILL");
    const killedAt = Date.now() - sentAt;
    const outcome = await pending;
    expect(outcome.ok, "the client got no answer: the connection died with the service").toBe(false);
    await s.exit;
    await waitUntil("PostgreSQL fermato dal watchdog", () => postgresFor(dataDir).length === 0, 30_000);
    await holder.end().catch(() => {});
    report("crash arrivi 500 righe", {
      warmupMs: duration,
      firstSeenWritingMs: seen.firstSeenMs,
      killedAtMs: killedAt,
      fraction: +(killedAt / duration).toFixed(2),
      lastSeen: seen.last,
    });
    await pool.end().catch(() => {});

    s = await launch({ dataDir });
    pool = new pg.Pool({ connectionString: embeddedUrl(dataDir), max: 3 });
    pool.on("error", () => {});
    // Wholly absent: nothing of the request, anywhere.
    expect(await snapshot(pool)).toEqual(before);
    expect((await pool.query("SELECT count(*)::int AS n FROM operazioni WHERE ddt = 'CRASH'")).rows[0].n).toBe(0);
    expect(
      (await pool.query("SELECT count(*)::int AS n FROM righe_ordine WHERE ordine_id = $1 AND arrivata <> 0", [crash.id])).rows[0].n,
    ).toBe(0);
    expect((await pool.query("SELECT count(*)::int AS n FROM lotti WHERE codice LIKE 'CRASH-%'")).rows[0].n).toBe(0);

    // The retry completes it exactly once.
    const retry = await callUntilSettled(s.base, "POST", "/arrivi", { key, body: body(crash, "CRASH"), idem: "crash-arrivo" });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    expect(retry.body).toMatchObject({ registrate: 500, rifiutate: 0 });
    const done = await snapshot(pool);
    expect(done.movimenti - before.movimenti).toBe(500);
    expect(done.operazioni - before.operazioni).toBe(1);
    expect(done.lotti - before.lotti).toBe(100);
    expect(done.idempotenza - before.idempotenza).toBe(1);
    expect(Number(done.giacenze_somma) - Number(before.giacenze_somma)).toBe(expectedQty);
    expect(Number(done.arrivata_somma) - Number(before.arrivata_somma)).toBe(expectedQty);
    const op = await pool.query(
      "SELECT count(*)::int AS n, sum(quantita)::float8 AS q FROM movimenti WHERE operazione_id = $1 AND origine = 'arrivo'",
      [retry.body.operazione],
    );
    expect(op.rows[0]).toEqual({ n: 500, q: expectedQty });
    expect((await pool.query("SELECT stato FROM ordini_acquisto WHERE id = $1", [crash.id])).rows[0].stato).toBe("parziale");

    // A second retry replays.
    const replay = await call(s.base, "POST", "/arrivi", { key, body: body(crash, "CRASH"), idem: "crash-arrivo" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body).toEqual(retry.body);
    expect(await snapshot(pool)).toEqual(done);

    const v = await verify({ dataDir });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain("Nessuna differenza");
    report("crash arrivi: dopo il riavvio", { retryAttempts: retry.attempts, retryMs: retry.ms, verify: v.stdout.trim().split("\n")[0] });
    await pool.end();
  }, 300_000);

  test("10,000-row POST /giacenze/allinea, PostgreSQL outside the service (it survives the kill)", async () => {
    const t: TestDb = await createTestDb();
    try {
      const pool = t.pool;
      const m1 = await seedWarehouse(pool, "M1");
      const ids = await seedArticles(pool, "AL", 10_000);
      const { chiave: key, id: keyId } = await createKey(pool, ["scrittura"]);
      let s = await launch({ databaseUrl: t.url });
      const righe = (count: (i: number) => number) => ids.map((_, i) => ({ codice: articleCode("AL", i + 1), contato: count(i) }));
      const counted = (i: number) => (i % 2 ? 7 : 3.125);

      const w = await call(s.base, "POST", "/giacenze/allinea", {
        key,
        body: { magazzino: m1, righe: righe(() => 5) },
        idem: "warm-allinea",
      });
      expect(w.status, w.text.slice(0, 500)).toBe(200);
      expect(w.body).toMatchObject({ scritte: 10_000, rifiutate: 0 });
      const duration = w.ms;

      const before = await snapshot(pool);
      const crashBody = { magazzino: m1, causale: "inventario", righe: righe(counted) };
      const lock = requestLock(keyId, "/giacenze/allinea", "crash-allinea");
      const sentAt = Date.now();
      const pending = call(s.base, "POST", "/giacenze/allinea", { key, body: crashBody, idem: "crash-allinea" }).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      const seen = await waitMidTransaction(pool, lock, { sentAt, expectedMs: duration, fraction: 0.4 });
      s.proc.kill("SIGKILL");
      const killedAt = Date.now() - sentAt;
      expect((await pending).ok).toBe(false);
      await s.exit;
      // The backend outlives its client until it next talks to it; it can never commit (COMMIT is the client's).
      const orphanStart = Date.now();
      const orphan = await inFlight(pool, lock);
      await waitUntil("la transazione orfana termina", async () => !(await inFlight(pool, lock)), 120_000, 20);
      report("crash allinea 10.000 righe", {
        warmupMs: duration,
        firstSeenWritingMs: seen.firstSeenMs,
        killedAtMs: killedAt,
        fraction: +(killedAt / duration).toFixed(2),
        lastSeen: seen.last,
        orphanAfterKill: orphan ?? null,
        orphanLivedMs: Date.now() - orphanStart,
      });
      expect(await snapshot(pool)).toEqual(before);
      expect((await pool.query("SELECT count(*)::int AS n FROM giacenze WHERE magazzino_id = $1 AND quantita <> 5", [m1])).rows[0].n).toBe(
        0,
      );

      s = await launch({ databaseUrl: t.url });
      const retry = await callUntilSettled(s.base, "POST", "/giacenze/allinea", { key, body: crashBody, idem: "crash-allinea" });
      expect(retry.status, retry.text.slice(0, 500)).toBe(200);
      expect(retry.headers.get("idempotency-replayed")).toBeNull();
      expect(retry.body).toMatchObject({ scritte: 10_000, invariate: 0, rifiutate: 0 });
      const done = await snapshot(pool);
      expect(done.movimenti - before.movimenti).toBe(10_000);
      expect(done.operazioni - before.operazioni).toBe(1);
      expect(done.idempotenza - before.idempotenza).toBe(1);
      const matching = await pool.query(
        `SELECT count(*)::int AS n FROM giacenze g JOIN unnest($1::int[], $2::numeric[]) AS u(a, q) ON u.a = g.articolo_id
          WHERE g.magazzino_id = $3 AND g.quantita = u.q`,
        [ids, ids.map((_, i) => String(counted(i))), m1],
      );
      expect(matching.rows[0].n).toBe(10_000);
      const corrections = await pool.query("SELECT count(*)::int AS n FROM movimenti WHERE origine = 'correzione' AND operazione_id = $1", [
        retry.body.operazione,
      ]);
      expect(corrections.rows[0].n).toBe(10_000);

      const replay = await call(s.base, "POST", "/giacenze/allinea", { key, body: crashBody, idem: "crash-allinea" });
      expect(replay.headers.get("idempotency-replayed")).toBe("true");
      expect(replay.body).toEqual(retry.body);
      expect(await snapshot(pool)).toEqual(done);

      const v = await verify({ databaseUrl: t.url });
      expect(v.code, v.stdout + v.stderr).toBe(0);
      report("crash allinea: dopo il riavvio", {
        retryAttempts: retry.attempts,
        retryMs: retry.ms,
        verify: v.stdout.trim().split("\n")[0],
      });
    } finally {
      await cleanup();
      await t.drop();
    }
  }, 300_000);
});
