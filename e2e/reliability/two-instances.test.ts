import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDb, type TestDb } from "../../src/server/testing/db";
import { call, cleanup, ensureBuild, launch, verify, type HttpResult, type Service } from "./harness";
import { articleCode, createKey, seedArticles, seedOrder, seedSupplier, seedWarehouse } from "./seed";

/**
 * Two service processes on one database (same DATABASE_URL, different ports): the race tests of the
 * earlier issues, with the racing requests split between the instances. Every guarantee lives in
 * PostgreSQL (API.md section 3: "every guarantee here holds across instances").
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

beforeAll(async () => {
  await ensureBuild((m) => console.log(`[affidabilità] ${m}`));
  t = await createTestDb();
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
  await t?.drop();
}, 120_000);

async function rowState(riga: number) {
  const { rows } = await t.pool.query(
    `SELECT r.arrivata::float8 AS arrivata, o.stato AS ordine,
            COALESCE((SELECT sum(m.quantita) FROM movimenti m WHERE m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = r.id), 0)::float8 AS ledger
       FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1`,
    [riga],
  );
  return rows[0] as { arrivata: number; ordine: string; ledger: number };
}

async function stock(articolo: number, magazzino: number) {
  const { rows } = await t.pool.query(
    `SELECT COALESCE((SELECT sum(quantita) FROM movimenti WHERE articolo_id = $1 AND magazzino_id = $2), 0)::float8 AS ledger,
            COALESCE((SELECT quantita FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2), 0)::float8 AS balance`,
    [articolo, magazzino],
  );
  return rows[0] as { ledger: number; balance: number };
}

async function residual(articolo: number, magazzino: number, lotto: string): Promise<number> {
  const { rows } = await t.pool.query(
    "SELECT residua::float8 AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = $3",
    [articolo, magazzino, lotto],
  );
  return rows[0]?.r ?? 0;
}

const tally = (rs: HttpResult[]) =>
  rs.reduce<Record<string, number>>(
    (acc, r) => ((acc[`${r.status} ${r.body?.codice ?? ""}`.trim()] = (acc[`${r.status} ${r.body?.codice ?? ""}`.trim()] ?? 0) + 1), acc),
    {},
  );

describe("races split across two instances", () => {
  test("20 parallel arrivals of 1 on a row of 10: 10 accepted, 10 quantita_eccessiva", async () => {
    const o = await seedOrder(t.pool, { numero: "X-1", fornitore: f1, magazzino: m1, righe: [{ articolo: plain[0]!, quantita: 10 }] });
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(on(i), "POST", "/arrivi", { key, body: { magazzino: m1, ddt: `X1-${i}`, riga: o.righe[0], quantita: 1 } }),
      ),
    );
    report("arrivi paralleli", tally(rs));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = rs.filter((r) => r.status === 422);
    expect(refused).toHaveLength(10);
    for (const r of refused) expect(r.body.codice).toBe("quantita_eccessiva");
    report("arrivi accettati per istanza", {
      A: rs.filter((r, i) => r.status === 201 && i % 2 === 0).length,
      B: rs.filter((r, i) => r.status === 201 && i % 2 === 1).length,
    });
    expect(await rowState(o.righe[0]!)).toEqual({ arrivata: 10, ledger: 10, ordine: "evaso" });
  });

  test("20 identical requests with one Idempotency-Key: one effect; the others replay it or get 409 idempotenza_in_corso", async () => {
    const before = await stock(plain[1]!, m1);
    const body = { natura: "carico", magazzino: m1, righe: [{ codice: articleCode("DP", 2), quantita: 5 }] };
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(on(i), "POST", "/movimenti", { key, body, idem: "due-istanze-1" })),
    );
    report("stessa chiave", tally(rs));
    const ok = rs.filter((r) => r.status === 200);
    const busy = rs.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(20);
    for (const r of ok) expect(r.body).toEqual(ok[0]!.body);
    for (const r of busy) {
      expect(r.body.codice).toBe("idempotenza_in_corso");
      expect(r.headers.get("retry-after")).toBeTruthy();
    }
    expect(ok.filter((r) => r.headers.get("idempotency-replayed") === null)).toHaveLength(1);
    const again = await call(on(1), "POST", "/movimenti", { key, body, idem: "due-istanze-1" });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(ok[0]!.body);
    const after = await stock(plain[1]!, m1);
    expect(after.ledger - before.ledger).toBe(5);
    expect(after.balance).toBe(after.ledger);

    // A second wave, staggered by 15 ms: some arrive while the first runs (409), some after it committed (replay).
    const body2 = { ...body, righe: [{ codice: articleCode("DP", 2), quantita: 7 }] };
    const wave = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 15));
        return call(on(i), "POST", "/movimenti", { key, body: body2, idem: "due-istanze-2" });
      }),
    );
    report("stessa chiave, a ondate", {
      ...tally(wave),
      replay: wave.filter((r) => r.headers.get("idempotency-replayed") === "true").length,
    });
    const ok2 = wave.filter((r) => r.status === 200);
    expect(ok2.length + wave.filter((r) => r.status === 409 && r.body.codice === "idempotenza_in_corso").length).toBe(20);
    for (const r of ok2) expect(r.body).toEqual(ok2[0]!.body);
    expect(ok2.filter((r) => r.headers.get("idempotency-replayed") === null)).toHaveLength(1);
    const end = await stock(plain[1]!, m1);
    expect(end.ledger - after.ledger).toBe(7);
    expect(end.balance).toBe(end.ledger);
  });

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
      const s = await stock(lotted[0]!, m);
      expect(s.balance).toBe(s.ledger);
    }
  });

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
    expect(await rowState(o.righe[0]!)).toEqual({ arrivata: 0, ledger: 0, ordine: "aperto" });
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
      const s = await rowState(riga);
      expect(s.arrivata).toBeCloseTo(s.ledger, 6);
      expect(s.arrivata).toBeLessThanOrEqual(30);
    }
  });
});

describe("sync across instances", () => {
  test("a reader paging GET /movimenti on one instance while writers write on both sees every movement exactly once, in order", async () => {
    let cursor = 0;
    for (;;) {
      const p = await call(a.base, "GET", `/movimenti?limite=100&dopo=${cursor}`, { key });
      cursor = p.body.cursore;
      if (!p.body.altri) break;
    }
    const from = cursor;
    let writing = true;
    const writers = Array.from({ length: 6 }, async (_, w) => {
      for (let i = 0; i < 20; i++) {
        const r = await call(on(w), "POST", "/movimenti", {
          key,
          body: {
            natura: "carico",
            magazzino: w % 2 ? m2 : m1,
            righe: [
              { codice: articleCode("DP", 1 + (i % 5)), quantita: 1 },
              { codice: articleCode("DP", 1 + ((i + 1) % 5)), quantita: 2 },
            ],
          },
        });
        expect(r.status, r.text).toBe(200);
      }
    });
    // Raw transactions that take an id and commit late: the case a naive cursor would skip.
    const slow = Array.from({ length: 2 }, async () => {
      const c = await t.pool.connect();
      try {
        for (let i = 0; i < 15; i++) {
          await c.query("BEGIN");
          const op = await c.query("INSERT INTO operazioni (origine) VALUES ('api') RETURNING id");
          await c.query(
            "INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita) VALUES ($1, current_date, 'api', 'carico', $2, $3, 1)",
            [op.rows[0].id, m1, plain[0]],
          );
          await c.query("UPDATE giacenze SET quantita = quantita + 1 WHERE articolo_id = $1 AND magazzino_id = $2", [plain[0], m1]);
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 30));
          await c.query("COMMIT");
        }
      } finally {
        c.release();
      }
    });
    const seen: number[] = [];
    let pages = 0;
    const reader = (async () => {
      let cur = from;
      for (;;) {
        const done = !writing;
        const r = await call(a.base, "GET", `/movimenti?limite=7&dopo=${cur}`, { key });
        expect(r.status).toBe(200);
        pages++;
        seen.push(...r.body.movimenti.map((m: any) => m.id));
        cur = r.body.cursore;
        if (done && !r.body.altri) break;
      }
    })();
    await Promise.all([...writers, ...slow]);
    writing = false;
    await reader;
    const all = (await t.pool.query("SELECT id FROM movimenti WHERE id > $1 ORDER BY id", [from])).rows.map((r) => r.id as number);
    report("lettore di sincronizzazione", { movimenti: all.length, pagine: pages });
    expect(all.length).toBe(6 * 20 * 2 + 2 * 15);
    expect(seen).toEqual(all);
  });
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
