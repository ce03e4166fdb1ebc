import { afterAll, describe, expect } from "vitest";
import type { TestDb } from "../../src/server/testing/db";
import { test } from "../../src/server/testing/test";
import { call, cleanup, ensureBuild, launch, verify, type Service } from "./harness";
import { type Across, overReceipt, rowState, sameKeyRace, stock, syncReader, tally } from "./promises";
import { reservationRace } from "./reservation-promises";
import { articleCode, createKey, seedArticles, seedOrder, seedSupplier, seedWarehouse } from "./seed";

/**
 * Two service processes on one database (same DATABASE_URL, different ports): the race tests of the
 * earlier issues, with the racing requests split between the instances. Every guarantee lives in
 * PostgreSQL (docs/api.md section 3: "every guarantee here holds across instances").
 */

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

let t: TestDb;
let a: Service;
let b: Service;
let key: string;
let m1: number;
let m2: number;
let f1: number;
let plain: number[];
let lotted: number[];

const both = () => [a, b];
/** Request i goes to instance i % 2. */
const on = (i: number) => both()[i % 2]!.base;
const across = (): Across => ({ pool: t.pool, key, on, m1, m2, f1, plain });

test.beforeAll(async ({ db }) => {
  await ensureBuild((m) => console.log(`[affidabilità] ${m}`));
  t = db;
  m1 = await seedWarehouse(t.pool, "M1");
  m2 = await seedWarehouse(t.pool, "M2");
  f1 = await seedSupplier(t.pool, "F1");
  plain = await seedArticles(t.pool, "DP", 5);
  lotted = await seedArticles(t.pool, "DL", 2, { lotti: true });
  key = (await createKey(t.pool, ["scrittura"])).chiave;
  [a, b] = await Promise.all([launch({ databaseUrl: t.url }), launch({ databaseUrl: t.url })]);
  expect(a.port).not.toBe(b.port);
  // Warm both (Next loads a route on its first request), so that neither is systematically slower in the races.
  for (const s of [a, b]) {
    expect((await call(s.base, "GET", "/clienti", { key })).status).toBe(200);
    expect((await call(s.base, "POST", "/arrivi/cerca", { key, body: { fornitore: f1 } })).status).toBe(200);
  }
}, 600_000);

afterAll(async () => {
  await cleanup();
}, 120_000);

async function residual(articolo: number, magazzino: number, lotto: string): Promise<number> {
  const { rows } = await t.pool.query(
    "SELECT residua::float8 AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = $3",
    [articolo, magazzino, lotto],
  );
  return rows[0]?.r ?? 0;
}

describe("races split across two instances", () => {
  test("20 parallel arrivals of 1 on a row of 10: 10 accepted, 10 quantita_eccessiva", () => overReceipt(across()));

  test("20 identical requests with one Idempotency-Key: one effect; the others replay it or get 409 idempotenza_in_corso", () =>
    sameKeyRace(across()));

  test("parallel lot unloads and transfers: the lot never goes negative, accepted quantities equal its decrease", async () => {
    const code = articleCode("DL", 1);
    const load = await call(on(0), "POST", "/movimenti", {
      key,
      body: {
        natura: "carico",
        magazzino: m1,
        righe: [
          { codice: code, quantita: 10, lotto: "L1" },
          { codice: code, quantita: 50, lotto: "L2" },
        ],
      },
    });
    expect(load.status, load.text).toBe(200);
    const ones = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(on(i), "POST", "/movimenti", {
          key,
          body: { natura: "scarico", magazzino: m1, righe: [{ codice: code, quantita: 1, lotto: "L1" }] },
        }),
      ),
    );
    const outcomes = ones.map((r) => r.body.righe[0]);
    expect(outcomes.filter((x) => x.esito === "scritta")).toHaveLength(10);
    for (const x of outcomes.filter((x) => x.esito === "rifiutata")) expect(x.errore.codice).toBe("lotto_insufficiente");
    expect(await residual(lotted[0]!, m1, "L1")).toBe(0);

    const qs = Array.from({ length: 40 }, (_, i) => ((i * 7) % 5) + 0.5);
    const rs = await Promise.all(
      qs.map((q, i) =>
        call(on(i), "POST", "/movimenti", {
          key,
          body:
            i % 3 === 0
              ? { natura: "trasferimento", magazzino: m2, magazzino_origine: m1, righe: [{ codice: code, quantita: q, lotto: "L2" }] }
              : { natura: "scarico", magazzino: m1, righe: [{ codice: code, quantita: q, lotto: "L2" }] },
        }),
      ),
    );
    for (const r of rs) expect(r.status, r.text).toBe(200);
    const accepted = rs.reduce((s, r, i) => s + (r.body.righe[0].esito === "scritta" ? qs[i]! : 0), 0);
    const transferred = rs.reduce((s, r, i) => s + (i % 3 === 0 && r.body.righe[0].esito === "scritta" ? qs[i]! : 0), 0);
    report("scarichi di lotto", {
      unitari: outcomes.filter((x) => x.esito === "scritta").length,
      accettati: accepted,
      trasferiti: transferred,
    });
    expect(accepted).toBeGreaterThan(40);
    expect(accepted).toBeLessThanOrEqual(50);
    expect(await residual(lotted[0]!, m1, "L2")).toBeCloseTo(50 - accepted, 6);
    expect(await residual(lotted[0]!, m2, "L2")).toBeCloseTo(transferred, 6);
    const { rows } = await t.pool.query("SELECT min(residua)::float8 AS m FROM lotti");
    expect(rows[0].m).toBeGreaterThanOrEqual(0);
    for (const m of [m1, m2]) {
      const s = await stock(t, lotted[0]!, m);
      expect(s.balance).toBe(s.ledger);
    }
  });

  test("20 reservations of 1, 10 unloads and 10 transfers out naming none, racing for the last 10 pieces: 10 succeed, nothing held is sold", () =>
    reservationRace(across(), "PZ"));

  test("the same arrival cancelled in parallel on both instances is cancelled once", async () => {
    const o = await seedOrder(t.pool, { numero: "X-3", fornitore: f1, magazzino: m1, righe: [{ articolo: plain[2]!, quantita: 5 }] });
    const r = await call(on(0), "POST", "/arrivi", { key, body: { magazzino: m1, ddt: "X3", riga: o.righe[0], quantita: 5 } });
    expect(r.status, r.text).toBe(201);
    const rs = await Promise.all(Array.from({ length: 8 }, (_, i) => call(on(i), "POST", `/arrivi/${r.body.movimento}/annulla`, { key })));
    report("annullamento doppio", tally(rs));
    expect(rs.filter((x) => x.status === 200)).toHaveLength(1);
    for (const x of rs.filter((x) => x.status !== 200)) {
      expect(x.status).toBe(409);
      expect(x.body.codice).toBe("arrivo_gia_annullato");
    }
    expect(await rowState(t, o.righe[0]!)).toEqual({ arrivata: 0, ledger: 0, ordine: "aperto" });
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM movimenti WHERE annulla_id = $1", [r.body.movimento]);
    expect(rows[0].n).toBe(1);
  });

  test("arrivals and cancellations racing on both: arrivata equals the ledger, never above ordinata", async () => {
    const o = await seedOrder(t.pool, {
      numero: "X-4",
      fornitore: f1,
      magazzino: m2,
      righe: [
        { articolo: plain[3]!, quantita: 30 },
        { articolo: plain[4]!, quantita: 30 },
      ],
    });
    const first = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(on(i), "POST", "/arrivi", { key, body: { magazzino: m2, ddt: "X4", riga: o.righe[i % 2], quantita: 2 } }),
      ),
    );
    const ids = first.filter((r) => r.status === 201).map((r) => r.body.movimento as number);
    expect(ids).toHaveLength(12);
    const second = await Promise.all([
      ...ids.slice(0, 6).map((id, i) => call(on(i + 1), "POST", `/arrivi/${id}/annulla`, { key })),
      ...Array.from({ length: 16 }, (_, i) =>
        call(on(i), "POST", "/arrivi", { key, body: { magazzino: m2, ddt: "X4b", righe: [{ riga: o.righe[i % 2], quantita: 2.5 }] } }),
      ),
    ]);
    for (const r of second) expect(r.status, r.text).toBeLessThan(300);
    for (const riga of o.righe) {
      const s = await rowState(t, riga);
      expect(s.arrivata).toBeCloseTo(s.ledger, 6);
      expect(s.arrivata).toBeLessThanOrEqual(30);
    }
  });
});

describe("sync across instances", () => {
  test("a reader paging GET /movimenti on one instance while writers write on both sees every movement exactly once, in order", () =>
    syncReader(across()));
});

describe("rate limit across instances", () => {
  test("one key's bucket is shared: a burst of 10 gives 10 answers in all, whichever instance is asked", async () => {
    const k = (await createKey(t.pool, ["lettura"], { perSecond: 0.001, burst: 10 })).chiave;
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => call(on(i), "GET", "/clienti", { key: k })));
    report("limite condiviso", tally(rs));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(10);
    const limited = rs.filter((r) => r.status === 429);
    expect(limited).toHaveLength(20);
    for (const r of limited) {
      expect(r.body.codice).toBe("troppe_richieste");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // Spent on both: neither instance has tokens of its own.
    expect((await call(a.base, "GET", "/clienti", { key: k })).status).toBe(429);
    expect((await call(b.base, "GET", "/clienti", { key: k })).status).toBe(429);
  });
});

test("the ledger check passes after all of it", async () => {
  const v = await verify({ databaseUrl: t.url });
  expect(v.code, v.stdout + v.stderr).toBe(0);
  report("verify", v.stdout.trim().split("\n")[0]);
}, 120_000);
