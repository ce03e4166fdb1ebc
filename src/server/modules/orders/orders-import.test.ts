import { describe, expect } from "vitest";
import { DomainError } from "../../lib/errors";
import { test } from "../../testing/test";
import { importMasterData } from "../import/import.service";
import { verifyLedger } from "../ledger/verify.service";
import { a, arrive, close, dbRows, m1, order, orderOf, row, seedOrdersBeforeAll, t, upsert } from "./orders-testing";

seedOrdersBeforeAll();

describe("the master-data import", () => {
  test("looks orders up by supplier and number: another supplier's number is another order", async () => {
    const rest1 = await upsert([order("IMP-1", [row(1, "A", 1)])]);
    const file = (fornitore: string) => ({
      ordini: [{ numero: "IMP-1", fornitore, data: "2026-11-20", magazzino: "M1", righe: [{ articolo: "A", quantita: 1, prezzo: "1.5" }] }],
    });
    const before = await orderOf(rest1.body.righe[0].id);
    const same = await importMasterData(t.prisma, file("FA"), { timeZone: "Europe/Rome" });
    expect(same.ids.ordini["IMP-1"]).toBe(rest1.body.righe[0].id);
    // The file says what the REST call said (row 1: A × 1 at 1.5): nothing to change, no version drawn.
    expect((await orderOf(same.ids.ordini["IMP-1"]!)).versione).toBe(before.versione);
    const other = await importMasterData(t.prisma, file("FB"), { timeZone: "Europe/Rome" });
    expect(other.ids.ordini["IMP-1"]).not.toBe(rest1.body.righe[0].id);
    const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM ordini_acquisto WHERE numero = 'IMP-1'");
    expect(rows[0].n).toBe(2);
  });

  const importFile = (data: unknown) => importMasterData(t.prisma, data, { timeZone: "Europe/Rome" });
  /** The problems of a refused import. */
  async function importRefusal(data: unknown) {
    const e = await importFile(data).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(DomainError);
    return (e as DomainError).dettagli ?? [];
  }
  const fileOrder = (numero: string, righe: [string, number, string][]) => ({
    numero,
    fornitore: "FA",
    data: "2026-11-20",
    magazzino: "M1",
    righe: righe.map(([articolo, quantita, prezzo]) => ({ articolo, quantita, prezzo })),
  });

  test("replaces an existing order like POST /ordini-acquisto: rows keep their ids by position (numero_riga)", async () => {
    const first = await importFile({
      ordini: [
        fileOrder("IMP-R", [
          ["A", 4, "1.5"],
          ["B", 2, "3"],
          ["C", 1, "2"],
        ]),
      ],
    });
    const id = first.ids.ordini["IMP-R"]!;
    const [r1, r2, r3] = await dbRows(id);
    expect((await arrive({ magazzino: m1, ddt: "IMP-R-D", riga: r1.id, quantita: 1 })).status).toBe(201);
    const v = (await orderOf(id)).versione;
    // Row 1 changes quantity (above what arrived), row 2 its price, row 3 (no arrivals) its article, row 4 is new.
    const second: [string, number, string][] = [
      ["A", 3, "1.5"],
      ["B", 2, "3.25"],
      ["D", 7, "1"],
      ["K", 1, "1"],
    ];
    const again = await importFile({ ordini: [fileOrder("IMP-R", second)] });
    expect(again.ids.ordini).toEqual({ "IMP-R": id });
    const after = await dbRows(id);
    const shape = (r: (typeof after)[number]) => [
      r.id,
      r.numero_riga,
      r.articolo_id,
      Number(r.ordinata),
      Number(r.arrivata),
      Number(r.prezzo),
    ];
    expect(after.map(shape)).toEqual([
      [r1.id, 1, a.A, 3, 1, 1.5],
      [r2.id, 2, a.B, 2, 0, 3.25],
      [r3.id, 3, a.D, 7, 0, 1],
      [expect.any(Number), 4, a.K, 1, 0, 1],
    ]);
    expect((await orderOf(id)).versione).toBeGreaterThan(v);
    // The same file again: invariato, nothing written.
    const v2 = (await orderOf(id)).versione;
    await importFile({ ordini: [fileOrder("IMP-R", second)] });
    expect((await orderOf(id)).versione).toBe(v2);
    // Rows the file no longer lists (without arrivals) go.
    await importFile({ ordini: [fileOrder("IMP-R", second.slice(0, 2))] });
    expect((await dbRows(id)).map(shape)).toEqual([
      [r1.id, 1, a.A, 3, 1, 1.5],
      [r2.id, 2, a.B, 2, 0, 3.25],
    ]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a change the upsert refuses fails the whole import, every refusal with its path in the file, nothing written", async () => {
    const first = await importFile({
      ordini: [
        fileOrder("IMP-X1", [["A", 4, "1.5"]]),
        fileOrder("IMP-X2", [
          ["A", 1, "1.5"],
          ["B", 2, "1"],
        ]),
        fileOrder("IMP-X3", [["C", 1, "1"]]),
      ],
    });
    const [x1] = await dbRows(first.ids.ordini["IMP-X1"]!);
    const [x2a] = await dbRows(first.ids.ordini["IMP-X2"]!);
    const [x3] = await dbRows(first.ids.ordini["IMP-X3"]!);
    expect((await arrive({ magazzino: m1, ddt: "IMP-X-D", riga: x1.id, quantita: 3 })).status).toBe(201);
    expect((await arrive({ magazzino: m1, ddt: "IMP-X-D2", riga: x2a.id, quantita: 1 })).status).toBe(201);
    expect((await arrive({ magazzino: m1, ddt: "IMP-X-D3", riga: x3.id, quantita: 1 })).body.ordine.stato).toBe("evaso");
    const before = await t.pool.query("SELECT * FROM righe_ordine ORDER BY id");
    const orders = await t.pool.query("SELECT * FROM ordini_acquisto ORDER BY id");

    const problems = await importRefusal({
      magazzini: [{ codice: "IMP-NUOVO", nome: "Mai scritto" }],
      ordini: [
        fileOrder("IMP-NEW", [["A", 1, "1"]]),
        // Below what arrived on row 1.
        fileOrder("IMP-X1", [["A", 2, "1.5"]]),
        // Row 1 (with an arrival) moved to another article.
        fileOrder("IMP-X2", [
          ["C", 1, "1.5"],
          ["B", 2, "1"],
        ]),
        // Evaso: a new price is a change.
        fileOrder("IMP-X3", [["C", 1, "9"]]),
      ],
    });
    expect(problems.map((p) => p.campo)).toEqual(["ordini[1].righe[0]", "ordini[2].righe[0]", "ordini[3]"]);
    expect(problems[0]!.messaggio).toMatch(/^Ordine IMP-X1, riga 1 \(ordini\[1\]\.righe\[0\]\): quantità 2 inferiore/);
    expect(problems[1]!.messaggio).toMatch(/ha arrivi registrati per l'articolo 'A'/);
    expect(problems[2]!.messaggio).toMatch(/^Ordine IMP-X3 \(ordini\[3\]\): è evaso/);
    expect((await t.pool.query("SELECT * FROM righe_ordine ORDER BY id")).rows).toEqual(before.rows);
    expect((await t.pool.query("SELECT * FROM ordini_acquisto ORDER BY id")).rows).toEqual(orders.rows);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM magazzini WHERE codice = 'IMP-NUOVO'")).rows[0].n).toBe(0);
  });

  test("a row left out that has arrivals is refused at its order's path", async () => {
    const first = await importFile({
      ordini: [
        fileOrder("IMP-Y", [
          ["A", 2, "1"],
          ["B", 2, "1"],
        ]),
      ],
    });
    const [, y2] = await dbRows(first.ids.ordini["IMP-Y"]!);
    expect((await arrive({ magazzino: m1, ddt: "IMP-Y-D", riga: y2.id, quantita: 1 })).status).toBe(201);
    const problems = await importRefusal({ ordini: [fileOrder("IMP-Y", [["A", 2, "1"]])] });
    expect(problems).toEqual([{ campo: "ordini[0]", messaggio: expect.stringMatching(/^Ordine IMP-Y, riga 2 .*non può essere tolta/) }]);
  });

  test("a file of more than 100 orders (and 500 rows) is written in several calls of the upsert, in one transaction", async () => {
    // 120 orders of one row (a call of 100 orders, then the order limit), 110 of six (the row limit: 20 + 80 × 6 = 500).
    const six: [string, number, string][] = ["A", "B", "C", "D", "K", "A"].map((x, j) => [x, j + 1, "1"]);
    const many = Array.from({ length: 230 }, (_, i) => fileOrder(`IMP-M${i}`, i < 120 ? [["A", 1, "1"]] : six));
    const out = await importFile({ ordini: many });
    expect(Object.keys(out.ids.ordini)).toHaveLength(230);
    const { rows } = await t.pool.query(
      "SELECT count(*)::int AS n FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE o.numero LIKE 'IMP-M%'",
    );
    expect(rows[0].n).toBe(120 + 110 * 6);
    // A refusal in a later call (the third: from order 200) names the file's index, not the call's; the
    // earlier calls roll back with it.
    const [last] = await dbRows(out.ids.ordini["IMP-M210"]!);
    expect((await arrive({ magazzino: m1, ddt: "IMP-M-D", riga: last.id, quantita: 1 })).status).toBe(201);
    const changed = many.map((o, i) =>
      i === 210 ? fileOrder("IMP-M210", [["B", 1, "1"], ...six.slice(1)]) : { ...o, data: "2026-11-21" },
    );
    const problems = await importRefusal({ ordini: changed });
    expect(problems.map((p) => p.campo)).toEqual(["ordini[210].righe[0]"]);
    expect(problems[0]!.messaggio).toContain("(ordini[210].righe[0])");
    const { rows: dates } = await t.pool.query(
      "SELECT DISTINCT to_char(data, 'YYYY-MM-DD') AS d FROM ordini_acquisto WHERE numero LIKE 'IMP-M%'",
    );
    expect(dates).toEqual([{ d: "2026-11-20" }]);
  });

  test("an order of more than 500 rows is a problem of the file", async () => {
    const rows = Array.from({ length: 501 }, () => ["A", 1, "1"] as [string, number, string]);
    expect(await importRefusal({ ordini: [fileOrder("IMP-BIG", rows)] })).toEqual([
      { campo: "ordini[0].righe", messaggio: expect.stringContaining("al massimo 500 per ordine") },
    ]);
  });
});

describe("edges", () => {
  test("extreme values are answered, never a 500", async () => {
    const bodies: unknown[] = [
      [order("X-1", [row(2_147_483_647, "A", 999_999_999_999.999, "99999999999999.9999")])],
      [order("X-2", [row(1, "A", 1e300)])],
      [order("X-3", [row(1, "A", -1)])],
      [order("X-4", [row(1, "A", 1)], { data: "2026-02-30" })],
      [order("X-5", [])],
      [order("X-6", [row(2_147_483_648, "A", 1)])],
      [order("X-7", [row(1, "A", 1)], { extra: true })],
      [{ ...order("X-8", [row(1, "A", 1)]), numero: "x".repeat(65) }],
    ];
    for (const b of bodies) {
      const r = await upsert(b as unknown[]);
      expect([200, 422], JSON.stringify(r.body)).toContain(r.status);
    }
    const created = await upsert([order("X-9", [row(1, "A", 1)])]);
    for (const body of [
      { righe: [] },
      { righe: [0] },
      { motivo: "" },
      { motivo: "m".repeat(501) },
      { righe: [1, 1], motivo: "ß ✓ 🚚" },
      { altro: 1 },
    ]) {
      const r = await close(created.body.righe[0].id, body);
      expect([200, 422], JSON.stringify(r.body)).toContain(r.status);
    }
  });

  test("the ledger check expects closed quantities in the row and order states", async () => {
    const created = await upsert([order("V-1", [row(1, "C", 5)])]);
    const id = created.body.righe[0].id;
    await close(id, {});
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
    // A closing that left the states behind is found.
    await t.pool.query("UPDATE righe_ordine SET stato = 'aperta' WHERE ordine_id = $1", [id]);
    await t.pool.query("UPDATE ordini_acquisto SET stato = 'aperto' WHERE id = $1", [id]);
    try {
      const r = await verifyLedger(t.prisma);
      expect(r.differenze.map((d) => d.tipo).sort()).toEqual(["riga_ordine", "stato_ordine"]);
      expect(r.differenze.find((d) => d.tipo === "stato_ordine")).toMatchObject({ atteso: "evaso", trovato: "aperto" });
    } finally {
      await t.pool.query("UPDATE righe_ordine SET stato = 'evasa' WHERE ordine_id = $1", [id]);
      await t.pool.query("UPDATE ordini_acquisto SET stato = 'evaso' WHERE id = $1", [id]);
    }
  });
});
