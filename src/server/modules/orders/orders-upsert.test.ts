import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import { rest } from "../../testing/fixtures";
import { verifyLedger } from "../ledger/verify.service";
import { a, arrive, dbRows, key, m1, m2, order, orderOf, row, seedOrdersBeforeAll, snapshot, t, upsert, type Row } from "./orders-testing";

seedOrdersBeforeAll();

describe("POST /ordini-acquisto", () => {
  test("creates orders keyed by supplier and number; the same call again is invariato and writes nothing", async () => {
    const ordini = [
      order("N-1", [row(10, "A", 5), row(20, "B", 2.5, "0.1234")]),
      order("N-1", [row(1, "C", 1)], { fornitore: "FB", magazzino: "M2" }),
    ];
    const r = await upsert(ordini);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ creati: 2, aggiornati: 0, invariati: 0, rifiutati: 0 });
    const [fa, fb] = r.body.righe;
    expect(fa).toMatchObject({ indice: 0, numero: "N-1", esito: "creato" });
    expect(fb).toMatchObject({ indice: 1, numero: "N-1", esito: "creato" });
    expect(fa.id).not.toBe(fb.id);
    expect(fa.righe.map((x: { numero_riga: number }) => x.numero_riga)).toEqual([10, 20]);
    for (const x of fa.righe) expect(x.etichetta).toBe(`R${x.riga}`);
    const stored = await dbRows(fa.id);
    expect(stored.map((s) => [s.numero_riga, s.posizione, s.ordinata, s.prezzo, s.stato])).toEqual([
      [10, 10, "5.000", "1.5000", "aperta"],
      [20, 20, "2.500", "0.1234", "aperta"],
    ]);
    expect((await orderOf(fb.id)).magazzino_id).toBe(m2);

    const before = await snapshot();
    const again = await upsert(ordini);
    expect(again.body).toMatchObject({ creati: 0, aggiornati: 0, invariati: 2, rifiutati: 0 });
    expect(again.body.righe[0].righe).toEqual(fa.righe);
    expect(await snapshot()).toEqual(before);
  });

  test("every refusal refuses its order only, names the row, and writes nothing of it", async () => {
    const before = await snapshot();
    const cases: [unknown, string, RegExp][] = [
      [order("R-1", [row(1, "A", 1)], { fornitore: "NOPE" }), "fornitore_non_trovato", /NOPE/],
      [order("R-2", [row(1, "A", 1)], { magazzino: "NOPE" }), "magazzino_non_trovato", /NOPE/],
      [order("R-3", [row(1, "A", 1), row(2, "ZZZ", 1)]), "articolo_non_trovato", /riga 2 \(ordini\[2\]\.righe\[1\]\).*ZZZ/],
      [order("R-4", [row(1, "T", 1)]), "articolo_con_varianti", /T/],
      [order("R-5", [row(1, "A", 1), row(7, "OFF", 1)]), "articolo_non_attivo", /riga 7.*OFF/],
      [order("R-6", [row(1, "A", 0)]), "quantita_non_valida", /riga 1/],
      [order("R-7", [row(1, "A", 1.2345)]), "quantita_non_valida", /1\.2345/],
      [order("R-8", [row(1, "A", 1, "1,50")]), "prezzo_non_valido", /1,50/],
      [order("R-9", [row(3, "A", 1), row(3, "B", 1)]), "numero_riga_ripetuto", /3/],
    ];
    const ok = order("R-OK", [row(1, "A", 1)]);
    const r = await upsert([...cases.map((c) => c[0]), ok]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ creati: 1, rifiutati: cases.length });
    for (const [i, [, codice, msg]] of cases.entries()) {
      expect(r.body.righe[i], codice).toMatchObject({ indice: i, esito: "rifiutato", errore: { codice } });
      expect(r.body.righe[i].errore.messaggio).toMatch(msg);
      expect(r.body.righe[i].id).toBeUndefined();
    }
    const after = await snapshot();
    expect(after.ordini).toBe(before.ordini + 1);
    expect(after.righe).toBe(before.righe + 1);

    // The same order twice in one call: both refused.
    const twice = await upsert([order("R-10", [row(1, "A", 1)]), order("R-10", [row(1, "A", 2)])]);
    expect(twice.body.righe.map((x: { errore?: { codice: string } }) => x.errore?.codice)).toEqual(["ordine_ripetuto", "ordine_ripetuto"]);
    expect((await snapshot()).ordini).toBe(after.ordini);
  });

  test("troppe_righe over 100 orders or 500 rows in all, nothing written; a fault of the envelope is richiesta_non_valida", async () => {
    const before = await snapshot();
    const many = Array.from({ length: 101 }, (_, i) => order(`TR-${i}`, [row(1, "A", 1)]));
    const r1 = await upsert(many);
    expect(r1.status).toBe(422);
    expect(r1.body).toMatchObject({ codice: "troppe_righe", campo: "ordini" });
    const rows = Array.from({ length: 501 }, (_, i) => row(i + 1, "A", 1));
    const r2 = await upsert([order("TR-X", rows.slice(0, 300)), order("TR-Y", rows.slice(300))]);
    expect(r2.status).toBe(422);
    expect(r2.body.codice).toBe("troppe_righe");
    for (const body of [{ ordini: {} }, { ordini: [] }, { ordini: [order("TR-Z", [row(1, "A", 1)]), 7] }, { ordini: [], altro: 1 }, {}]) {
      const r3 = await rest("POST", "/ordini-acquisto", { key, body });
      expect(r3.status, JSON.stringify(body)).toBe(422);
      expect(r3.body).toMatchObject({ codice: "richiesta_non_valida" });
    }
    expect(await snapshot()).toEqual(before);
  });

  test("a malformed order is that order's outcome (campo_non_valido, the field in the message and in errore.campo); the others are written", async () => {
    const before = await snapshot();
    const { numero_riga: _, ...noNumber } = row(1, "A", 1);
    const cases: [unknown, string, RegExp][] = [
      [order("M-1", [row(1, "A", 1)], { data: "2026-02-30" }), "data", /Ordine M-1 \(ordini\[0\]\): campo 'data': .*data valida/],
      [order("M-2", [row(1, "A", 1)], { data: 20261120 }), "data", /campo 'data'/],
      [
        order("M-3", [{ ...row(1, "A", 1), quantita: "5" } as never]),
        "righe[0].quantita",
        /campo 'righe\[0\]\.quantita': deve essere un numero/,
      ],
      [order("M-4", [row(1, "A", 1), noNumber as never]), "righe[1].numero_riga", /campo 'righe\[1\]\.numero_riga'/],
      [order("M-5", [row(0, "A", 1)]), "righe[0].numero_riga", /maggiore di zero/],
      [order("M-6", [row(1, "A", 1)], { urgente: true }), "urgente", /campo 'urgente': campo non previsto/],
      [{ fornitore: "FA", data: "2026-11-20", magazzino: "M1", righe: [row(1, "A", 1)] }, "numero", /Ordine senza numero .*campo 'numero'/],
      [order("M-8", []), "righe", /almeno una riga/],
      [{ ...order("M-9", []), righe: "tutte" }, "righe", /elenco/],
      [order("M-10", [row(1, "A", 1), 3 as never]), "righe[1]", /campo 'righe\[1\]'/],
      [order("M-11", [row(1, "A", 1)], { magazzino: null }), "magazzino", /campo 'magazzino'/],
    ];
    const r = await upsert([...cases.map((c) => c[0]), order("M-OK", [row(1, "A", 1)]), order("M-OK2", [row(1, "B", 2)])]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ creati: 2, aggiornati: 0, invariati: 0, rifiutati: cases.length });
    for (const [i, [, campo, msg]] of cases.entries()) {
      expect(r.body.righe[i], campo).toMatchObject({ indice: i, esito: "rifiutato", errore: { codice: "campo_non_valido", campo } });
      expect(r.body.righe[i].errore.messaggio).toMatch(msg);
      expect(r.body.righe[i].id).toBeUndefined();
    }
    expect(r.body.righe[0].numero).toBe("M-1");
    expect(r.body.righe[6].numero).toBeNull();
    expect(r.body.righe.slice(-2).map((x: { esito: string }) => x.esito)).toEqual(["creato", "creato"]);
    const after = await snapshot();
    expect(after.ordini).toBe(before.ordini + 2);
    expect(after.righe).toBe(before.righe + 2);
    // Several faults in one order: each named in the message, the first in `campo`.
    const both = await upsert([order("M-12", [{ ...row(1, "A", 1), prezzo: 1.5 } as never], { data: "ieri" })]);
    expect(both.body.righe[0].errore).toMatchObject({ codice: "campo_non_valido", campo: "data" });
    expect(both.body.righe[0].errore.messaggio).toMatch(/campo 'data'.*; campo 'righe\[0\]\.prezzo'/);
    expect((await snapshot()).ordini).toBe(after.ordini);
  });

  test("replacing after partial arrivals: ids and labels kept, rows added and removed, never below arrived, arrived rows stay", async () => {
    const created = await upsert([order("P-1", [row(1, "A", 5), row(2, "B", 3), row(3, "C", 2)])]);
    const id = created.body.righe[0].id;
    const [r1, r2, r3] = created.body.righe[0].righe.map((x: { riga: number }) => x.riga);
    expect((await arrive({ magazzino: m1, ddt: "P-D1", riga: r1, quantita: 2 })).status).toBe(201);
    const cancelled = await arrive({ magazzino: m1, ddt: "P-D1", riga: r2, quantita: 1 });
    expect((await rest("POST", `/arrivi/${cancelled.body.movimento}/annulla`, { key })).status).toBe(200);
    const v0 = (await orderOf(id)).versione;

    const replaced = await upsert([
      order("P-1", [row(1, "A", 4, "2"), row(2, "B", 3), row(4, "D", 6)], { data: "2026-11-21", magazzino: "M2" }),
    ]);
    expect(replaced.body).toMatchObject({ aggiornati: 1, righe: [{ esito: "aggiornato", id }] });
    const listed = replaced.body.righe[0].righe;
    expect(listed.slice(0, 2)).toEqual([
      { numero_riga: 1, riga: r1, etichetta: `R${r1}` },
      { numero_riga: 2, riga: r2, etichetta: `R${r2}` },
    ]);
    expect(listed[2].numero_riga).toBe(4);
    expect(listed[2].riga).toBeGreaterThan(r3);
    const stored = await dbRows(id);
    expect(stored.map((s) => [s.id, s.numero_riga, s.ordinata, s.arrivata, s.prezzo, s.stato])).toEqual([
      [r1, 1, "4.000", "2.000", "2.0000", "parziale"],
      [r2, 2, "3.000", "0.000", "1.5000", "aperta"],
      [listed[2].riga, 4, "6.000", "0.000", "1.5000", "aperta"],
    ]);
    const o = await orderOf(id);
    expect(o).toMatchObject({ stato: "parziale", data: "2026-11-21", magazzino_id: m2 });
    expect(o.versione).toBeGreaterThan(v0);

    const before = await snapshot();
    const refusals: [Row[], string, RegExp][] = [
      [[row(1, "A", 1.5), row(2, "B", 3), row(4, "D", 6)], "quantita_sotto_arrivata", /riga 1 .*R\d+ \(2\)/],
      [[row(2, "B", 3), row(4, "D", 6)], "riga_con_arrivi", /riga 1 \(R\d+, A\)/],
      [[row(1, "C", 4), row(2, "B", 3), row(4, "D", 6)], "riga_con_arrivi", /non può passare a 'C'/],
      // Row 2's only arrival was cancelled, but the ledger still names it: it stays.
      [[row(1, "A", 4, "2"), row(4, "D", 6)], "riga_con_arrivi", /riga 2/],
    ];
    for (const [righe, codice, msg] of refusals) {
      const r = await upsert([order("P-1", righe, { data: "2026-11-21", magazzino: "M2" })]);
      expect(r.body.righe[0], codice).toMatchObject({ esito: "rifiutato", errore: { codice } });
      expect(r.body.righe[0].errore.messaggio).toMatch(msg);
    }
    expect(await snapshot()).toEqual(before);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a row without arrivals may change article; an inactive article only where it would be ordered anew", async () => {
    const created = await upsert([order("ART-1", [row(1, "A", 5), row(2, "B", 1)])]);
    const id = created.body.righe[0].id;
    const r1 = created.body.righe[0].righe[0].riga;
    const moved = await upsert([order("ART-1", [row(1, "C", 5), row(2, "B", 1)])]);
    expect(moved.body.righe[0]).toMatchObject({ esito: "aggiornato", righe: [{ numero_riga: 1, riga: r1 }, { numero_riga: 2 }] });
    expect((await dbRows(id))[0].articolo_id).toBe(a.C);
    expect((await upsert([order("ART-1", [row(1, "OFF", 5), row(2, "B", 1)])])).body.righe[0].errore.codice).toBe("articolo_non_attivo");
    // Deactivated after it was ordered: the row may stay and shrink, not grow.
    await t.pool.query("UPDATE articoli SET attivo = false WHERE codice = 'B'");
    try {
      expect((await upsert([order("ART-1", [row(1, "C", 5), row(2, "B", 1)])])).body.righe[0].esito).toBe("invariato");
      expect((await upsert([order("ART-1", [row(1, "C", 5), row(2, "B", 0.5)])])).body.righe[0].esito).toBe("aggiornato");
      expect((await upsert([order("ART-1", [row(1, "C", 5), row(2, "B", 2)])])).body.righe[0].errore.codice).toBe("articolo_non_attivo");
    } finally {
      await t.pool.query("UPDATE articoli SET attivo = true WHERE codice = 'B'");
    }
  });

  test("an order evaso is not replaced (ordine_evaso); sent again unchanged it is invariato", async () => {
    const created = await upsert([order("E-1", [row(1, "A", 2)])]);
    const riga = created.body.righe[0].righe[0].riga;
    expect((await arrive({ magazzino: m1, ddt: "E-D", riga })).body.ordine.stato).toBe("evaso");
    const before = await snapshot();
    expect((await upsert([order("E-1", [row(1, "A", 2)])])).body.righe[0].esito).toBe("invariato");
    const r = await upsert([order("E-1", [row(1, "A", 2), row(2, "B", 1)])]);
    expect(r.body.righe[0]).toMatchObject({ esito: "rifiutato", errore: { codice: "ordine_evaso" } });
    expect(await snapshot()).toEqual(before);
  });

  test("Idempotency-Key: the retry replays the first answer; the same key with another body is refused", async () => {
    const body = [order("IK-1", [row(1, "A", 1)])];
    const first = await upsert(body, { "idempotency-key": "ordini-ik" });
    const before = await snapshot();
    const again = await upsert(body, { "idempotency-key": "ordini-ik" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(again.body.righe[0].esito).toBe("creato");
    expect(await snapshot()).toEqual(before);
    const other = await upsert([order("IK-1", [row(1, "A", 2)])], { "idempotency-key": "ordini-ik" });
    expect(other.status).toBe(422);
    expect(other.body.codice).toBe("chiave_idempotenza_riutilizzata");
  });

  test("concurrent replacements of one order queue: each answers, no 500, the last state is one of them", async () => {
    const created = await upsert([order("C-1", [row(1, "A", 1)])]);
    const id = created.body.righe[0].id;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => upsert([order("C-1", [row(1, "A", 1), row(i + 2, "B", i + 1)])])),
    );
    for (const r of results) expect(r.status).toBe(200);
    expect(results.map((r) => r.body.righe[0].esito).sort()).toEqual(Array(8).fill("aggiornato"));
    const stored = await dbRows(id);
    expect(stored).toHaveLength(2);
    expect(stored[0].numero_riga).toBe(1);
  });
});
