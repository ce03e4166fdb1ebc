import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { countRows } from "../../testing/fixtures";
import { type NRow, notice, noticeGround, sscc } from "../../testing/notice-fixtures";
import { test } from "../../testing/test";

/** docs/api.md section 12: notices (upsert, list, events); their pallets' receipts are arrivals/pallets.test.ts. */

let t: TestDb;
let g: Awaited<ReturnType<typeof noticeGround>>;
let m1: number;
let m2: number;

test.beforeAll(async ({ db }) => {
  t = db;
  g = await noticeGround(t);
  m1 = g.m1;
  m2 = g.m2;
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => g.post(path, body, headers);
const get = (path: string) => g.get(path);
const order = (...a: Parameters<typeof g.order>) => g.order(...a);
const rowOf = (riga: number) => g.rowOf(riga);
const written = () => g.written();

describe("POST /avvisi-spedizione", () => {
  test("creates a notice, lists it with its pallets, records its event; the same call again is invariato", async () => {
    const o = await order("O-1", [
      [1, "A", 10],
      [2, "B", 5],
    ]);
    const body = {
      avvisi: [
        notice(
          "AV-1",
          [
            { sscc: sscc(1), righe: [{ ordine: "O-1", numero_riga: 1, quantita: 4 }] },
            {
              sscc: sscc(2),
              righe: [
                { ordine: "O-1", numero_riga: 2, quantita: 5 },
                { ordine: "O-1", numero_riga: 1, quantita: 6 },
              ],
            },
          ],
          { data_prevista: "2026-11-30" },
        ),
      ],
    };
    const r = await post("/avvisi-spedizione", body);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ creati: 1, rifiutati: 0, righe: [{ indice: 0, numero: "AV-1", esito: "creato" }] });
    const id = r.body.righe[0].id;

    const list = await get("/avvisi-spedizione");
    expect(list.status).toBe(200);
    const n = list.body.avvisi.find((a: { id: number }) => a.id === id);
    expect(n).toMatchObject({
      numero: "AV-1",
      fornitore: { codice: "FA" },
      magazzino: m1,
      data_prevista: "2026-11-30",
      stato: "atteso",
      colli: [
        { sscc: sscc(1), stato: "atteso", righe: [{ indice: 0, riga: o.righe[0]!.riga, numero_riga: 1, quantita: "4", lotto: null }] },
        {
          sscc: sscc(2),
          stato: "atteso",
          righe: [
            { indice: 0, quantita: "5" },
            { indice: 1, quantita: "6" },
          ],
        },
      ],
    });
    const events = await get("/eventi?tipo=avviso_spedizione.modificato");
    expect(events.body.eventi.at(-1).dati).toEqual(n);

    const before = await written();
    const again = await post("/avvisi-spedizione", body);
    expect(again.body).toMatchObject({ invariati: 1, righe: [{ esito: "invariato", id }] });
    expect(await written()).toEqual(before);

    const feed = await get(`/avvisi-spedizione?modificati_dopo=${n.versione - 1}`);
    expect(feed.body.avvisi.map((a: { id: number }) => a.id)).toEqual([id]);
    expect(feed.body.cursore_versione).toBe(n.versione);
  });

  test("every refusal refuses its notice only and writes nothing of it", async () => {
    await order("O-2", [
      [1, "A", 10],
      [2, "LOT", 10],
    ]);
    await order("O-FB", [[1, "A", 10]], { fornitore: "FB" });
    await order("O-M2", [[1, "A", 10]], { magazzino: "M2" });
    await post("/avvisi-spedizione", {
      avvisi: [notice("AV-TAKEN", [{ sscc: sscc(50), righe: [{ ordine: "O-2", numero_riga: 1, quantita: 1 }] }])],
    });
    const ok = (n: number, righe: NRow[] = [{ ordine: "O-2", numero_riga: 1, quantita: 1 }]) => [{ sscc: sscc(n), righe }];
    const cases: [unknown, string][] = [
      [notice("X-1", ok(60), { fornitore: "NOPE" }), "fornitore_non_trovato"],
      [notice("X-2", ok(61), { magazzino: "NOPE" }), "magazzino_non_trovato"],
      [notice("X-3", [{ sscc: "380012340000000001", righe: [{ ordine: "O-2", numero_riga: 1, quantita: 1 }] }]), "sscc_non_valido"],
      [notice("X-4", ok(50)), "sscc_in_uso"],
      [notice("X-5", ok(62, [{ ordine: "O-2", numero_riga: 9, quantita: 1 }])), "riga_non_trovata"],
      [notice("X-6", ok(63, [{ ordine: "O-FB", numero_riga: 1, quantita: 1 }])), "fornitore_diverso"],
      [notice("X-7", ok(64, [{ ordine: "O-M2", numero_riga: 1, quantita: 1 }])), "magazzino_diverso"],
      [notice("X-8", ok(65, [{ ordine: "O-2", numero_riga: 2, quantita: 1 }])), "lotto_obbligatorio"],
      [notice("X-9", ok(66, [{ ordine: "O-2", numero_riga: 1, quantita: 1, lotto: "L1" }])), "lotto_non_previsto"],
      [notice("X-10", ok(67, [{ ordine: "O-2", numero_riga: 1, quantita: 0 }])), "quantita_non_valida"],
      [notice("X-11", ok(68), { data_prevista: "2026-13-45" }), "campo_non_valido"],
      [notice("X-12", ok(69)), "avviso_ripetuto"],
      [notice("X-12", ok(70)), "avviso_ripetuto"],
    ];
    const before = await written();
    const r = await post("/avvisi-spedizione", { avvisi: cases.map((c) => c[0]) });
    expect(r.status).toBe(200);
    expect(r.body.rifiutati).toBe(cases.length);
    expect(r.body.righe.map((x: { errore: { codice: string } }) => x.errore.codice)).toEqual(cases.map((c) => c[1]));
    expect(await written()).toEqual(before);

    const tooMany = await post("/avvisi-spedizione", { avvisi: Array.from({ length: 101 }, (_, i) => notice(`T-${i}`, ok(100 + i))) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.codice).toBe("troppe_righe");
    expect(await written()).toEqual(before);
  });

  test("a notice is replaced before a receipt and refused after it (avviso_in_ricevimento)", async () => {
    const o = await order("O-3", [[1, "A", 10]]);
    const first = await post("/avvisi-spedizione", {
      avvisi: [notice("AV-3", [{ sscc: sscc(3), righe: [{ ordine: "O-3", numero_riga: 1, quantita: 2 }] }])],
    });
    const id = first.body.righe[0].id;
    const replaced = await post("/avvisi-spedizione", {
      avvisi: [notice("AV-3", [{ sscc: sscc(4), righe: [{ ordine: "O-3", numero_riga: 1, quantita: 3 }] }])],
    });
    expect(replaced.body.righe[0]).toMatchObject({ esito: "aggiornato", id });
    // The first SSCC is free again; the new one is the notice's.
    expect((await t.pool.query("SELECT sscc FROM colli WHERE avviso_id = $1", [id])).rows).toEqual([{ sscc: sscc(4) }]);

    expect((await post(`/colli/${sscc(4)}/ricevi`, { ddt: "D-3" })).status).toBe(200);
    expect((await rowOf(o.righe[0]!.riga)).arrivata).toBe("3.000");
    const before = await written();
    const refused = await post("/avvisi-spedizione", {
      avvisi: [notice("AV-3", [{ sscc: sscc(5), righe: [{ ordine: "O-3", numero_riga: 1, quantita: 1 }] }])],
    });
    expect(refused.body.righe[0].errore.codice).toBe("avviso_in_ricevimento");
    expect(await written()).toEqual(before);
  });

  test("an order upsert may not remove a row a notice announces (riga_in_avviso)", async () => {
    await order("O-4", [
      [1, "A", 10],
      [2, "B", 10],
    ]);
    await post("/avvisi-spedizione", {
      avvisi: [notice("AV-4", [{ sscc: sscc(6), righe: [{ ordine: "O-4", numero_riga: 2, quantita: 1 }] }])],
    });
    const r = await post("/ordini-acquisto", {
      ordini: [
        {
          numero: "O-4",
          fornitore: "FA",
          data: "2026-11-20",
          magazzino: "M1",
          righe: [{ numero_riga: 1, articolo: "A", quantita: 10, prezzo: "1" }],
        },
      ],
    });
    expect(r.body.righe[0].errore.codice).toBe("riga_in_avviso");
    const changed = await post("/ordini-acquisto", {
      ordini: [
        {
          numero: "O-4",
          fornitore: "FA",
          data: "2026-11-20",
          magazzino: "M1",
          righe: [
            { numero_riga: 1, articolo: "A", quantita: 10, prezzo: "1" },
            { numero_riga: 2, articolo: "A", quantita: 10, prezzo: "1" },
          ],
        },
      ],
    });
    expect(changed.body.righe[0].errore.codice).toBe("riga_in_avviso");
  });
});

describe("an order's warehouse while a notice announces its rows", () => {
  const orderIn = (numero: string, magazzino: string, data = "2026-11-20") => ({
    ordini: [{ numero, fornitore: "FA", data, magazzino, righe: [{ numero_riga: 1, articolo: "A", quantita: 10, prezzo: "1" }] }],
  });
  const orderState = async (numero: string) =>
    (await t.pool.query("SELECT magazzino_id, versione::text, data::text FROM ordini_acquisto WHERE numero = $1", [numero])).rows[0];

  test("changing it is riga_in_avviso, nothing written; the date still changes; received, the warehouse may change", async () => {
    await order("O-WH-1", [[1, "A", 10]]);
    const av = await post("/avvisi-spedizione", {
      avvisi: [notice("AV-WH-1", [{ sscc: sscc(60), righe: [{ ordine: "O-WH-1", numero_riga: 1, quantita: 4 }] }])],
    });
    expect(av.body.creati).toBe(1);
    const before = await orderState("O-WH-1");
    const events = await countRows(t, "eventi");
    const r = await post("/ordini-acquisto", orderIn("O-WH-1", "M2"));
    expect(r.status).toBe(200);
    expect(r.body.righe[0]).toMatchObject({ esito: "rifiutato", errore: { codice: "riga_in_avviso" } });
    expect(r.body.righe[0].errore.messaggio).toContain("AV-WH-1");
    expect(r.body.righe[0].errore.messaggio).toContain("magazzino");
    expect(await orderState("O-WH-1")).toEqual(before);
    expect(await countRows(t, "eventi")).toBe(events);
    // Another change of the header, the warehouse kept, is no business of the notice.
    expect((await post("/ordini-acquisto", orderIn("O-WH-1", "M1", "2026-11-21"))).body.righe[0].esito).toBe("aggiornato");
    // Received, the pallet no longer announces the row.
    expect((await post(`/colli/${sscc(60)}/ricevi`, { ddt: "DDT-WH-1" })).status).toBe(200);
    expect((await post("/ordini-acquisto", orderIn("O-WH-1", "M2", "2026-11-21"))).body.righe[0].esito).toBe("aggiornato");
  });

  test("a notice and a warehouse change racing: never both; whichever commits first wins, the other is refused", async () => {
    for (let round = 0; round < 8; round++) {
      const numero = `O-WH-R${round}`;
      await order(numero, [[1, "A", 10]]);
      const [noticeCall, orderCall] = await Promise.all([
        post("/avvisi-spedizione", {
          avvisi: [notice(`AV-WH-R${round}`, [{ sscc: sscc(100 + round), righe: [{ ordine: numero, numero_riga: 1, quantita: 1 }] }])],
        }),
        post("/ordini-acquisto", orderIn(numero, "M2")),
      ]);
      const noticeOk = noticeCall.body.righe[0].esito === "creato";
      const orderOk = orderCall.body.righe[0].esito === "aggiornato";
      expect(noticeOk !== orderOk, `round ${round}: ${JSON.stringify([noticeCall.body.righe[0], orderCall.body.righe[0]])}`).toBe(true);
      if (noticeOk) expect(orderCall.body.righe[0].errore.codice).toBe("riga_in_avviso");
      else expect(noticeCall.body.righe[0].errore.codice).toBe("magazzino_diverso");
      const w = (await orderState(numero)).magazzino_id;
      expect(w).toBe(noticeOk ? m1 : m2);
    }
  });
});
