import { describe, expect } from "vitest";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { caller, countRows, rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { importMasterData } from "../import/import.service";
import { verifyLedger } from "../ledger/verify.service";

let t: TestDb;
let key: string;
let m1: number;
let m2: number;
const a: Record<string, number> = {};

test.beforeAll(async ({ db }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  a.A = (await seedArticle(t.prisma, "A", { ean: "8001234567897" })).id;
  a.B = (await seedArticle(t.prisma, "B", { ean: "8000000000019" })).id;
  a.C = (await seedArticle(t.prisma, "C", { ean: "8000000000026" })).id;
  a.D = (await seedArticle(t.prisma, "D", { ean: "8000000000033" })).id;
  a.K = (await seedArticle(t.prisma, "K", { ean: "8000000000057" })).id;
  const tpl = await seedArticle(t.prisma, "T", { haVarianti: true });
  a.TV = (await seedArticle(t.prisma, "T-V", { modelloId: tpl.id })).id;
  a.OFF = (await seedArticle(t.prisma, "OFF", { ean: "8000000000040" })).id;
  a.LOT = (await seedArticle(t.prisma, "LOT", { lotti: true })).id;
  await t.pool.query("UPDATE articoli SET attivo = false WHERE codice = 'OFF'");
  await seedSupplier(t.prisma, "FA");
  await seedSupplier(t.prisma, "FB");
  key = (await seedKey(t.prisma)).chiave;
});

type Row = { numero_riga: number; articolo: string; quantita: number; prezzo: string };
const order = (numero: string, righe: Row[], over: Record<string, unknown> = {}) => ({
  numero,
  fornitore: "FA",
  data: "2026-11-20",
  magazzino: "M1",
  ...over,
  righe,
});
const row = (numero_riga: number, articolo: string, quantita: number, prezzo = "1.5"): Row => ({ numero_riga, articolo, quantita, prezzo });
const upsert = (ordini: unknown[], headers: Record<string, string> = {}) =>
  rest("POST", "/ordini-acquisto", { key, body: { ordini }, headers });
const close = (id: number, body: unknown = {}) => rest("POST", `/ordini-acquisto/${id}/chiudi`, { key, body });
const arrive = (body: unknown) => rest("POST", "/arrivi", { key, body });

/** Row counts and the orders' versions: what "nothing written" means. */
async function snapshot() {
  const { rows } = await t.pool.query("SELECT coalesce(string_agg(id || ':' || versione, ',' ORDER BY id), '') AS v FROM ordini_acquisto");
  return { ordini: await countRows(t, "ordini_acquisto"), righe: await countRows(t, "righe_ordine"), versioni: rows[0].v as string };
}

async function dbRows(ordine: number) {
  const { rows } = await t.pool.query(
    `SELECT id, numero_riga, posizione, articolo_id, ordinata::text, arrivata::text, chiusa::text, prezzo::text, stato, motivo_chiusura
       FROM righe_ordine WHERE ordine_id = $1 ORDER BY numero_riga`,
    [ordine],
  );
  return rows;
}

async function orderOf(id: number) {
  return (
    await t.pool.query(
      "SELECT stato, versione::int AS versione, to_char(data, 'YYYY-MM-DD') AS data, magazzino_id FROM ordini_acquisto WHERE id = $1",
      [id],
    )
  ).rows[0];
}

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

describe("POST /ordini-acquisto/{id}/chiudi", () => {
  test("closing short: the scan no longer expects it, in_arrivo drops, the order is evaso, its version moves; again is invariato", async () => {
    const created = await upsert([order("K-1", [row(1, "K", 10), row(2, "K", 4)], { fornitore: "FB" })]);
    const id = created.body.righe[0].id;
    const [r1, r2] = created.body.righe[0].righe.map((x: { riga: number }) => x.riga);
    const inArrivo = async () => (await rest("GET", `/disponibilita?dopo=${a.K! - 1}&limite=1`, { key })).body.disponibilita[0].in_arrivo;
    expect(await inArrivo()).toBe("14");
    expect((await arrive({ magazzino: m1, ddt: "K-D", riga: r1, quantita: 3 })).status).toBe(201);
    const feed = async () =>
      (await rest("GET", `/ordini-acquisto?modificati_dopo=0&limite=100`, { key })).body.ordini.find((o: { id: number }) => o.id === id);
    const v0 = (await feed()).versione;

    const c1 = await close(id, { righe: [1], motivo: "Fornitore: articolo fuori produzione" });
    expect(c1.status).toBe(200);
    expect(c1.body).toEqual({
      ordine: { id, numero: "K-1", stato: "parziale" },
      chiusi: 1,
      invariati: 0,
      righe: [
        {
          numero_riga: 1,
          riga: r1,
          esito: "chiuso",
          ordinata: "10",
          arrivata: "3",
          chiusa: "7",
          residua: "0",
          motivo: "Fornitore: articolo fuori produzione",
        },
      ],
    });
    expect(await inArrivo()).toBe("4");
    const fed = await feed();
    expect(fed.versione).toBeGreaterThan(v0);
    expect(fed.righe[0]).toMatchObject({ numero_riga: 1, arrivata: "3", chiusa: "7", residua: "0" });

    // The label of the closed row says so; the EAN finds the other row; receiving on it is refused.
    const label = await rest("POST", "/arrivi/cerca", { key, body: { barcode: `R${r1}` } });
    expect(label.body).toMatchObject({ ordini: [], motivo_codice: "riga_evasa" });
    expect(label.body.motivo).toMatch(/chiusa.*fuori produzione/);
    const ean = await rest("POST", "/arrivi/cerca", { key, body: { barcode: "8000000000057" } });
    expect(ean.body.ordini[0].righe[0]).toMatchObject({ riga: r2, residua: "4" });
    expect(ean.body.totale_righe).toBe(1);
    const refused = await arrive({ magazzino: m1, ddt: "K-D", riga: r1 });
    expect(refused.body).toMatchObject({ codice: "riga_evasa" });
    expect(refused.body.messaggio).toMatch(/chiusa/);
    expect((await arrive({ magazzino: m1, ddt: "K-D", riga: r1, quantita: 1 })).body.codice).toBe("quantita_eccessiva");

    // Every row: the other closes, the closed one is invariato; then the EAN is no longer expected.
    const c2 = await close(id, {});
    expect(c2.body).toMatchObject({ ordine: { stato: "evaso" }, chiusi: 1, invariati: 1 });
    expect(c2.body.righe.map((x: { esito: string }) => x.esito)).toEqual(["invariato", "chiuso"]);
    expect(c2.body.righe[0].motivo).toBe("Fornitore: articolo fuori produzione");
    expect(await inArrivo()).toBe("0");
    expect((await rest("POST", "/arrivi/cerca", { key, body: { barcode: "8000000000057" } })).body).toMatchObject({
      ordini: [],
      motivo_codice: "non_atteso",
    });
    expect((await rest("POST", "/arrivi/cerca", { key, body: { ordine: id } })).body.ordini).toEqual([]);

    const before = await snapshot();
    const c3 = await close(id, {});
    expect(c3.body).toMatchObject({ chiusi: 0, invariati: 2, ordine: { stato: "evaso" } });
    expect(await snapshot()).toEqual(before);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("cancelling an arrival on a row closed short gives that quantity back to what is expected", async () => {
    const created = await upsert([order("K-2", [row(1, "C", 5)])]);
    const id = created.body.righe[0].id;
    const riga = created.body.righe[0].righe[0].riga;
    const arrival = await arrive({ magazzino: m1, ddt: "K2-D", riga, quantita: 2 });
    expect((await close(id)).body.ordine.stato).toBe("evaso");
    const undone = await rest("POST", `/arrivi/${arrival.body.movimento}/annulla`, { key });
    expect(undone.body).toMatchObject({ riga: { riga, arrivata: "0", residua: "2" }, ordine: { stato: "aperto" } });
    expect((await dbRows(id))[0]).toMatchObject({ arrivata: "0.000", chiusa: "3.000", stato: "aperta" });
    expect((await close(id)).body).toMatchObject({ chiusi: 1, ordine: { stato: "evaso" }, righe: [{ chiusa: "5", residua: "0" }] });
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a new quantity on a closed row reopens it; a new price alone keeps the closing", async () => {
    const created = await upsert([order("K-3", [row(1, "C", 5), row(2, "A", 1)])]);
    const id = created.body.righe[0].id;
    await close(id, { righe: [1], motivo: "basta" });
    await upsert([order("K-3", [row(1, "C", 5, "9"), row(2, "A", 1)])]);
    expect((await dbRows(id))[0]).toMatchObject({ chiusa: "5.000", motivo_chiusura: "basta", stato: "evasa" });
    await upsert([order("K-3", [row(1, "C", 6, "9"), row(2, "A", 1)])]);
    expect((await dbRows(id))[0]).toMatchObject({ chiusa: "0.000", motivo_chiusura: null, stato: "aperta" });
  });

  test("the receiving search answers only rows of active articles: a deactivated article's EAN and labels say so", async () => {
    const created = await upsert([order("ACT-1", [row(1, "D", 5)])]);
    const riga = created.body.righe[0].righe[0].riga;
    const scan = (barcode: string) => rest("POST", "/arrivi/cerca", { key, body: { barcode } });
    expect((await scan("8000000000033")).body.ordini).toHaveLength(1);
    await t.pool.query("UPDATE articoli SET attivo = false WHERE codice = 'D'");
    try {
      for (const barcode of ["8000000000033", `R${riga}`]) {
        const r = await scan(barcode);
        expect(r.body).toMatchObject({ ordini: [], motivo_codice: "non_atteso" });
        expect(r.body.motivo).toMatch(/D non è attivo/);
      }
      expect((await rest("POST", "/arrivi/cerca", { key, body: { ordine: created.body.righe[0].id } })).body.ordini).toEqual([]);
    } finally {
      await t.pool.query("UPDATE articoli SET attivo = true WHERE codice = 'D'");
    }
  });

  test("refusals: unknown order 404, unknown line number 422 riga_non_trovata, nothing written", async () => {
    const created = await upsert([order("K-4", [row(1, "C", 5)])]);
    const id = created.body.righe[0].id;
    const before = await snapshot();
    const r404 = await close(999_999);
    expect(r404.status).toBe(404);
    expect(r404.body.codice).toBe("non_trovato");
    const r422 = await close(id, { righe: [1, 9] });
    expect(r422.status).toBe(422);
    expect(r422.body).toMatchObject({ codice: "riga_non_trovata", campo: "righe[1]" });
    expect(r422.body.messaggio).toMatch(/numero 9/);
    expect(await snapshot()).toEqual(before);
  });

  test("screens: a responsabile closes, an operatore may not", async () => {
    const created = await upsert([order("K-5", [row(1, "C", 5)])]);
    const id = created.body.righe[0].id;
    const user = (ruolo: "operatore" | "responsabile"): Actor => ({ kind: "utente", id: 1, username: ruolo, ruolo });
    const refused = await caller(t, user("operatore"), "trpc")
      .orders.close({ id: String(id) } as never)
      .catch((e: { cause?: unknown }) => e.cause);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).codice).toBe("permesso_negato");
    const done = await caller(t, user("responsabile"), "trpc").orders.close({ id: String(id) } as never);
    expect(done.ordine.stato).toBe("evaso");
  });

  test("the order screen lists every arrival of a row: quantity, date, lot, author; a cancelled one names its reversal", async () => {
    const created = await upsert([order("DET-1", [row(1, "LOT", 10), row(2, "A", 3)])]);
    const id = created.body.righe[0].id;
    const [lotRow, plainRow] = created.body.righe[0].righe as { riga: number }[];
    const u = await t.prisma.utente.create({ data: { username: "dettaglio-operatore", password_hash: "-", ruolo: "operatore" } });
    const operator: Actor = { kind: "utente", id: u.id, username: u.username, ruolo: "operatore" };
    const byKey = await arrive({ magazzino: m1, ddt: "DET-D", riga: lotRow!.riga, quantita: 4, lotto: "L-DET", scadenza: "2027-05-31" });
    expect(byKey.status).toBe(201);
    const byUser = await caller(t, operator, "trpc").arrivals.register({
      magazzino: m1,
      ddt: "DET-D",
      riga: plainRow!.riga,
      quantita: 2,
    } as never);
    const cancelled = await rest("POST", `/arrivi/${byKey.body.movimento}/annulla`, { key });
    expect(cancelled.status).toBe(200);
    const again = await arrive({ magazzino: m1, ddt: "DET-D", riga: lotRow!.riga, quantita: 3, lotto: "L-DET" });

    const detail = await caller(t, operator, "trpc").orders.detail({ id });
    const { rows: dated } = await t.pool.query("SELECT to_char(data, 'YYYY-MM-DD') AS data FROM movimenti WHERE id = $1", [
      byKey.body.movimento,
    ]);
    const today = dated[0].data as string;
    expect(detail.righe.map((r) => [r.arrivata, r.residua, r.arrivi])).toEqual([
      [
        "3",
        "7",
        [
          {
            movimento: byKey.body.movimento,
            data: today,
            quantita: "4",
            lotto: "L-DET",
            autore: { tipo: "chiave", nome: "test-lettura-scrittura" },
            annullato_da: cancelled.body.movimento,
          },
          {
            movimento: again.body.movimento,
            data: today,
            quantita: "3",
            lotto: "L-DET",
            autore: { tipo: "chiave", nome: "test-lettura-scrittura" },
            annullato_da: null,
          },
        ],
      ],
      [
        "2",
        "1",
        [
          {
            movimento: (byUser as { movimento: number }).movimento,
            data: today,
            quantita: "2",
            lotto: null,
            autore: { tipo: "utente", nome: "dettaglio-operatore" },
            annullato_da: null,
          },
        ],
      ],
    ]);
  });

  test("an arrival and a closing racing on one row never exceed ordinata: arrivata + chiusa = ordinata, the ledger agrees", async () => {
    for (let round = 0; round < 3; round++) {
      const created = await upsert([order(`RACE-${round}`, [row(1, "A", 10)])]);
      const id = created.body.righe[0].id;
      const riga = created.body.righe[0].righe[0].riga;
      const calls = [
        ...Array.from({ length: 12 }, () => arrive({ magazzino: m1, ddt: `RACE-${round}`, riga, quantita: 1 })),
        close(id, { motivo: "gara" }),
      ];
      // The closing goes in the middle of the arrivals.
      const results = await Promise.all([...calls.slice(0, 6), calls[12]!, ...calls.slice(6, 12)]);
      for (const r of results) expect([200, 201, 422]).toContain(r.status);
      const accepted = results.filter((r) => r.status === 201).length;
      for (const r of results.filter((x) => x.status === 422)) expect(["quantita_eccessiva", "riga_evasa"]).toContain(r.body.codice);
      const [stored] = await dbRows(id);
      expect(Number(stored.arrivata)).toBe(accepted);
      expect(Number(stored.arrivata) + Number(stored.chiusa)).toBe(10);
      expect((await orderOf(id)).stato).toBe("evaso");
    }
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});

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
