import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { rest, seedArticle, seedKey, stockOf } from "../../testing/fixtures";

/**
 * POST /magazzini's locations settings (docs/api.md section 11): `ubicazione_ricevimento` and `gestione_ubicazioni`,
 * every refusal with nothing of its row written, switching a warehouse with stock on (its stock placed in the
 * receiving location by one operation) and off, GET /magazzini and magazzino.modificato showing both fields.
 */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db }) => {
  t = db;
  key = (await seedKey(t.prisma)).chiave;
});

const post = (path: string, body: unknown) => rest("POST", path, { key, body });
const magazzini = (rows: unknown[]) => post("/magazzini", { magazzini: rows });
const outcome = (r: { body: { righe: { esito: string; errore?: { codice: string } }[] } }) =>
  r.body.righe.map((x) => (x.esito === "rifiutato" ? x.errore!.codice : x.esito));

async function warehouse(codice: string) {
  const { rows } = await t.pool.query(`SELECT xmin::text AS xmin, * FROM magazzini WHERE codice = $1`, [codice]);
  return rows[0];
}

async function byLocation(magazzino: number) {
  const { rows } = await t.pool.query(
    `SELECT u.codice AS ubicazione, a.codice AS articolo, l.codice AS lotto, g.quantita::float AS quantita
       FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id JOIN articoli a ON a.id = g.articolo_id
       LEFT JOIN lotti l ON l.id = g.lotto_id
      WHERE g.magazzino_id = $1 AND g.quantita > 0 ORDER BY 1, 2, 3`,
    [magazzino],
  );
  return rows;
}

describe("POST /magazzini: locations settings", () => {
  test("refusals: each with nothing of its row written", async () => {
    expect(outcome(await magazzini([{ codice: "WL", nome: "Con ubicazioni" }]))).toEqual(["creato"]);
    await post("/ubicazioni", {
      ubicazioni: [
        { magazzino: "WL", codice: "RIC", tipo: "ricevimento" },
        { magazzino: "WL", codice: "A-01", tipo: "stoccaggio" },
        { magazzino: "WL", codice: "RIC-OFF", tipo: "ricevimento", attiva: false },
      ],
    });
    const before = await warehouse("WL");
    const r = await magazzini([
      { codice: "WL", nome: "Nuovo nome", gestione_ubicazioni: true },
      { codice: "NUOVO", nome: "Nuovo", ubicazione_ricevimento: "RIC" },
      { codice: "NUOVO-2", nome: "Nuovo 2", gestione_ubicazioni: true },
    ]);
    expect(outcome(r)).toEqual(["ubicazione_ricevimento_mancante", "ubicazione_non_trovata", "ubicazione_ricevimento_mancante"]);
    for (const [row, code] of [
      [{ codice: "WL", nome: "Nuovo nome", ubicazione_ricevimento: "NESSUNA" }, "ubicazione_non_trovata"],
      [{ codice: "WL", nome: "Nuovo nome", ubicazione_ricevimento: "RIC-OFF" }, "ubicazione_non_trovata"],
      [{ codice: "WL", nome: "Nuovo nome", ubicazione_ricevimento: "A-01" }, "campo_non_valido"],
      [{ codice: "WL", nome: "Nuovo nome", gestione_ubicazioni: "sì" }, "campo_non_valido"],
    ] as const) {
      expect(outcome(await magazzini([row]))).toEqual([code]);
    }
    expect((await warehouse("WL")).xmin).toBe(before.xmin);
    expect(await warehouse("NUOVO")).toBeUndefined();
  });

  test("giacenza_negativa: switching on a warehouse with a balance below zero is refused, nothing of the row written", async () => {
    expect(outcome(await magazzini([{ codice: "WN", nome: "Negativo" }]))).toEqual(["creato"]);
    const wn = await warehouse("WN");
    await post("/ubicazioni", { ubicazioni: [{ magazzino: "WN", codice: "RIC", tipo: "ricevimento" }] });
    const art = await seedArticle(t.prisma, "WN-ART");
    const out = await post("/movimenti", { natura: "scarico", magazzino: wn.id, righe: [{ codice: art.codice, quantita: 2 }] });
    expect(out.body.rifiutate).toBe(0);
    const before = await warehouse("WN");
    const r = await magazzini([{ codice: "WN", nome: "Rinominato", ubicazione_ricevimento: "RIC", gestione_ubicazioni: true }]);
    expect(outcome(r)).toEqual(["giacenza_negativa"]);
    expect(r.body.righe[0].errore.messaggio).toContain("WN-ART");
    const after = await warehouse("WN");
    expect(after).toMatchObject({ nome: before.nome, gestione_ubicazioni: false, ubicazione_ricevimento_id: null, xmin: before.xmin });
    expect(await byLocation(wn.id)).toEqual([]);
  });

  test("switching on places the stock in the receiving location by one operation; off is refused while stock lies in two locations, then done", async () => {
    const wl = await warehouse("WL");
    const vite = await seedArticle(t.prisma, "WL-VITE");
    const latte = await seedArticle(t.prisma, "WL-LATTE", { lotti: true });
    const carico = await post("/movimenti", {
      natura: "carico",
      magazzino: wl.id,
      righe: [
        { codice: vite.codice, quantita: 10 },
        { codice: latte.codice, quantita: 3, lotto: "L1", scadenza: "2027-01-31" },
        { codice: latte.codice, quantita: 2, lotto: "L2", scadenza: "2027-02-28" },
      ],
    });
    expect(carico.body.rifiutate).toBe(0);
    const from = (await rest("GET", "/cursori", { key })).body.eventi;

    const on = await magazzini([{ codice: "WL", ubicazione_ricevimento: "RIC", gestione_ubicazioni: true }]);
    expect(outcome(on)).toEqual(["aggiornato"]);
    expect(await warehouse("WL")).toMatchObject({ gestione_ubicazioni: true, ubicazione_ricevimento_id: expect.any(Number) });
    expect(await byLocation(wl.id)).toEqual([
      { ubicazione: "RIC", articolo: "WL-LATTE", lotto: "L1", quantita: 3 },
      { ubicazione: "RIC", articolo: "WL-LATTE", lotto: "L2", quantita: 2 },
      { ubicazione: "RIC", articolo: "WL-VITE", lotto: null, quantita: 10 },
    ]);
    // The balance did not move; the ledger explains it.
    expect(await stockOf(t, vite.id, wl.id)).toEqual({ ledger: 10, balance: 10 });
    const ops = await t.pool.query(
      `SELECT o.origine, m.causale, count(*)::int AS n FROM movimenti m JOIN operazioni o ON o.id = m.operazione_id
        WHERE m.magazzino_id = $1 AND m.causale = 'Attivazione ubicazioni' GROUP BY 1, 2`,
      [wl.id],
    );
    expect(ops.rows).toEqual([{ origine: "correzione", causale: "Attivazione ubicazioni", n: 6 }]);

    // Read back: the list and the event.
    const listed = (await rest("GET", "/magazzini?cerca=WL", { key })).body.magazzini;
    expect(listed).toEqual([expect.objectContaining({ codice: "WL", gestione_ubicazioni: true, ubicazione_ricevimento: "RIC" })]);
    const events = (await rest("GET", `/eventi?dopo=${from}&tipo=magazzino.modificato`, { key })).body.eventi;
    expect(events.map((e: { dati: unknown }) => e.dati)).toEqual(listed);
    // A repeat changes nothing.
    expect(outcome(await magazzini([{ codice: "WL", ubicazione_ricevimento: "RIC", gestione_ubicazioni: true }]))).toEqual(["invariato"]);
    // Clearing the receiving location of a warehouse that manages locations.
    expect(outcome(await magazzini([{ codice: "WL", ubicazione_ricevimento: null }]))).toEqual(["ubicazione_ricevimento_mancante"]);

    // Goods in a second location (as a putaway would leave them): switching off is refused.
    const a01 = (await t.pool.query(`SELECT id FROM ubicazioni WHERE magazzino_id = $1 AND codice = 'A-01'`, [wl.id])).rows[0].id;
    await t.pool.query(`UPDATE giacenze_ubicazioni SET quantita = quantita - 1 WHERE magazzino_id = $1 AND articolo_id = $2`, [
      wl.id,
      vite.id,
    ]);
    await t.pool.query(`INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, quantita) VALUES ($1, $2, $3, 1)`, [
      vite.id,
      wl.id,
      a01,
    ]);
    const before = await warehouse("WL");
    const refused = await magazzini([{ codice: "WL", nome: "Altro nome", gestione_ubicazioni: false }]);
    expect(outcome(refused)).toEqual(["ubicazioni_in_uso"]);
    expect((await warehouse("WL")).xmin).toBe(before.xmin);
    await t.pool.query(`DELETE FROM giacenze_ubicazioni WHERE ubicazione_id = $1`, [a01]);
    await t.pool.query(`UPDATE giacenze_ubicazioni SET quantita = quantita + 1 WHERE magazzino_id = $1 AND articolo_id = $2`, [
      wl.id,
      vite.id,
    ]);

    const off = await magazzini([{ codice: "WL", gestione_ubicazioni: false }]);
    expect(outcome(off)).toEqual(["aggiornato"]);
    expect(await warehouse("WL")).toMatchObject({ gestione_ubicazioni: false });
    expect(await byLocation(wl.id)).toEqual([]);
    expect(await stockOf(t, latte.id, wl.id)).toEqual({ ledger: 5, balance: 5 });
  });
});
