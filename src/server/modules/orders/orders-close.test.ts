import { describe, expect } from "vitest";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { test } from "../../testing/test";
import { caller, rest } from "../../testing/fixtures";
import { verifyLedger } from "../ledger/verify.service";
import { a, arrive, close, dbRows, key, m1, order, orderOf, row, seedOrdersBeforeAll, snapshot, t, upsert } from "./orders-testing";

seedOrdersBeforeAll();

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
