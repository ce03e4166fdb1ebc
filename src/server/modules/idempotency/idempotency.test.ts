import { idempotencyLockKey } from "../../db/advisory-locks";
import { describe, expect, vi } from "vitest";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedKey, seedWarehouse, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { purgeExpiredIdempotency } from "./idempotency.service";

let t: TestDb;
let key: string;
let keyId: number;
let other: string;
let articolo: number;
let magazzino: number;

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  magazzino = (await seedWarehouse(t.prisma)).id;
  articolo = (await seedArticle(t.prisma, "A1")).id;
  key = apiKey.chiave;
  keyId = apiKey.id;
  other = (await seedKey(t.prisma)).chiave;
});

const body = (q = 1) => ({ natura: "carico", magazzino: 1, righe: [{ codice: "A1", quantita: q }] });
const post = (idem: string, b: unknown, apiKey = key) =>
  rest("POST", "/movimenti", { key: apiKey, body: b, headers: { "idempotency-key": idem } });

describe("Idempotency-Key on POST /movimenti", () => {
  test("a retry replays the stored response and writes nothing again", async () => {
    const first = await post("k-replay", body(3));
    const before = await countRows(t, "movimenti");
    const again = await post("k-replay", body(3));
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    expect(await countRows(t, "movimenti")).toBe(before);
  });

  test("the canonical body decides: the same fields in another order are the same request", async () => {
    const first = await post("k-order", { righe: [{ quantita: 2, codice: "A1" }], magazzino: 1, natura: "carico" });
    const again = await post("k-order", body(2));
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  test("the same key with another body: 422 chiave_idempotenza_riutilizzata, nothing written", async () => {
    await post("k-reuse", body(1));
    const before = await countRows(t, "movimenti");
    const r = await post("k-reuse", body(2));
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("chiave_idempotenza_riutilizzata");
    expect(await countRows(t, "movimenti")).toBe(before);
  });

  test("keys are scoped per API key: another key's identical key runs on its own", async () => {
    const a = await post("k-scope", body(1));
    const b = await post("k-scope", body(1), other);
    expect(b.headers.get("idempotency-replayed")).toBeNull();
    expect(b.body.operazione).not.toBe(a.body.operazione);
  });

  test("while the first is still running: 409 idempotenza_in_corso with Retry-After", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const lock = idempotencyLockKey({ ambito: `k${keyId}`, metodo: "POST", percorso: "/movimenti", chiave: "k-busy" });
      await c.query("SELECT pg_advisory_xact_lock($1)", [lock.toString()]);
      const before = await countRows(t, "movimenti");
      const r = await post("k-busy", body(1));
      expect(r.status).toBe(409);
      expect(r.body.codice).toBe("idempotenza_in_corso");
      expect(r.headers.get("retry-after")).toBe("1");
      expect(await countRows(t, "movimenti")).toBe(before);
    } finally {
      await c.query("ROLLBACK");
      c.release();
    }
    expect((await post("k-busy", body(1))).status).toBe(200);
  });

  test("a refusal is stored and replayed as it was", async () => {
    const first = await post("k-refused", { ...body(1), magazzino: 999 });
    expect(first.status).toBe(422);
    expect(first.body.codice).toBe("magazzino_non_trovato");
    const again = await post("k-refused", { ...body(1), magazzino: 999 });
    expect(again.status).toBe(422);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
  });

  test("a 5xx is not stored: the retry runs and takes effect exactly once", async () => {
    const before = await stockOf(t, articolo, magazzino);
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    await t.pool.query("ALTER TABLE giacenze RENAME TO giacenze_rotte");
    let failed;
    try {
      failed = await post("k-5xx", body(7));
    } finally {
      await t.pool.query("ALTER TABLE giacenze_rotte RENAME TO giacenze");
      log.mockRestore();
    }
    expect(failed.status).toBe(500);
    const ok = await post("k-5xx", body(7));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotency-replayed")).toBeNull();
    const replay = await post("k-5xx", body(7));
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    const after = await stockOf(t, articolo, magazzino);
    expect(after.ledger - before.ledger).toBe(7);
  });

  test("twenty identical requests racing with one key produce one effect", async () => {
    const before = await stockOf(t, articolo, magazzino);
    const results = await Promise.all(Array.from({ length: 20 }, () => post("k-race", body(5))));
    const ok = results.filter((r) => r.status === 200);
    const busy = results.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of ok) expect(r.body).toEqual(ok[0]!.body);
    for (const r of busy) expect(r.body.codice).toBe("idempotenza_in_corso");
    expect(ok.filter((r) => r.headers.get("idempotency-replayed") === null)).toHaveLength(1);
    const after = await stockOf(t, articolo, magazzino);
    expect(after.ledger - before.ledger).toBe(5);
    expect(after.balance).toBe(after.ledger);
  });

  test("expired records are purged, and an expired key runs again", async () => {
    await post("k-old", body(1));
    await t.pool.query("UPDATE idempotenza SET scade_il = now() - interval '1 second' WHERE chiave = 'k-old'");
    const again = await post("k-old", body(1));
    expect(again.headers.get("idempotency-replayed")).toBeNull();
    await t.pool.query("UPDATE idempotenza SET scade_il = now() - interval '1 second' WHERE chiave = 'k-old'");
    expect(await purgeExpiredIdempotency(t.prisma)).toBe(1);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM idempotenza WHERE chiave = 'k-old'");
    expect(rows[0].n).toBe(0);
  });

  test("the record is committed with the writes: retention follows the configuration", async () => {
    await post("k-ttl", body(1));
    const { rows } = await t.pool.query(
      "SELECT extract(epoch FROM scade_il - creato_il)::int AS s, stato FROM idempotenza WHERE chiave = 'k-ttl'",
    );
    expect(rows[0]).toEqual({ s: 24 * 3600, stato: 200 });
  });
});
