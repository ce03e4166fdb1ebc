import { describe, expect } from "vitest";
import { seedOrder, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { waitsWithoutHolding } from "../../testing/locks";
import { a, arrive, cancel, f, m1, m2, rowState, search, seedArrivalsBeforeAll, t } from "./arrivals-testing";

seedArrivalsBeforeAll();

describe("invariants under concurrency", () => {
  test("20 parallel arrivals of 1 on a row of 10: 10 accepted, 10 quantita_eccessiva, arrivata 10", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-1",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [{ articolo: a.SOLO!, quantita: "10", prezzo: "1" }],
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => arrive({ magazzino: m1, ddt: `C1-${i}`, riga: o.righe[0], quantita: 1 })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(10);
    expect(refused.every((r) => r.body.codice === "quantita_eccessiva")).toBe(true);
    const s = await rowState(o.righe[0]!);
    expect(s).toMatchObject({ arrivata: 10, ledger: 10, ordine: "evaso" });
  });

  test("arrivals and cancellations racing: arrivata equals the sum of registrati, stock equals the ledger", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-2",
      fornitore: f.B!,
      magazzino: m2,
      data: "2026-11-19",
      righe: [
        { articolo: a.SOLO!, quantita: "30", prezzo: "1" },
        { articolo: a.VITE!, quantita: "30", prezzo: "1" },
      ],
    });
    const first = await Promise.all(
      Array.from({ length: 12 }, (_, i) => arrive({ magazzino: m2, ddt: `C2`, riga: o.righe[i % 2], quantita: 2 })),
    );
    const ids = first.filter((r) => r.status === 201).map((r) => r.body.movimento);
    await Promise.all([
      ...ids.slice(0, 6).map((id) => cancel(id)),
      ...Array.from({ length: 12 }, (_, i) => arrive({ magazzino: m2, ddt: `C2b`, righe: [{ riga: o.righe[i % 2], quantita: 1.5 }] })),
    ]);
    const found = await search({ ordine: o.id, includi_evase: true });
    for (const row of found.body.ordini[0].righe) {
      const sum = row.registrati.reduce((acc: number, x: any) => acc + Number(x.quantita), 0);
      expect(Number(row.arrivata)).toBeCloseTo(sum, 6);
      expect((await rowState(row.riga)).ledger).toBeCloseTo(Number(row.arrivata), 6);
    }
    for (const art of [a.SOLO!, a.VITE!]) {
      const s = await stockOf(t, art, m2);
      expect(s.balance).toBe(s.ledger);
    }
  });

  test("cancelling the same arrival twice in parallel cancels it once", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-3",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [{ articolo: a.SOLO!, quantita: "5", prezzo: "1" }],
    });
    const r = await arrive({ magazzino: m1, ddt: "C3", riga: o.righe[0], quantita: 5 });
    const results = await Promise.all(Array.from({ length: 6 }, () => cancel(r.body.movimento)));
    expect(results.filter((x) => x.status === 200)).toHaveLength(1);
    expect(results.filter((x) => x.status === 409).every((x) => x.body.codice === "arrivo_gia_annullato")).toBe(true);
    expect(await rowState(o.righe[0]!)).toMatchObject({ arrivata: 0, ledger: 0, ordine: "aperto" });
  });

  test("one request naming the same row twice: the second sees the first's quantity", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-5",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [{ articolo: a.LATTE!, quantita: "10", prezzo: "1" }],
    });
    const riga = o.righe[0]!;
    const r = await arrive({
      magazzino: m1,
      ddt: "C5",
      righe: [
        { riga, quantita: 6, lotto: "L5" },
        { riga, quantita: 6, lotto: "L5" },
        { riga, quantita: 4, lotto: "L5" },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.righe.map((x: any) => (x.esito === "registrata" ? `${x.arrivata}/${x.residua}` : x.errore.codice))).toEqual([
      "6/4",
      "quantita_eccessiva",
      "10/0",
    ]);
    expect(await rowState(riga)).toMatchObject({ arrivata: 10, ledger: 10, riga: "evasa" });
    const { rows } = await t.pool.query(
      "SELECT residua::text AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = 'L5'",
      [a.LATTE, m1],
    );
    expect(Number(rows[0].r)).toBe(10);
  });

  test("a multi-row arrival locks its order rows in id order, not in the rows' order", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-6",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [
        { articolo: a.SOLO!, quantita: "5", prezzo: "1" },
        { articolo: a.VITE!, quantita: "5", prezzo: "1" },
      ],
    });
    const [low, high] = [...o.righe].sort((x, y) => x - y) as [number, number];
    const row = (id: number) => ({ sql: "SELECT id FROM righe_ordine WHERE id = $1", params: [id] });
    const {
      waited,
      free,
      result: r,
    } = await waitsWithoutHolding(t.pool, {
      hold: row(low),
      probe: row(high),
      table: "righe_ordine",
      send: () =>
        arrive({
          magazzino: m1,
          ddt: "C6",
          righe: [
            { riga: high, quantita: 1 },
            { riga: low, quantita: 1 },
          ],
        }),
    });
    // Waiting on the lower row, it holds nothing yet: the higher row is free.
    expect(waited).toBe(true);
    expect(free).toBe(true);
    expect(r.status).toBe(200);
    expect(r.body.righe.map((x: any) => x.esito)).toEqual(["registrata", "registrata"]);
    expect(r.body.righe[0].movimento).toBeLessThan(r.body.righe[1].movimento);
  });

  test("the last rows of one order arriving together leave it evaso", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-4",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: Array.from({ length: 6 }, () => ({ articolo: a.SOLO!, quantita: "1", prezzo: "1" })),
    });
    await Promise.all(o.righe.map((riga, i) => arrive({ magazzino: m1, ddt: `C4-${i}`, riga })));
    expect((await rowState(o.righe[0]!)).ordine).toBe("evaso");
  });
});
