import { beforeAll, describe, expect } from "vitest";
import { poolOf } from "../../db/client";
import { countRows, rest, seedOrder, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { simpleQueriesIn, statementsIn, writesDuring } from "../../testing/wire";
import { a, arrive, cancel, f, key, m1, m2, rowState, search, seedArrivalsBeforeAll, t } from "./arrivals-testing";

seedArrivalsBeforeAll();

describe("POST /arrivi and cancellation", () => {
  test("single row: 201, stock grows, the arrival shows in registrati, and its price becomes the suggested price", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "10", prezzo: "0.2" }],
    });
    const before = await stockOf(t, a.VITE!, m1);
    const r = await arrive({ magazzino: m1, ddt: "DDT-1", riga: o.righe[0], quantita: 4, prezzo: "0.25" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      movimento: expect.any(Number),
      operazione: expect.any(Number),
      riga: o.righe[0],
      arrivata: "4",
      residua: "6",
      ordine: { id: o.id, stato: "parziale" },
    });
    const after = await stockOf(t, a.VITE!, m1);
    expect(after.ledger - before.ledger).toBe(4);
    expect(after.balance).toBe(after.ledger);
    const found = await search({ ordine: o.id });
    expect(found.body.ordini[0].righe[0].registrati).toEqual([{ movimento: r.body.movimento, data: expect.any(String), quantita: "4" }]);
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti[0]).toMatchObject({
      origine: "arrivo",
      natura: "carico",
      prezzo: "0.25",
      causale: "DDT DDT-1",
      riferimento: { tipo: "riga_ordine", id: o.righe[0] },
    });
    const load = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: m1, righe: [{ codice: "VITE", quantita: 1 }] },
    });
    const lm = await rest("GET", `/movimenti?operazione=${load.body.operazione}`, { key });
    expect(lm.body.movimenti[0].prezzo).toBe("0.25");
  });

  test("an arrival and its cancellation end in one write with their COMMIT; with a key, the stored response carries it", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-FINE",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.SOLO!, quantita: "10", prezzo: "0.3" }],
    });
    const lastWrite = async <T>(call: () => Promise<T>) => {
      const { answer, writes } = await writesDuring(poolOf(t.prisma)!, call);
      return { answer, text: writes.at(-1)! };
    };
    // The movement, the article's last price, the order locked, its state recomputed, the reservations it may cover
    // again (ledger/uncover.ts): then COMMIT.
    const plain = await lastWrite(() => arrive({ magazzino: m1, ddt: "DDT-FINE", riga: o.righe[0], quantita: 1 }));
    expect(plain.answer.status).toBe(201);
    expect(statementsIn(plain.text)).toBe(5);
    expect(simpleQueriesIn(plain.text)).toEqual(["COMMIT"]);
    // With an Idempotency-Key the work's end does not commit: the stored response, written after it, does.
    const keyed = await lastWrite(() =>
      arrive({ magazzino: m1, ddt: "DDT-FINE", riga: o.righe[0], quantita: 1 }, { "Idempotency-Key": "fine-1" }),
    );
    expect(keyed.answer.status).toBe(201);
    expect(statementsIn(keyed.text)).toBe(1);
    expect(simpleQueriesIn(keyed.text)).toEqual(["COMMIT"]);
    expect((await rowState(o.righe[0]!)).arrivata).toBe(2);
    const replay = await arrive({ magazzino: m1, ddt: "DDT-FINE", riga: o.righe[0], quantita: 1 }, { "Idempotency-Key": "fine-1" });
    expect(replay.headers.get("Idempotency-Replayed")).toBe("true");
    // The reversing movement, the order locked, its state recomputed, the reservations it may uncover: then COMMIT.
    const undone = await lastWrite(() => cancel(plain.answer.body.movimento));
    expect(undone.answer.status).toBe(200);
    expect(statementsIn(undone.text)).toBe(4);
    expect(simpleQueriesIn(undone.text)).toEqual(["COMMIT"]);
    expect(await rowState(o.righe[0]!)).toEqual({ arrivata: 1, riga: "parziale", ordine: "parziale", ledger: 1 });
  });

  test("quantita omitted registers the whole remaining quantity at the proposed price; a second call with the same DDT joins its operation", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-2",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.VITE!, quantita: "7.5", prezzo: "0.3" },
        { articolo: a.SOLO!, quantita: "2", prezzo: "1" },
      ],
    });
    const first = await arrive({ magazzino: m1, ddt: "DDT-2", riga: o.righe[0] });
    expect(first.body).toMatchObject({ arrivata: "7.5", residua: "0", ordine: { stato: "parziale" } });
    const second = await arrive({ magazzino: m1, ddt: "DDT-2", riga: o.righe[1] });
    expect(second.body.operazione).toBe(first.body.operazione);
    expect(second.body.ordine.stato).toBe("evaso");
    const mv = await rest("GET", `/movimenti?operazione=${first.body.operazione}`, { key });
    expect(mv.body.movimenti.map((m: any) => m.prezzo)).toEqual(["0.3", "1"]);
  });

  test("several rows: per-row outcomes, a refused row never blocks the others, one operation", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-3",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.VITE!, quantita: "5", prezzo: "0.2" },
        { articolo: a.LATTE!, quantita: "5", prezzo: "1" },
      ],
    });
    const r = await arrive({
      magazzino: m1,
      ddt: "DDT-3",
      righe: [
        { riga: o.righe[0], quantita: 2 },
        { riga: o.righe[1], quantita: 1 },
        { riga: 999999 },
        { riga: o.righe[1], quantita: 3, lotto: "LT1", scadenza: "2027-05-01" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 2, rifiutate: 2 });
    expect(r.body.righe.map((x: any) => [x.indice, x.esito, x.errore?.codice])).toEqual([
      [0, "registrata", undefined],
      [1, "rifiutata", "lotto_obbligatorio"],
      [2, "rifiutata", "riga_non_trovata"],
      [3, "registrata", undefined],
    ]);
    expect(r.body.righe[3]).toMatchObject({ riga: o.righe[1], arrivata: "3", residua: "2", movimento: expect.any(Number) });
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti).toHaveLength(2);
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti).toContainEqual({ lotto: "LT1", scadenza: "2027-05-01", residua: "3" });
  });

  test("one DDT, two suppliers' orders: the rows of another supplier than the first row's are fornitore_diverso", async () => {
    const oa = await seedOrder(t.prisma, {
      numero: "FD-A",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const ob = await seedOrder(t.prisma, {
      numero: "FD-B",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.SOLO!, quantita: "5", prezzo: "1" },
        { articolo: a.VITE!, quantita: "5", prezzo: "1" },
      ],
    });
    const r = await arrive({
      magazzino: m1,
      ddt: "DDT-FD",
      righe: [{ riga: 888888 }, { riga: ob.righe[0], quantita: 1 }, { riga: oa.righe[0], quantita: 1 }, { riga: ob.righe[1], quantita: 1 }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 2, rifiutate: 2 });
    expect(r.body.righe.map((x: any) => [x.indice, x.esito, x.errore?.codice])).toEqual([
      [0, "rifiutata", "riga_non_trovata"],
      [1, "registrata", undefined],
      [2, "rifiutata", "fornitore_diverso"],
      [3, "registrata", undefined],
    ]);
    expect(r.body.righe[2].errore.messaggio).toContain("FA");
    expect(r.body.righe[2].errore.messaggio).toContain("FB");
    expect((await rowState(oa.righe[0]!)).arrivata).toBe(0);
    const op = await t.pool.query("SELECT fornitore_id FROM operazioni WHERE id = $1", [r.body.operazione]);
    expect(op.rows[0].fornitore_id).toBe(f.B);
  });

  test("rows of an order for another warehouse are magazzino_diverso; the others arrive", async () => {
    const o1 = await seedOrder(t.prisma, {
      numero: "MD-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const o2 = await seedOrder(t.prisma, {
      numero: "MD-2",
      fornitore: f.A!,
      magazzino: m2,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const stock = await stockOf(t, a.VITE!, m2);
    const r = await arrive({
      magazzino: m2,
      ddt: "DDT-MD",
      righe: [
        { riga: o1.righe[0], quantita: 1 },
        { riga: o2.righe[0], quantita: 2 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.righe.map((x: any) => [x.esito, x.errore?.codice])).toEqual([
      ["rifiutata", "magazzino_diverso"],
      ["registrata", undefined],
    ]);
    expect(r.body.righe[0].errore.messaggio).toContain("M1");
    expect((await rowState(o1.righe[0]!)).arrivata).toBe(0);
    expect((await stockOf(t, a.VITE!, m2)).ledger).toBe(stock.ledger + 2);
  });

  test("an expiry other than the lot's is scadenza_diversa naming both dates, also between rows of one request", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "SD-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.LATTE!, quantita: "20", prezzo: "1" }],
    });
    expect(
      (await arrive({ magazzino: m1, ddt: "DDT-SD", riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2027-02-01" })).status,
    ).toBe(201);
    const single = await arrive({ magazzino: m1, ddt: "DDT-SD", riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2027-03-01" });
    expect(single.status).toBe(422);
    expect(single.body.codice).toBe("scadenza_diversa");
    expect(single.body.messaggio).toContain("2027-02-01");
    expect(single.body.messaggio).toContain("2027-03-01");
    const r = await arrive({
      magazzino: m1,
      ddt: "DDT-SD",
      righe: [
        { riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2027-02-01" },
        { riga: o.righe[0], quantita: 1, lotto: "SDA" },
        { riga: o.righe[0], quantita: 1, lotto: "SDB", scadenza: "2027-05-05" },
        { riga: o.righe[0], quantita: 1, lotto: "SDB", scadenza: "2027-06-06" },
        { riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2028-01-01" },
      ],
    });
    expect(r.body.righe.map((x: any) => [x.esito, x.errore?.codice])).toEqual([
      ["registrata", undefined],
      ["registrata", undefined],
      ["registrata", undefined],
      ["rifiutata", "scadenza_diversa"],
      ["rifiutata", "scadenza_diversa"],
    ]);
    expect((await rowState(o.righe[0]!)).arrivata).toBe(4);
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti.filter((l: any) => l.lotto.startsWith("SD"))).toEqual([
      { lotto: "SDA", scadenza: "2027-02-01", residua: "3" },
      { lotto: "SDB", scadenza: "2027-05-05", residua: "1" },
    ]);
  });

  describe("single-row refusals: 422 with the row code, nothing written", () => {
    let o: { id: number; righe: number[] };
    beforeAll(async () => {
      o = await seedOrder(t.prisma, {
        numero: "R-REF",
        fornitore: f.A!,
        magazzino: m1,
        data: "2026-11-18",
        righe: [
          { articolo: a.VITE!, quantita: "2", prezzo: "0.2" },
          { articolo: a.LATTE!, quantita: "2", prezzo: "1" },
          { articolo: a.SOLO!, quantita: "1", prezzo: "1" },
        ],
      });
      await arrive({ magazzino: m1, ddt: "DDT-REF", riga: o.righe[2] });
    });
    test.each([
      ["riga_non_trovata", () => ({ riga: 987654 })],
      ["riga_evasa", () => ({ riga: o.righe[2] })],
      ["quantita_non_valida", () => ({ riga: o.righe[0], quantita: 0 })],
      ["quantita_non_valida", () => ({ riga: o.righe[0], quantita: 0.0001 })],
      ["quantita_eccessiva", () => ({ riga: o.righe[0], quantita: 2.001 })],
      ["lotto_obbligatorio", () => ({ riga: o.righe[1], quantita: 1 })],
      ["lotto_non_previsto", () => ({ riga: o.righe[0], quantita: 1, lotto: "X" })],
      ["prezzo_non_valido", () => ({ riga: o.righe[0], quantita: 1, prezzo: "abc" })],
      ["magazzino_diverso", () => ({ magazzino: m2, riga: o.righe[0], quantita: 1 })],
    ])("%s", async (codice, fields) => {
      const before = await countRows(t, "movimenti");
      const lots = await countRows(t, "lotti");
      const r = await arrive({ magazzino: m1, ddt: "DDT-X", ...fields() });
      expect(r.status).toBe(422);
      expect(r.body.codice).toBe(codice);
      expect(r.body.messaggio.length).toBeGreaterThan(20);
      expect(await countRows(t, "movimenti")).toBe(before);
      expect(await countRows(t, "lotti")).toBe(lots);
      expect((await rowState(o.righe[0]!)).arrivata).toBe(0);
    });
    test.each([
      ["magazzino_non_trovato", () => ({ magazzino: 999, ddt: "X", riga: o.righe[0] })],
      ["troppe_righe", () => ({ magazzino: m1, ddt: "X", righe: Array.from({ length: 501 }, () => ({ riga: o.righe[0] })) })],
      ["richiesta_non_valida", () => ({ magazzino: m1, ddt: "X" })],
      ["richiesta_non_valida", () => ({ magazzino: m1, ddt: "X", riga: o.righe[0], righe: [{ riga: o.righe[0] }] })],
      ["richiesta_non_valida", () => ({ magazzino: m1, riga: o.righe[0] })],
      ["richiesta_non_valida", () => ({ magazzino: m1, ddt: "X", riga: o.righe[0], quantita: "1" })],
    ])("whole request: %s", async (codice, body) => {
      const before = await countRows(t, "movimenti");
      const r = await arrive(body());
      expect(r.status).toBe(422);
      expect(r.body.codice).toBe(codice);
      expect(await countRows(t, "movimenti")).toBe(before);
    });
  });

  test("Idempotency-Key: the retry of a single arrival replays its 201", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-IK",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const first = await arrive({ magazzino: m1, ddt: "IK", riga: o.righe[0], quantita: 1 }, { "idempotency-key": "arrivo-ik" });
    const again = await arrive({ magazzino: m1, ddt: "IK", riga: o.righe[0], quantita: 1 }, { "idempotency-key": "arrivo-ik" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect((await rowState(o.righe[0]!)).arrivata).toBe(1);
  });
});
