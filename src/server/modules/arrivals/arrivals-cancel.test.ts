import { describe, expect } from "vitest";
import { countRows, rest, seedOrder, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { a, arrive, cancel, f, key, m1, rowState, search, seedArrivalsBeforeAll, t } from "./arrivals-testing";

seedArrivalsBeforeAll();

describe("POST /arrivi and cancellation", () => {
  test("the state table forwards and backwards: aperto → parziale → evaso → parziale → aperto", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-ST",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.VITE!, quantita: "2", prezzo: "0.2" },
        { articolo: a.LATTE!, quantita: "1", prezzo: "1" },
      ],
    });
    const state = async () => (await rowState(o.righe[0]!)).ordine;
    expect(await state()).toBe("aperto");
    const x = await arrive({ magazzino: m1, ddt: "ST", riga: o.righe[0], quantita: 1 });
    expect(x.body.ordine.stato).toBe("parziale");
    expect((await rowState(o.righe[0]!)).riga).toBe("parziale");
    const y = await arrive({ magazzino: m1, ddt: "ST", riga: o.righe[0] });
    const z = await arrive({ magazzino: m1, ddt: "ST", riga: o.righe[1], lotto: "LST" });
    expect(z.body.ordine.stato).toBe("evaso");
    expect((await rowState(o.righe[0]!)).riga).toBe("evasa");
    expect((await cancel(z.body.movimento)).body.ordine.stato).toBe("parziale");
    expect((await cancel(y.body.movimento)).body.ordine.stato).toBe("parziale");
    const last = await cancel(x.body.movimento);
    expect(last.body.ordine.stato).toBe("aperto");
    expect((await rowState(o.righe[0]!)).riga).toBe("aperta");
    expect(await state()).toBe("aperto");
  });

  test("cancellation: reversing movement, row reopened, lot given back, arrival gone from registrati", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-AN",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.LATTE!, quantita: "6", prezzo: "1" }],
    });
    const before = await stockOf(t, a.LATTE!, m1);
    const r = await arrive({ magazzino: m1, ddt: "AN", riga: o.righe[0], quantita: 4, lotto: "LAN", scadenza: "2027-06-01" });
    const c = await rest("POST", `/arrivi/${r.body.movimento}/annulla`, { key });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      annullato: r.body.movimento,
      movimento: expect.any(Number),
      riga: { riga: o.righe[0], arrivata: "0", residua: "6" },
      ordine: { id: o.id, stato: "aperto" },
    });
    const mv = await rest("GET", `/movimenti?dopo=${c.body.movimento - 1}&limite=1`, { key });
    expect(mv.body.movimenti[0]).toMatchObject({
      origine: "annullamento",
      annulla: r.body.movimento,
      quantita: "-4",
      lotto: "LAN",
      riferimento: { tipo: "riga_ordine", id: o.righe[0] },
    });
    expect((await stockOf(t, a.LATTE!, m1)).ledger).toBe(before.ledger);
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti.find((l: any) => l.lotto === "LAN")).toBeUndefined();
    const found = await search({ ordine: o.id });
    expect(found.body.ordini[0].righe[0].registrati).toEqual([]);
  });

  test("cancellation refusals: 404, arrivo_gia_annullato, lotto_consumato; no body and {} accepted, other bodies refused", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-AR",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.LATTE!, quantita: "6", prezzo: "1" },
        { articolo: a.VITE!, quantita: "6", prezzo: "1" },
      ],
    });
    const lot = await arrive({ magazzino: m1, ddt: "AR", riga: o.righe[0], quantita: 4, lotto: "LAR" });
    const plain = await arrive({ magazzino: m1, ddt: "AR", riga: o.righe[1], quantita: 2 });
    const load = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: m1, righe: [{ codice: "VITE", quantita: 1 }] },
    });
    expect((await rest("POST", `/arrivi/${load.body.righe[0].movimento}/annulla`, { key })).status).toBe(404);
    expect((await rest("POST", "/arrivi/99999999/annulla", { key })).body.codice).toBe("non_trovato");
    expect((await rest("POST", `/arrivi/abc/annulla`, { key })).status).toBe(422);
    expect((await rest("POST", `/arrivi/${plain.body.movimento}/annulla`, { key, body: { motivo: "x" } })).body.codice).toBe(
      "richiesta_non_valida",
    );
    expect((await rest("POST", `/arrivi/${plain.body.movimento}/annulla`, { key, body: {} })).status).toBe(200);
    const twice = await rest("POST", `/arrivi/${plain.body.movimento}/annulla`, { key });
    expect(twice.status).toBe(409);
    expect(twice.body.codice).toBe("arrivo_gia_annullato");
    await rest("POST", "/movimenti", {
      key,
      body: { natura: "scarico", magazzino: m1, righe: [{ codice: "LATTE", quantita: 3, lotto: "LAR" }] },
    });
    const before = await countRows(t, "movimenti");
    const consumed = await rest("POST", `/arrivi/${lot.body.movimento}/annulla`, { key });
    expect(consumed.status).toBe(409);
    expect(consumed.body.codice).toBe("lotto_consumato");
    expect(consumed.body.messaggio).toContain("LAR");
    expect(await countRows(t, "movimenti")).toBe(before);
    expect((await rowState(o.righe[0]!)).arrivata).toBe(4);
  });
});
