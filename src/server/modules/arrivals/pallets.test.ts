import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { notice, noticeGround, sscc } from "../../testing/notice-fixtures";
import { test } from "../../testing/test";

/** docs/api.md section 12: one receipt per pallet, its cancellation, a received pallet's scan. */

let t: TestDb;
let g: Awaited<ReturnType<typeof noticeGround>>;

test.beforeAll(async ({ db }) => {
  t = db;
  g = await noticeGround(t);
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => g.post(path, body, headers);
const get = (path: string) => g.get(path);
const order = (...a: Parameters<typeof g.order>) => g.order(...a);
const rowOf = (riga: number) => g.rowOf(riga);
const written = () => g.written();

describe("POST /colli/{sscc}/ricevi and /annulla", () => {
  test("one scan receives the pallet: declared differences are not received, what exceeds the row is eccedente", async () => {
    const o = await order("O-5", [
      [1, "A", 10],
      [2, "B", 3],
    ]);
    await post("/avvisi-spedizione", {
      avvisi: [
        notice("AV-5", [
          {
            sscc: sscc(7),
            righe: [
              { ordine: "O-5", numero_riga: 1, quantita: 8 },
              { ordine: "O-5", numero_riga: 2, quantita: 5 },
            ],
          },
        ]),
      ],
    });
    const scan = await post("/arrivi/cerca", { barcode: `(00)${sscc(7)}` });
    expect(scan.body.collo).toMatchObject({ sscc: sscc(7), stato: "atteso", avviso: { numero: "AV-5" } });
    expect(scan.body.collo.righe.map((r: { quantita: string; residua: string }) => [r.quantita, r.residua])).toEqual([
      ["8", "10"],
      ["5", "3"],
    ]);

    const r = await post(`/colli/${sscc(7)}/ricevi`, {
      ddt: "D-5",
      differenze: [{ indice: 0, quantita: 1, motivo: "danneggiato", nota: "Cartone schiacciato" }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 2, rifiutate: 0, collo: { sscc: sscc(7), stato: "ricevuto" } });
    expect(r.body.righe[0]).toMatchObject({ esito: "registrata", ricevuta: "7", differenze: [{ motivo: "danneggiato", quantita: "1" }] });
    expect(r.body.righe[1]).toMatchObject({ esito: "registrata", ricevuta: "3", differenze: [{ motivo: "eccedente", quantita: "2" }] });
    expect(await rowOf(o.righe[0]!.riga)).toMatchObject({ arrivata: "7.000" });
    expect(await rowOf(o.righe[1]!.riga)).toMatchObject({ arrivata: "3.000" });

    const diffs = await get("/differenze-ricevimento?motivo=danneggiato");
    expect(diffs.body.differenze.at(-1)).toMatchObject({
      sscc: sscc(7),
      avviso: { numero: "AV-5" },
      attesa: "8",
      ricevuta: "7",
      quantita: "1",
      nota: "Cartone schiacciato",
      annullata: false,
      autore: { tipo: "chiave" },
    });
    const ev = await get("/eventi?tipo=ricevimento.differenza");
    expect(
      ev.body.eventi
        .map((e: { dati: { motivo: string } }) => e.dati.motivo)
        .slice(-2)
        .sort(),
    ).toEqual(["danneggiato", "eccedente"]);

    const twice = await post(`/colli/${sscc(7)}/ricevi`, { ddt: "D-5" });
    expect(twice.status).toBe(409);
    expect(twice.body.codice).toBe("collo_gia_ricevuto");
  });

  test("five concurrent receipts of one pallet: one receipt, four collo_gia_ricevuto", async () => {
    const o = await order("O-6", [[1, "A", 10]]);
    await post("/avvisi-spedizione", {
      avvisi: [notice("AV-6", [{ sscc: sscc(8), righe: [{ ordine: "O-6", numero_riga: 1, quantita: 4 }] }])],
    });
    const all = await Promise.all(Array.from({ length: 5 }, (_, i) => post(`/colli/${sscc(8)}/ricevi`, { ddt: `D-6-${i}` })));
    expect(all.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const r of all.filter((x) => x.status === 409)) expect(r.body.codice).toBe("collo_gia_ricevuto");
    expect((await rowOf(o.righe[0]!.riga)).arrivata).toBe("4.000");
    const { rows } = await t.pool.query(
      "SELECT count(*)::int AS n FROM ricevimenti_collo r JOIN colli k ON k.id = r.collo_id WHERE k.sscc = $1",
      [sscc(8)],
    );
    expect(rows[0].n).toBe(1);
  });

  test("cancel undoes every arrival and voids the differences; the pallet is received again", async () => {
    const o = await order("O-7", [
      [1, "A", 10],
      [2, "B", 10],
    ]);
    await post("/avvisi-spedizione", {
      avvisi: [
        notice("AV-7", [
          {
            sscc: sscc(9),
            righe: [
              { ordine: "O-7", numero_riga: 1, quantita: 4 },
              { ordine: "O-7", numero_riga: 2, quantita: 2 },
            ],
          },
        ]),
      ],
    });
    const notYet = await post(`/colli/${sscc(9)}/annulla`, {});
    expect(notYet.status).toBe(409);
    expect(notYet.body.codice).toBe("collo_non_ricevuto");

    await post(`/colli/${sscc(9)}/ricevi`, { ddt: "D-7", differenze: [{ indice: 1, quantita: 2, motivo: "mancante" }] });
    expect(await rowOf(o.righe[1]!.riga)).toMatchObject({ arrivata: "0.000" });
    const c = await post(`/colli/${sscc(9)}/annulla`, {}, { "Idempotency-Key": "annulla-7" });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ annullati: 1, differenze_annullate: 1, collo: { stato: "atteso" } });
    expect((await rowOf(o.righe[0]!.riga)).arrivata).toBe("0.000");
    const replay = await post(`/colli/${sscc(9)}/annulla`, {}, { "Idempotency-Key": "annulla-7" });
    expect(replay.body).toEqual(c.body);

    const again = await post(`/colli/${sscc(9)}/ricevi`, { ddt: "D-7B" });
    expect(again.body).toMatchObject({ registrate: 2, collo: { stato: "ricevuto" } });
    expect(await rowOf(o.righe[0]!.riga)).toMatchObject({ arrivata: "4.000" });
    expect(await rowOf(o.righe[1]!.riga)).toMatchObject({ arrivata: "2.000" });
    const { rows } = await t.pool.query("SELECT annullata FROM differenze_ricevimento WHERE sscc = $1", [sscc(9)]);
    expect(rows).toEqual([{ annullata: true }]);
    const list = await get("/avvisi-spedizione?stato=ricevuto");
    expect(list.body.avvisi.map((a: { numero: string }) => a.numero)).toContain("AV-7");
  });

  test("a received pallet's scan says who received it, under which DDT and when; the 409 says it too; cancelled, nothing", async () => {
    await order("O-8", [[1, "A", 10]]);
    await post("/avvisi-spedizione", {
      avvisi: [notice("AV-8", [{ sscc: sscc(10), righe: [{ ordine: "O-8", numero_riga: 1, quantita: 3 }] }])],
    });
    const expected = await post("/arrivi/cerca", { barcode: sscc(10) });
    expect(expected.body.collo.stato).toBe("atteso");
    expect(expected.body.collo).not.toHaveProperty("ricevuto");

    const before = Date.now();
    expect((await post(`/colli/${sscc(10)}/ricevi`, { ddt: "D-8" })).status).toBe(200);
    const { rows: keys } = await t.pool.query(
      "SELECT nome FROM chiavi_api WHERE id = (SELECT chiave_api_id FROM ricevimenti_collo r JOIN colli k ON k.id = r.collo_id WHERE k.sscc = $1)",
      [sscc(10)],
    );
    const scan = await post("/arrivi/cerca", { barcode: `(00)${sscc(10)}` });
    expect(scan.body.collo).toMatchObject({ stato: "ricevuto", ricevuto: { da: keys[0].nome, ddt: "D-8" } });
    const il = scan.body.collo.ricevuto.il as string;
    expect(il).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
    expect(Date.parse(il)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(il)).toBeLessThanOrEqual(Date.now() + 1000);

    // The loser of two receipts reads the same in the refusal.
    const twice = await post(`/colli/${sscc(10)}/ricevi`, { ddt: "D-8B" });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ codice: "collo_gia_ricevuto", campo: "sscc" });
    expect(twice.body.messaggio).toContain("D-8");
    expect(twice.body.messaggio).toContain(keys[0].nome);

    expect((await post(`/colli/${sscc(10)}/annulla`, {})).status).toBe(200);
    const cancelled = await post("/arrivi/cerca", { barcode: sscc(10) });
    expect(cancelled.body.collo.stato).toBe("atteso");
    expect(cancelled.body.collo).not.toHaveProperty("ricevuto");
  });

  test("an unknown SSCC is collo_non_trovato, a malformed one sscc_non_valido, and a scan of it says so", async () => {
    const before = await written();
    for (const [code, status, codice] of [
      [sscc(999), 404, "collo_non_trovato"],
      ["123", 422, "sscc_non_valido"],
    ] as const) {
      const r = await post(`/colli/${code}/ricevi`, { ddt: "D-X" });
      expect([r.status, r.body.codice]).toEqual([status, codice]);
      const c = await post(`/colli/${code}/annulla`, {});
      expect([c.status, c.body.codice]).toEqual([status, codice]);
    }
    expect(await written()).toEqual(before);
    const scan = await post("/arrivi/cerca", { barcode: sscc(999) });
    expect(scan.body).toMatchObject({ ordini: [], motivo_codice: "codice_sconosciuto" });
  });
});
