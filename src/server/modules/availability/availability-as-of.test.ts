import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * GET /disponibilita?a=: `in_arrivo` as it stood at the end of that day, not today's. The history is the
 * ledger's: past arrivals and cancellations are written here as the arrival writer would (movement with its
 * order row, the row's `arrivata`, the order's state), since the service only writes today's date.
 */

let t: TestDb;
let key: string;
let m1: number;
let m2: number;
let articolo: number;
let rigaA: number;
let rigaB: number;

/** Today's business date, as the service wrote it on today's arrival. */
let today: string;
let yesterday: string;

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  articolo = (await seedArticle(t.prisma, "ATTESO")).id;
  const fornitore = (await seedSupplier(t.prisma, "F1")).id;
  const a = await seedOrder(t.prisma, {
    numero: "O-A",
    fornitore,
    magazzino: m1,
    data: "2026-01-05",
    righe: [{ articolo, quantita: "10", prezzo: "1" }],
  });
  const b = await seedOrder(t.prisma, {
    numero: "O-B",
    fornitore,
    magazzino: m2,
    data: "2026-01-15",
    righe: [{ articolo, quantita: "4", prezzo: "1" }],
  });
  rigaA = a.righe[0]!;
  rigaB = b.righe[0]!;

  // Row A: 6 on 10 January, 4 on 20 January cancelled on 22 January, 4 on 25 January: complete, order evaso.
  const c = await t.pool.connect();
  try {
    await c.query("BEGIN");
    const op = (await c.query("INSERT INTO operazioni (origine) VALUES ('arrivo') RETURNING id")).rows[0].id;
    const arrive = async (data: string, quantita: number, annulla: number | null = null) =>
      (
        await c.query(
          `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita, riferimento_tipo, riferimento_id, annulla_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 'riga_ordine', $8, $9) RETURNING id`,
          [op, data, annulla ? "annullamento" : "arrivo", quantita > 0 ? "carico" : "scarico", m1, articolo, quantita, rigaA, annulla],
        )
      ).rows[0].id as number;
    await arrive("2026-01-10", 6);
    const cancelled = await arrive("2026-01-20", 4);
    await arrive("2026-01-22", -4, cancelled);
    await arrive("2026-01-25", 4);
    await c.query("INSERT INTO giacenze (articolo_id, magazzino_id, quantita) VALUES ($1, $2, 10)", [articolo, m1]);
    await c.query("UPDATE righe_ordine SET arrivata = 10 WHERE id = $1", [rigaA]);
    await c.query("UPDATE ordini_acquisto SET stato = 'evaso' WHERE id = $1", [a.id]);
    await c.query("COMMIT");
  } finally {
    c.release();
  }
  // Row B: 1 of 4 today, through the service.
  const arrival = await rest("POST", "/arrivi", { key, body: { magazzino: m2, ddt: "D-OGGI", riga: rigaB, quantita: 1 } });
  expect(arrival.status).toBe(201);
  const days = await t.pool.query(
    `SELECT to_char(data, 'YYYY-MM-DD') AS today, to_char(data - 1, 'YYYY-MM-DD') AS yesterday
       FROM movimenti WHERE riferimento_id = $1 AND origine = 'arrivo'`,
    [rigaB],
  );
  ({ today, yesterday } = days.rows[0]);
});

const inArrivo = async (query: string) => {
  const r = await rest("GET", `/disponibilita?dopo=${articolo - 1}&limite=1${query}`, { key });
  expect(r.status).toBe(200);
  expect(r.body.disponibilita[0].articolo.id).toBe(articolo);
  return r.body.disponibilita[0].in_arrivo;
};

test("in_arrivo at the end of a past day: orders dated up to it, less what had arrived by then", async () => {
  const byDay = async (days: string[]) => Object.fromEntries(await Promise.all(days.map(async (d) => [d, await inArrivo(`&a=${d}`)])));
  expect(
    await byDay([
      "2026-01-04",
      "2026-01-05",
      "2026-01-10",
      "2026-01-15",
      "2026-01-20",
      "2026-01-21",
      "2026-01-22",
      "2026-01-25",
      yesterday,
    ]),
  ).toEqual({
    "2026-01-04": "0", // no order dated yet
    "2026-01-05": "10",
    "2026-01-10": "4", // 6 arrived
    "2026-01-15": "8", // O-B's 4 ordered
    "2026-01-20": "4", // 4 more arrived on A
    "2026-01-21": "4",
    "2026-01-22": "8", // that arrival cancelled: expected again
    "2026-01-25": "4", // A complete
    [yesterday]: "4", // B's arrival is today's
  });
  // Today's remainder, with or without `a`: O-B's 3; O-A is evaso.
  expect(await inArrivo("")).toBe("3");
  expect(await inArrivo(`&a=${today}`)).toBe("3");
});

test("with magazzino, the past day's in_arrivo of the orders for that warehouse", async () => {
  expect(await inArrivo(`&a=2026-01-22&magazzino=${m1}`)).toBe("4");
  expect(await inArrivo(`&a=2026-01-22&magazzino=${m2}`)).toBe("4");
  expect(await inArrivo(`&a=${yesterday}&magazzino=${m1}`)).toBe("0");
  expect(await inArrivo(`&a=${yesterday}&magazzino=${m2}`)).toBe("4");
});

test("a closing short counts on every day: the service keeps no date for it", async () => {
  const closed = await rest(
    "POST",
    `/ordini-acquisto/${(await t.prisma.rigaOrdine.findUniqueOrThrow({ where: { id: rigaB } })).ordine_id}/chiudi`,
    {
      key,
      body: { motivo: "il fornitore non consegna" },
    },
  );
  expect(closed.status).toBe(200);
  expect(await inArrivo("")).toBe("0");
  expect(await inArrivo(`&a=${yesterday}`)).toBe("1"); // the 1 that arrived today; the 3 closed are not expected
  expect(await inArrivo("&a=2026-01-22")).toBe("5"); // A's 4, and B's 1
});
