import { describe, expect } from "vitest";
import { poolOf } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { simpleQueriesIn, statementsIn, writesDuring } from "../../testing/wire";

let t: TestDb;
let key: string;
let m1: number;
const a: Record<string, number> = {};

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  await seedWarehouse(t.prisma, "M2");
  for (const c of ["A", "B", "C", "D", "E"]) a[c] = (await seedArticle(t.prisma, c)).id;
  a.LOT = (await seedArticle(t.prisma, "LOT", { lotti: true })).id;
  const tpl = await seedArticle(t.prisma, "TPL", { haVarianti: true });
  a.TPL_S = (await seedArticle(t.prisma, "TPL-S", { modelloId: tpl.id })).id;
  key = apiKey.chiave;
  await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "A", quantita: 10 },
        { codice: "B", quantita: 5 },
        { codice: "LOT", quantita: 8, lotto: "L1" },
      ],
    },
  });
});

const align = (body: unknown, headers: Record<string, string> = {}) => rest("POST", "/giacenze/allinea", { key, body, headers });

describe("POST /giacenze/allinea", () => {
  test("writes the differences as correzione movements and reports every row", async () => {
    const r = await align({
      magazzino: m1,
      righe: [
        { codice: "A", contato: 12 },
        { codice: "B", contato: 5 },
        { codice: "C", contato: 0.25 },
        { codice: "LOT", lotto: "L1", contato: 6 },
        { codice: "LOT", lotto: "L2", contato: 3 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scritte: 4, invariate: 1, rifiutate: 0 });
    expect(r.body.righe.map((x: any) => [x.indice, x.articolo.codice, x.lotto, x.attuale, x.contato, x.delta, x.esito])).toEqual([
      [0, "A", null, "10", "12", "2", "scritta"],
      [1, "B", null, "5", "5", "0", "invariata"],
      [2, "C", null, "0", "0.25", "0.25", "scritta"],
      [3, "LOT", "L1", "8", "6", "-2", "scritta"],
      [4, "LOT", "L2", "0", "3", "3", "scritta"],
    ]);
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti.map((m: any) => [m.id, m.origine, m.natura, m.articolo.codice, m.lotto, m.quantita])).toEqual([
      [r.body.righe[0].movimento, "correzione", "carico", "A", null, "2"],
      [r.body.righe[2].movimento, "correzione", "carico", "C", null, "0.25"],
      [r.body.righe[3].movimento, "correzione", "scarico", "LOT", "L1", "-2"],
      [r.body.righe[4].movimento, "correzione", "carico", "LOT", "L2", "3"],
    ]);
    for (const [c, q] of [
      ["A", 12],
      ["B", 5],
      ["C", 0.25],
      ["LOT", 9],
    ] as const)
      expect(await stockOf(t, a[c]!, m1)).toEqual({ ledger: q, balance: q });
    const lots = await rest("GET", `/articoli/${a.LOT}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti.map((l: any) => [l.lotto, l.residua])).toEqual([
      ["L1", "6"],
      ["L2", "3"],
    ]);
  });

  test("repeating the same call writes nothing and reports every row invariata", async () => {
    const body = {
      magazzino: m1,
      righe: [
        { codice: "D", contato: 7 },
        { codice: "LOT", lotto: "L3", contato: 2 },
      ],
    };
    const first = await align(body);
    expect(first.body.scritte).toBe(2);
    const before = await countRows(t, "movimenti");
    const again = await align(body);
    expect(again.body).toMatchObject({ operazione: null, scritte: 0, invariate: 2, rifiutate: 0 });
    expect(again.body.righe.every((x: any) => x.esito === "invariata" && x.delta === "0")).toBe(true);
    expect(await countRows(t, "movimenti")).toBe(before);
  });

  test("a correction ends with the ledger append and its COMMIT in one write", async () => {
    const fine = (await seedArticle(t.prisma, "FINE")).id;
    const { answer: r, writes } = await writesDuring(poolOf(t.prisma)!, () =>
      align({ magazzino: m1, righe: [{ codice: "FINE", contato: 3 }] }),
    );
    expect(r.body.scritte).toBe(1);
    const last = writes.at(-1)!;
    // The append, then the reservations it may uncover (ledger/uncover.ts): one round trip.
    expect(statementsIn(last)).toBe(2);
    expect(simpleQueriesIn(last)).toEqual(["COMMIT"]);
    expect((await stockOf(t, fine, m1)).balance).toBe(3);
  });

  test("simula answers the same without writing anything", async () => {
    const body = {
      magazzino: m1,
      righe: [
        { codice: "E", contato: 4 },
        { codice: "A", contato: 1 },
        { codice: "LOT", lotto: "NUOVO", contato: 1 },
      ],
    };
    const counts = async () => [
      await countRows(t, "movimenti"),
      await countRows(t, "lotti"),
      await countRows(t, "giacenze"),
      await countRows(t, "operazioni"),
    ];
    const before = await counts();
    const sim = await align({ ...body, simula: true });
    expect(sim.body).toMatchObject({ operazione: null, scritte: 3, invariate: 0 });
    expect(sim.body.righe.map((x: any) => [x.attuale, x.delta])).toEqual([
      ["0", "4"],
      ["12", "-11"],
      ["0", "1"],
    ]);
    expect(sim.body.righe.every((x: any) => x.movimento === undefined)).toBe(true);
    expect(await counts()).toEqual(before);
    const real = await align(body);
    expect(real.body.righe.map((x: any) => [x.attuale, x.delta, x.esito])).toEqual(
      sim.body.righe.map((x: any) => [x.attuale, x.delta, x.esito]),
    );
  });

  test("row refusals: every code, the other rows still written", async () => {
    const before = await countRows(t, "movimenti");
    const r = await align({
      magazzino: m1,
      righe: [
        { codice: "NON-ESISTE", contato: 1 },
        { codice: "TPL", contato: 1 },
        { codice: "B", contato: -1 },
        { codice: "B", contato: 1.0005 },
        { codice: "LOT", contato: 1 },
        { codice: "B", lotto: "X", contato: 1 },
        { codice: "C", contato: 3 },
        { codice: "C", contato: 4 },
        { codice: "LOT", lotto: "L1", contato: 6 },
        { codice: "LOT", lotto: "L9", contato: 1 },
        { codice: "TPL-S", contato: 2 },
      ],
    });
    expect(r.body.righe.map((x: any) => x.errore?.codice ?? x.esito)).toEqual([
      "articolo_non_trovato",
      "articolo_con_varianti",
      "quantita_non_valida",
      "quantita_non_valida",
      "lotto_obbligatorio",
      "lotto_non_previsto",
      "articolo_ripetuto",
      "articolo_ripetuto",
      "invariata",
      "scritta",
      "scritta",
    ]);
    expect(r.body.righe[0]).toMatchObject({ articolo: null, codice: "NON-ESISTE", attuale: null, delta: null });
    expect(r.body.righe[1].errore.messaggio).toContain("TPL-S");
    // A refused row echoes the count declared, as a canonical decimal, valid or not.
    expect(r.body.righe.slice(0, 8).map((x: any) => x.contato)).toEqual(["1", "1", "-1", "1.0005", "1", "1", "3", "4"]);
    expect(r.body).toMatchObject({ scritte: 2, invariate: 1, rifiutate: 8 });
    expect(await countRows(t, "movimenti")).toBe(before + 2);
    expect(await stockOf(t, a.C!, m1)).toEqual({ ledger: 0.25, balance: 0.25 });
  });

  test.each([
    ["magazzino_non_trovato", () => ({ magazzino: 999, righe: [{ codice: "A", contato: 1 }] }), 422],
    ["troppe_righe", () => ({ magazzino: m1, righe: Array.from({ length: 10_001 }, (_, i) => ({ codice: `X${i}`, contato: 1 })) }), 422],
    ["richiesta_non_valida", () => ({ magazzino: m1, righe: [{ codice: "A", contato: 1 }], nota: "x" }), 422],
    ["richiesta_non_valida", () => ({ magazzino: m1, righe: ["A"] }), 422],
    ["richiesta_non_valida", () => ({ magazzino: m1, simula: "true", righe: [{ codice: "A", contato: 1 }] }), 422],
    ["richiesta_non_valida", () => ({ magazzino: m1, righe: [] }), 422],
  ])("whole request refused: %s", async (codice, body, status) => {
    const before = await countRows(t, "movimenti");
    const r = await align(body());
    expect(r.status).toBe(status);
    expect(r.body.codice).toBe(codice);
    expect(await countRows(t, "movimenti")).toBe(before);
  });

  test("Idempotency-Key: the retry replays, nothing written twice", async () => {
    const body = { magazzino: m1, righe: [{ codice: "E", contato: 40 }] };
    const first = await align(body, { "idempotency-key": "inv-1" });
    const again = await align(body, { "idempotency-key": "inv-1" });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await stockOf(t, a.E!, m1)).toEqual({ ledger: 40, balance: 40 });
  });

  test("10,000 rows in one call: written, then repeated as all invariata", async () => {
    await t.pool.query(`INSERT INTO articoli (codice, descrizione) SELECT 'BULK-' || g, 'Bulk ' || g FROM generate_series(1, 10000) g`);
    const righe = Array.from({ length: 10_000 }, (_, i) => ({ codice: `BULK-${i + 1}`, contato: (i % 7) + 0.5 }));
    const r = await align({ magazzino: m1, righe });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scritte: 10_000, rifiutate: 0 });
    const again = await align({ magazzino: m1, righe });
    expect(again.body).toMatchObject({ scritte: 0, invariate: 10_000 });
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n, sum(g.quantita)::text AS s FROM giacenze g JOIN articoli a ON a.id = g.articolo_id WHERE a.codice LIKE 'BULK-%'`,
    );
    expect(rows[0].n).toBe(10_000);
    expect(Number(rows[0].s)).toBe(righe.reduce((s, x) => s + x.contato, 0));
  });
});

describe("atomic read and write", () => {
  test("a movement in flight when the alignment starts cannot slip between its read and its write", async () => {
    const art = (await seedArticle(t.prisma, "RACE")).id;
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "RACE", quantita: 10 }] } });
    const c = await t.pool.connect();
    try {
      // A writer holds the balance row with +5 uncommitted, as a movement transaction does.
      await c.query("BEGIN");
      await c.query("INSERT INTO operazioni (origine) VALUES ('api')");
      await c.query(
        `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
                     VALUES (currval('operazioni_id_seq'), current_date, 'api', 'carico', $1, $2, 5)`,
        [m1, art],
      );
      await c.query("UPDATE giacenze SET quantita = quantita + 5 WHERE articolo_id = $1 AND magazzino_id = $2", [art, m1]);
      let settled = false;
      const pending = align({ magazzino: m1, righe: [{ codice: "RACE", contato: 12 }] }).then((r) => {
        settled = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(settled).toBe(false);
      await c.query("COMMIT");
      const r = await pending;
      expect(r.body.righe[0]).toMatchObject({ attuale: "15", contato: "12", delta: "-3", esito: "scritta" });
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
    expect(await stockOf(t, art, m1)).toEqual({ ledger: 12, balance: 12 });
  });

  test("once the alignment has read a balance, no movement can change it until the correction is written", async () => {
    const art = (await seedArticle(t.prisma, "RACE2")).id;
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "RACE2", quantita: 10 }] } });
    const gate = await t.pool.connect();
    const writer = await t.pool.connect();
    try {
      // Pause the alignment after its read: it cannot create its operation while we hold this lock.
      await gate.query("BEGIN");
      await gate.query("LOCK TABLE operazioni IN SHARE MODE");
      const pending = align({ magazzino: m1, righe: [{ codice: "RACE2", contato: 12 }] });
      for (let i = 0; i < 100; i++) {
        const { rows } = await t.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO operazioni%'`,
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      // A movement's balance update now has to wait for the alignment.
      await writer.query("BEGIN");
      await writer.query("SET LOCAL lock_timeout = '300ms'");
      await expect(
        writer.query("UPDATE giacenze SET quantita = quantita + 5 WHERE articolo_id = $1 AND magazzino_id = $2", [art, m1]),
      ).rejects.toThrow(/lock timeout/);
      await writer.query("ROLLBACK");
      await gate.query("COMMIT");
      const r = await pending;
      expect(r.body.righe[0]).toMatchObject({ attuale: "10", delta: "2", esito: "scritta" });
    } finally {
      await gate.query("ROLLBACK").catch(() => {});
      await writer.query("ROLLBACK").catch(() => {});
      gate.release();
      writer.release();
    }
    expect(await stockOf(t, art, m1)).toEqual({ ledger: 12, balance: 12 });
  });

  test("movements and alignments racing: balances equal the ledger, lots never negative", async () => {
    await seedArticle(t.prisma, "R2");
    const jobs = [
      ...Array.from({ length: 10 }, (_, i) =>
        align({
          magazzino: m1,
          righe: [
            { codice: "R2", contato: 20 + i },
            { codice: "LOT", lotto: "L1", contato: 5 + i },
          ],
        }),
      ),
      ...Array.from({ length: 20 }, (_, i) =>
        rest("POST", "/movimenti", {
          key,
          body: {
            natura: i % 2 ? "carico" : "scarico",
            magazzino: m1,
            righe: [
              { codice: "R2", quantita: 1 },
              { codice: "LOT", lotto: "L1", quantita: 1 },
            ],
          },
        }),
      ),
    ];
    const results = await Promise.all(jobs);
    expect(results.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    const s = await stockOf(t, (await t.prisma.articolo.findUniqueOrThrow({ where: { codice: "R2" } })).id, m1);
    expect(s.balance).toBe(s.ledger);
    const { rows } = await t.pool.query(
      `SELECT l.residua::text AS r, (SELECT COALESCE(sum(quantita), 0) FROM movimenti m WHERE m.lotto_id = l.id)::text AS ledger
         FROM lotti l WHERE l.articolo_id = $1 AND l.codice = 'L1' AND l.magazzino_id = $2`,
      [a.LOT, m1],
    );
    expect(Number(rows[0].r)).toBe(Number(rows[0].ledger));
    expect(Number(rows[0].r)).toBeGreaterThanOrEqual(0);
  });
});
