import { beforeEach, describe, expect } from "vitest";
import { caller, countRows, rest, seedKey, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { actor, ids, key, m1, m2, post, seedMovementsBeforeAll, t } from "./movements-testing";

/**
 * Lots on POST /movimenti, and every refusal of the endpoint. In one file: the refusals read the lots the lot tests
 * write (L2 in M1).
 */

seedMovementsBeforeAll();

describe("POST /movimenti", () => {
  test("lots: created with expiry on load, checked on unload and transfer, listed by expiry", async () => {
    await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "LATTE", quantita: 10, lotto: "L2", scadenza: "2027-03-01" },
        { codice: "LATTE", quantita: 5, lotto: "L1", scadenza: "2027-01-15" },
        { codice: "LATTE", quantita: 1, lotto: "L0" },
      ],
    });
    const unload = await post({
      natura: "scarico",
      magazzino: m1,
      righe: [
        { codice: "LATTE", quantita: 4, lotto: "L1" },
        { codice: "LATTE", quantita: 2, lotto: "L1" },
        { codice: "LATTE", quantita: 1, lotto: "NOPE" },
      ],
    });
    expect(unload.body.righe.map((r: any) => r.esito)).toEqual(["scritta", "rifiutata", "rifiutata"]);
    expect(unload.body.righe[1].errore.codice).toBe("lotto_insufficiente");
    expect(unload.body.righe[1].errore.messaggio).toContain("1 disponibili");
    expect(unload.body.righe[2].errore.codice).toBe("lotto_non_trovato");
    const transfer = await post({
      natura: "trasferimento",
      magazzino: m2,
      magazzino_origine: m1,
      righe: [{ codice: "LATTE", quantita: 3, lotto: "L2" }],
    });
    expect(transfer.body.scritte).toBe(1);
    const lots1 = await rest("GET", `/articoli/${ids.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots1.body).toEqual({
      articolo: { id: ids.LATTE, codice: "LATTE" },
      magazzino: m1,
      lotti: [
        { lotto: "L1", scadenza: "2027-01-15", residua: "1" },
        { lotto: "L2", scadenza: "2027-03-01", residua: "7" },
        { lotto: "L0", scadenza: null, residua: "1" },
      ],
    });
    const lots2 = await rest("GET", `/articoli/${ids.LATTE}/lotti?magazzino=${m2}`, { key });
    expect(lots2.body.lotti).toEqual([{ lotto: "L2", scadenza: "2027-03-01", residua: "3" }]);
    const s1 = await stockOf(t, ids.LATTE!, m1);
    expect(s1).toEqual({ ledger: 9, balance: 9 });
  });

  test("a load with another expiry than the lot's is scadenza_diversa naming both dates; same, none, or a lot without: accepted", async () => {
    const lots = async (m: number) =>
      (await rest("GET", `/articoli/${ids.LATTE}/lotti?magazzino=${m}`, { key })).body.lotti.filter((l: any) => l.lotto.startsWith("SD"));
    await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "LATTE", quantita: 5, lotto: "SD1", scadenza: "2027-04-01" },
        { codice: "LATTE", quantita: 5, lotto: "SD0" },
      ],
    });
    const before = await countRows(t, "movimenti");
    const r = await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "LATTE", quantita: 1, lotto: "SD1", scadenza: "2027-05-01" },
        { codice: "LATTE", quantita: 1, lotto: "SD1", scadenza: "2027-04-01" },
        { codice: "LATTE", quantita: 1, lotto: "SD1" },
        { codice: "LATTE", quantita: 1, lotto: "SD0", scadenza: "2027-06-01" },
        { codice: "LATTE", quantita: 1, lotto: "SD0", scadenza: "2027-07-01" },
      ],
    });
    expect(r.body.righe.map((x: any) => [x.esito, x.errore?.codice])).toEqual([
      ["rifiutata", "scadenza_diversa"],
      ["scritta", undefined],
      ["scritta", undefined],
      ["scritta", undefined],
      ["rifiutata", "scadenza_diversa"],
    ]);
    expect(r.body.righe[0].errore.messaggio).toContain("2027-04-01");
    expect(r.body.righe[0].errore.messaggio).toContain("2027-05-01");
    expect(await countRows(t, "movimenti")).toBe(before + 3);
    expect(await lots(m1)).toEqual([
      { lotto: "SD1", scadenza: "2027-04-01", residua: "7" },
      { lotto: "SD0", scadenza: "2027-06-01", residua: "6" },
    ]);
    // A transfer declares no expiry: the source's travels; a destination lot with its own keeps it.
    await post({ natura: "carico", magazzino: m2, righe: [{ codice: "LATTE", quantita: 1, lotto: "SD1", scadenza: "2027-09-09" }] });
    const moved = await post({
      natura: "trasferimento",
      magazzino: m2,
      magazzino_origine: m1,
      righe: [
        { codice: "LATTE", quantita: 2, lotto: "SD1" },
        { codice: "LATTE", quantita: 2, lotto: "SD0" },
      ],
    });
    expect(moved.body.scritte).toBe(2);
    expect(await lots(m2)).toEqual([
      { lotto: "SD0", scadenza: "2027-06-01", residua: "2" },
      { lotto: "SD1", scadenza: "2027-09-09", residua: "3" },
    ]);
  });
});

describe("refusals: every row code of this endpoint, nothing written by a refused row", () => {
  let movementsBefore: number;
  let lotsBefore: number;
  beforeEach(async () => {
    movementsBefore = await countRows(t, "movimenti");
    lotsBefore = await countRows(t, "lotti");
  });

  test.each([
    ["articolo_non_trovato", { natura: "carico", righe: [{ codice: "NON-ESISTE", quantita: 1 }] }],
    ["articolo_non_trovato", { natura: "carico", righe: [{ ean: "0000000000000", quantita: 1 }] }],
    ["articolo_con_varianti", { natura: "carico", righe: [{ codice: "GUANTO", quantita: 1 }] }],
    ["articolo_ambiguo", { natura: "carico", righe: [{ codice: "VITE-M6", ean: "8001234567880", quantita: 1 }] }],
    ["quantita_non_valida", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 0 }] }],
    ["quantita_non_valida", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: -2 }] }],
    ["quantita_non_valida", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1.0001 }] }],
    ["quantita_non_valida", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1e15 }] }],
    ["prezzo_non_valido", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1, prezzo: "1,50" }] }],
    ["prezzo_non_valido", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1, prezzo: "1.23456" }] }],
    ["prezzo_non_valido", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1, prezzo: "-1" }] }],
    ["prezzo_non_valido", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1, prezzo: "1e3" }] }],
    ["lotto_obbligatorio", { natura: "carico", righe: [{ codice: "LATTE", quantita: 1 }] }],
    ["lotto_obbligatorio", { natura: "scarico", righe: [{ codice: "LATTE", quantita: 1 }] }],
    ["lotto_non_previsto", { natura: "carico", righe: [{ codice: "VITE-M6", quantita: 1, lotto: "X" }] }],
    ["lotto_non_trovato", { natura: "scarico", righe: [{ codice: "LATTE", quantita: 1, lotto: "ZZ" }] }],
    ["lotto_insufficiente", { natura: "scarico", righe: [{ codice: "LATTE", quantita: 1000, lotto: "L2" }] }],
  ])("%s", async (codice, partial) => {
    const r = await post({ magazzino: m1, ...partial });
    expect(r.status).toBe(200);
    expect(r.body.operazione).toBeNull();
    expect(r.body).toMatchObject({ scritte: 0, rifiutate: 1 });
    expect(r.body.righe[0]).toMatchObject({ indice: 0, esito: "rifiutata", errore: { codice } });
    expect(r.body.righe[0].errore.messaggio.length).toBeGreaterThan(15);
    expect(await countRows(t, "movimenti")).toBe(movementsBefore);
    expect(await countRows(t, "lotti")).toBe(lotsBefore);
  });

  test("a refused row does not block the others; indice is the position in the request", async () => {
    const r = await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "NON-ESISTE", quantita: 1 },
        { codice: "VITE-M6", quantita: 1 },
        { codice: "GUANTO", quantita: 1 },
        { codice: "GUANTO-L", quantita: 1 },
      ],
    });
    expect(r.body.righe.map((x: any) => [x.indice, x.esito])).toEqual([
      [0, "rifiutata"],
      [1, "scritta"],
      [2, "rifiutata"],
      [3, "scritta"],
    ]);
    expect(r.body.righe[2].errore.messaggio).toContain("GUANTO-M");
    expect(await countRows(t, "movimenti")).toBe(movementsBefore + 2);
  });

  test.each([
    ["magazzino_non_trovato", { natura: "carico", magazzino: 999, righe: [{ codice: "VITE-M6", quantita: 1 }] }, "magazzino"],
    [
      "magazzino_non_trovato",
      { natura: "trasferimento", magazzino: 1, magazzino_origine: 999, righe: [{ codice: "VITE-M6", quantita: 1 }] },
      "magazzino_origine",
    ],
    [
      "operazione_non_trovata",
      { natura: "carico", magazzino: 1, operazione: 99999, righe: [{ codice: "VITE-M6", quantita: 1 }] },
      "operazione",
    ],
    [
      "troppe_righe",
      { natura: "carico", magazzino: 1, righe: Array.from({ length: 501 }, () => ({ codice: "VITE-M6", quantita: 1 })) },
      "righe",
    ],
  ])("whole request refused: %s", async (codice, body, campo) => {
    const r = await post(body);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice, campo });
    expect(await countRows(t, "movimenti")).toBe(movementsBefore);
    expect(await countRows(t, "operazioni")).toBeGreaterThan(0);
  });

  test("a key appends only to its own operations; a user only to theirs: another author's is operazione_non_trovata", async () => {
    const mine = await post({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    const other = await seedKey(t.prisma);
    const r = await rest("POST", "/movimenti", {
      key: other.chiave,
      body: { natura: "carico", magazzino: m1, operazione: mine.body.operazione, righe: [{ codice: "VITE-M6", quantita: 1 }] },
    });
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("operazione_non_trovata");
    const again = await post({
      natura: "carico",
      magazzino: m1,
      operazione: mine.body.operazione,
      righe: [{ codice: "VITE-M6", quantita: 1 }],
    });
    expect(again.status).toBe(200);
    expect(again.body.operazione).toBe(mine.body.operazione);

    const [anna, bruno] = await Promise.all(
      ["anna-op", "bruno-op"].map(async (username) => {
        const u = await t.prisma.utente.create({ data: { username, password_hash: "-", ruolo: "responsabile" } });
        return { kind: "utente" as const, id: u.id, username, ruolo: "responsabile" as const };
      }),
    );
    const hers = await caller(t, anna!, "trpc").movements.write({
      natura: "carico",
      magazzino: m1,
      righe: [{ codice: "VITE-M6", quantita: 1 }],
    });
    const append = (who: Actor) =>
      caller(t, who, "trpc")
        .movements.write({ natura: "carico", magazzino: m1, operazione: hers.operazione!, righe: [{ codice: "VITE-M6", quantita: 1 }] })
        .then(
          (x) => x.operazione,
          (e: { cause?: { codice?: string } }) => e.cause?.codice,
        );
    expect(await append(bruno!)).toBe("operazione_non_trovata");
    expect(await append(anna!)).toBe(hers.operazione);
  });

  test("GET /movimenti names the author: the key's name or the user's username", async () => {
    const byKey = await post({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    const u = await t.prisma.utente.create({ data: { username: "carla-mag", password_hash: "-", ruolo: "responsabile" } });
    const byUser = await caller(t, { kind: "utente", id: u.id, username: "carla-mag", ruolo: "responsabile" }, "trpc").movements.write({
      natura: "carico",
      magazzino: m1,
      righe: [{ codice: "VITE-M6", quantita: 1 }],
    });
    const k = await rest("GET", `/movimenti?operazione=${byKey.body.operazione}`, { key });
    expect(k.body.movimenti[0].autore).toEqual({ tipo: "chiave", id: actor.id, nome: (actor as { nome: string }).nome });
    const us = await rest("GET", `/movimenti?operazione=${byUser.operazione}`, { key });
    expect(us.body.movimenti[0].autore).toEqual({ tipo: "utente", id: u.id, nome: "carla-mag" });
  });

  test("an operation written by another channel cannot be appended to through the API", async () => {
    const ui = await caller(t, actor, "trpc").movements.write({
      natura: "carico",
      magazzino: m1,
      righe: [{ codice: "VITE-M6", quantita: 1 }],
    });
    const r = await post({ natura: "carico", magazzino: m1, operazione: ui.operazione, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("operazione_non_trovata");
  });

  test.each([
    ["natura sconosciuta", { natura: "regalo", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: 1 }] }, "natura"],
    ["magazzino come stringa", { natura: "carico", magazzino: "1", righe: [{ codice: "VITE-M6", quantita: 1 }] }, "magazzino"],
    ["magazzino decimale", { natura: "carico", magazzino: 1.5, righe: [{ codice: "VITE-M6", quantita: 1 }] }, "magazzino"],
    ["campo sconosciuto", { natura: "carico", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: 1 }], note: "x" }, "note"],
    ["righe vuote", { natura: "carico", magazzino: 1, righe: [] }, "righe"],
    [
      "trasferimento senza origine",
      { natura: "trasferimento", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: 1 }] },
      "magazzino_origine",
    ],
    [
      "trasferimento sullo stesso magazzino",
      { natura: "trasferimento", magazzino: 1, magazzino_origine: 1, righe: [{ codice: "VITE-M6", quantita: 1 }] },
      "magazzino_origine",
    ],
    [
      "origine su un carico",
      { natura: "carico", magazzino: 1, magazzino_origine: 2, righe: [{ codice: "VITE-M6", quantita: 1 }] },
      "magazzino_origine",
    ],
  ])("richiesta_non_valida: %s", async (_name, body, campo) => {
    const r = await post(body);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("richiesta_non_valida");
    const fields = r.body.campo ? [r.body.campo] : r.body.dettagli.map((d: any) => d.campo);
    expect(fields).toContain(campo);
    expect(await countRows(t, "movimenti")).toBe(movementsBefore);
  });

  // A fault inside a row is that row's (docs/api.md section 2): the call answers 200 with the row refused.
  test.each([
    [
      "quantita come stringa (nessuna coercizione)",
      { natura: "carico", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: "12.5" }] },
      "quantita",
    ],
    ["quantita null", { natura: "carico", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: null }] }, "quantita"],
    ["prezzo numerico", { natura: "carico", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: 1, prezzo: 1.5 }] }, "prezzo"],
    ["campo sconosciuto in riga", { natura: "carico", magazzino: 1, righe: [{ codice: "VITE-M6", quantita: 1, sconto: 1 }] }, "sconto"],
    ["riga senza articolo", { natura: "carico", magazzino: 1, righe: [{ quantita: 1 }] }, "codice"],
    [
      "scadenza su uno scarico",
      { natura: "scarico", magazzino: 1, righe: [{ codice: "LATTE", lotto: "L2", quantita: 1, scadenza: "2027-01-01" }] },
      "scadenza",
    ],
    [
      "scadenza impossibile",
      { natura: "carico", magazzino: 1, righe: [{ codice: "LATTE", lotto: "L9", quantita: 1, scadenza: "2027-02-30" }] },
      "scadenza",
    ],
  ])("campo_non_valido: %s", async (_name, body, campo) => {
    const r = await post(body);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 1 });
    expect(r.body.righe[0]).toMatchObject({ indice: 0, esito: "rifiutata", errore: { codice: "campo_non_valido", campo } });
    expect(await countRows(t, "movimenti")).toBe(movementsBefore);
  });
});
