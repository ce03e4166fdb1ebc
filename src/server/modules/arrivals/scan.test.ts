import { describe, expect } from "vitest";
import { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * arrivals.scan: the receiving screen's scan from a warehouse. The case that matters: an
 * article expected on 9 rows, 8 in BO-CENTRALE, the oldest in VR-DEPOSITO.
 */

let t: TestDb;
let key: string;
let actor: Actor;
let bo: number;
let vr: number;
let mi: number;
let fornitore: number;
/** The VR-DEPOSITO row (the oldest of all), then BO-CENTRALE's rows, oldest first. */
let vrRow: { ordine: number; riga: number };
const boRows: { ordine: number; riga: number }[] = [];
let solo: number;

const EAN = "8056789000122";
const EAN_ELSEWHERE = "8000000000057";

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  bo = (await seedWarehouse(t.prisma, "BO-CENTRALE")).id;
  vr = (await seedWarehouse(t.prisma, "VR-DEPOSITO")).id;
  mi = (await seedWarehouse(t.prisma, "MI-NORD")).id;
  fornitore = (await seedSupplier(t.prisma, "F1")).id;
  const art = (await seedArticle(t.prisma, "TASS", { ean: EAN })).id;
  solo = (await seedArticle(t.prisma, "SOLO", { ean: EAN_ELSEWHERE })).id;
  const order = async (numero: string, magazzino: number, data: string, articolo = art) => {
    const o = await seedOrder(t.prisma, { numero, fornitore, magazzino, data, righe: [{ articolo, quantita: "500", prezzo: "1" }] });
    return { ordine: o.id, riga: o.righe[0]! };
  };
  vrRow = await order("VR-1", vr, "2026-10-01");
  // Created newest first, so that ids and dates disagree: the order date decides.
  for (let i = 8; i >= 1; i--) boRows.unshift(await order(`BO-${i}`, bo, `2026-11-${String(10 + i).padStart(2, "0")}`));
  // SOLO: expected only outside BO-CENTRALE, in two warehouses.
  await order("VR-S1", vr, "2026-11-02", solo);
  await order("MI-S1", mi, "2026-10-20", solo);
  await order("MI-S2", mi, "2026-11-03", solo);
});

const scan = (input: { barcode: string; magazzino?: number }) => caller(t, actor, "trpc").arrivals.scan(input);

describe("arrivals.scan", () => {
  test("without a warehouse: the same answer as POST /arrivi/cerca by barcode (the oldest row of all)", async () => {
    const r = await scan({ barcode: EAN });
    const viaRest = await rest("POST", "/arrivi/cerca", { key, body: { barcode: EAN } });
    expect(r).toEqual(viaRest.body);
    expect(r.ordini[0]!.righe[0]!.riga).toBe(vrRow.riga);
    expect(r.totale_righe).toBe(9);
  });

  test("from BO-CENTRALE: that warehouse's oldest row, and totals of its rows only", async () => {
    const r = await scan({ barcode: EAN, magazzino: bo });
    expect(r.ordini).toHaveLength(1);
    expect(r.ordini[0]).toMatchObject({ id: boRows[0]!.ordine, numero: "BO-1", magazzino: bo });
    expect(r.ordini[0]!.righe.map((x) => x.riga)).toEqual([boRows[0]!.riga]);
    expect(r).toMatchObject({ totale_righe: 8, totale_ordini: 8, altri: false });
    expect(r.motivo).toBeUndefined();
    expect(r.altro_magazzino).toBeUndefined();
    expect(r.magazzino_diverso).toBeUndefined();
  });

  test("from VR-DEPOSITO: its one row, totale_righe 1", async () => {
    const r = await scan({ barcode: EAN, magazzino: vr });
    expect(r.ordini[0]!.righe[0]!.riga).toBe(vrRow.riga);
    expect(r.totale_righe).toBe(1);
  });

  test("GS1 from a warehouse: the warehouse's row, with the reading", async () => {
    const r = await scan({ barcode: `(01)0${EAN}(10)L1`, magazzino: bo });
    expect(r.ordini[0]!.righe[0]!.riga).toBe(boRows[0]!.riga);
    expect(r.lettura).toEqual({ gtin: `0${EAN}`, lotto: "L1", scadenza: null });
  });

  test("expected only in other warehouses: nothing proposed, altro_magazzino with the oldest such row, where and how many", async () => {
    const r = await scan({ barcode: EAN_ELSEWHERE, magazzino: bo });
    expect(r.ordini).toEqual([]);
    expect(r).toMatchObject({ totale_ordini: 0, totale_righe: 0, motivo_codice: "altro_magazzino" });
    expect(r.motivo).toBe("Atteso solo in MI-NORD (2 righe), VR-DEPOSITO (1 riga): cambiare magazzino per riceverlo lì.");
    expect(r.altro_magazzino!.totale_righe).toBe(3);
    expect(r.altro_magazzino!.ordini).toHaveLength(1);
    expect(r.altro_magazzino!.ordini[0]).toMatchObject({ numero: "MI-S1", magazzino: mi });
    expect(r.altro_magazzino!.ordini[0]!.righe).toHaveLength(1);
    expect(r.altro_magazzino!.ordini[0]!.righe[0]).toMatchObject({ articolo: { id: solo, codice: "SOLO" }, residua: "500" });
  });

  test("the message word for word: expected only in VR-DEPOSITO (1 riga)", async () => {
    const art = (await seedArticle(t.prisma, "UNA", { ean: "8000000000118" })).id;
    await seedOrder(t.prisma, {
      numero: "VR-UNA",
      fornitore,
      magazzino: vr,
      data: "2026-11-01",
      righe: [{ articolo: art, quantita: "1", prezzo: "1" }],
    });
    const r = await scan({ barcode: "8000000000118", magazzino: bo });
    expect(r.motivo).toBe("Atteso solo in VR-DEPOSITO (1 riga): cambiare magazzino per riceverlo lì.");
    expect(r.altro_magazzino!.totale_righe).toBe(1);
  });

  test("expected nowhere: non_atteso, as without a warehouse", async () => {
    await seedArticle(t.prisma, "NESSUNO", { ean: "8000000000125" });
    const r = await scan({ barcode: "8000000000125", magazzino: bo });
    expect(r).toMatchObject({ ordini: [], motivo_codice: "non_atteso" });
    expect(r.altro_magazzino).toBeUndefined();
  });

  test("a label names its row whatever the warehouse: VR-DEPOSITO's row from BO-CENTRALE is answered and flagged magazzino_diverso", async () => {
    const r = await scan({ barcode: `R${vrRow.riga}`, magazzino: bo });
    expect(r.ordini[0]!.righe[0]!.riga).toBe(vrRow.riga);
    expect(r.ordini[0]!.magazzino).toBe(vr);
    expect(r.magazzino_diverso).toBe(true);
    // The totals are still the scanning warehouse's.
    expect(r.totale_righe).toBe(8);
    const same = await scan({ barcode: `R${boRows[3]!.riga}`, magazzino: bo });
    expect(same.ordini[0]!.righe[0]!.riga).toBe(boRows[3]!.riga);
    expect(same.magazzino_diverso).toBeUndefined();
    const unspecified = await scan({ barcode: `R${vrRow.riga}` });
    expect(unspecified.magazzino_diverso).toBeUndefined();
  });

  test("an unknown warehouse: magazzino_non_trovato, whatever the code read", async () => {
    for (const barcode of [EAN, `R${vrRow.riga}`, "8000000000132", "R999999"]) {
      const e = await scan({ barcode, magazzino: 999_999 }).catch((x: { cause?: unknown }) => x.cause);
      expect(e, barcode).toBeInstanceOf(DomainError);
      expect((e as DomainError).codice, barcode).toBe("magazzino_non_trovato");
    }
  });

  test("a bad barcode or an unknown field is refused before any read: richiesta_non_valida", async () => {
    for (const input of [{ barcode: "" }, { barcode: "x".repeat(201) }, { barcode: EAN, fornitore: 1 }]) {
      const e = await caller(t, actor, "trpc")
        .arrivals.scan(input as never)
        .catch((x: unknown) => x);
      expect((e as { code?: string }).code).toBe("BAD_REQUEST");
    }
  });
});
