import type pg from "pg";
import { expect } from "vitest";
import { call, type HttpResult } from "./harness";
import { articleCode, seedOrder } from "./seed";

/**
 * The promises that must hold however many instances share one database, as functions of where each
 * request goes: two-instances.test.ts runs them on two instances on PostgreSQL, pgbouncer.test.ts on two
 * instances through PgBouncer in transaction mode.
 */

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

export interface Across {
  /** PostgreSQL itself: seeding and assertions. */
  pool: pg.Pool;
  /** A key with `scrittura`. */
  key: string;
  /** The instance request i goes to (the races split their requests between the instances). */
  on(i: number): string;
  m1: number;
  m2: number;
  f1: number;
  /** The articles DP00001… (seedArticles(pool, "DP", 5)). */
  plain: number[];
}

export async function rowState(c: Pick<Across, "pool">, riga: number) {
  const { rows } = await c.pool.query(
    `SELECT r.arrivata::float8 AS arrivata, o.stato AS ordine,
            COALESCE((SELECT sum(m.quantita) FROM movimenti m WHERE m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = r.id), 0)::float8 AS ledger
       FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1`,
    [riga],
  );
  return rows[0] as { arrivata: number; ordine: string; ledger: number };
}

export async function stock(c: Pick<Across, "pool">, articolo: number, magazzino: number) {
  const { rows } = await c.pool.query(
    `SELECT COALESCE((SELECT sum(quantita) FROM movimenti WHERE articolo_id = $1 AND magazzino_id = $2), 0)::float8 AS ledger,
            COALESCE((SELECT quantita FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2), 0)::float8 AS balance`,
    [articolo, magazzino],
  );
  return rows[0] as { ledger: number; balance: number };
}

export function tally(rs: HttpResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rs) {
    const outcome = `${r.status} ${r.body?.codice ?? ""}`.trim();
    counts[outcome] = (counts[outcome] ?? 0) + 1;
  }
  return counts;
}

/** 20 parallel arrivals of 1 on an order row of 10, split across the instances: 10 accepted, 10 quantita_eccessiva. */
export async function overReceipt(c: Across): Promise<void> {
  const o = await seedOrder(c.pool, { numero: "X-1", fornitore: c.f1, magazzino: c.m1, righe: [{ articolo: c.plain[0]!, quantita: 10 }] });
  const rs = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      call(c.on(i), "POST", "/arrivi", { key: c.key, body: { magazzino: c.m1, ddt: `X1-${i}`, riga: o.righe[0], quantita: 1 } }),
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
  expect(await rowState(c, o.righe[0]!)).toEqual({ arrivata: 10, ledger: 10, ordine: "evaso" });
}

/** 20 identical requests with one Idempotency-Key across the instances, at once and in a staggered wave: one effect each. */
export async function sameKeyRace(c: Across): Promise<void> {
  const before = await stock(c, c.plain[1]!, c.m1);
  const body = { natura: "carico", magazzino: c.m1, righe: [{ codice: articleCode("DP", 2), quantita: 5 }] };
  const rs = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call(c.on(i), "POST", "/movimenti", { key: c.key, body, idem: "due-istanze-1" })),
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
  const again = await call(c.on(1), "POST", "/movimenti", { key: c.key, body, idem: "due-istanze-1" });
  expect(again.headers.get("idempotency-replayed")).toBe("true");
  expect(again.body).toEqual(ok[0]!.body);
  const after = await stock(c, c.plain[1]!, c.m1);
  expect(after.ledger - before.ledger).toBe(5);
  expect(after.balance).toBe(after.ledger);

  // A second wave, staggered by 15 ms: some arrive while the first runs (409), some after it committed (replay).
  const body2 = { ...body, righe: [{ codice: articleCode("DP", 2), quantita: 7 }] };
  const wave = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * 15));
      return call(c.on(i), "POST", "/movimenti", { key: c.key, body: body2, idem: "due-istanze-2" });
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
  const end = await stock(c, c.plain[1]!, c.m1);
  expect(end.ledger - after.ledger).toBe(7);
  expect(end.balance).toBe(end.ledger);
}

/**
 * A reader paging GET /movimenti on one instance while writers write on all, and raw transactions commit late:
 * it sees every movement exactly once, in order.
 */
export async function syncReader(c: Across): Promise<void> {
  let cursor = 0;
  for (;;) {
    const p = await call(c.on(0), "GET", `/movimenti?limite=100&dopo=${cursor}`, { key: c.key });
    cursor = p.body.cursore;
    if (!p.body.altri) break;
  }
  const from = cursor;
  let writing = true;
  const writers = Array.from({ length: 6 }, async (_, w) => {
    for (let i = 0; i < 20; i++) {
      const r = await call(c.on(w), "POST", "/movimenti", {
        key: c.key,
        body: {
          natura: "carico",
          magazzino: w % 2 ? c.m2 : c.m1,
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
    const conn = await c.pool.connect();
    try {
      for (let i = 0; i < 15; i++) {
        await conn.query("BEGIN");
        const op = await conn.query("INSERT INTO operazioni (origine) VALUES ('api') RETURNING id");
        // The ledger's lock order: the balance, then the movement (whose insert takes its monthly row).
        await conn.query("UPDATE giacenze SET quantita = quantita + 1 WHERE articolo_id = $1 AND magazzino_id = $2", [c.plain[0], c.m1]);
        await conn.query(
          "INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita) VALUES ($1, current_date, 'api', 'carico', $2, $3, 1)",
          [op.rows[0].id, c.m1, c.plain[0]],
        );
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 30));
        await conn.query("COMMIT");
      }
    } finally {
      conn.release();
    }
  });
  const seen: number[] = [];
  let pages = 0;
  const reader = (async () => {
    let cur = from;
    for (;;) {
      const done = !writing;
      const r = await call(c.on(0), "GET", `/movimenti?limite=7&dopo=${cur}`, { key: c.key });
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
  const all = (await c.pool.query("SELECT id FROM movimenti WHERE id > $1 ORDER BY id", [from])).rows.map((r) => r.id as number);
  report("lettore di sincronizzazione", { movimenti: all.length, pagine: pages });
  expect(all.length).toBe(6 * 20 * 2 + 2 * 15);
  expect(seen).toEqual(all);
}
