import { describe, expect } from "vitest";
import { poolOf } from "../../db/client";
import { caller, countRows, rest, seedArticle, seedKey, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { simpleQueriesIn, statementsIn, writesDuring } from "../../testing/wire";
import type { Actor } from "../auth/actor";
import { actor, ids, key, m1, m2, post, seedMovementsBeforeAll, t } from "./movements-testing";

seedMovementsBeforeAll();

test("a movement write is two round trips: BEGIN with the article lookup, then the ledger append (and the uncovering) with its COMMIT", async () => {
  const { answer: r, writes } = await writesDuring(poolOf(t.prisma)!, () =>
    post({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1, prezzo: "0.1" }] }),
  );
  expect(r.body.scritte).toBe(1);
  // The transaction's writes (tests authenticate the key on the database, with no cache, before them).
  const unit = writes.slice(-2);
  expect(simpleQueriesIn(unit[0]!)).toEqual(["BEGIN"]);
  expect(statementsIn(unit[0]!)).toBe(1);
  // The append, then the uncovering of the reservations on the stock it moved (ledger/uncover.ts: an index probe
  // where nothing is held), in the same write as the COMMIT.
  expect(statementsIn(unit[1]!)).toBe(2);
  expect(simpleQueriesIn(unit[1]!)).toEqual(["COMMIT"]);
});

describe("POST /movimenti", () => {
  test("a load writes one movement, moves the balance, and answers per row with ids", async () => {
    const before = await stockOf(t, ids.VITE!, m1);
    const r = await post({ natura: "carico", magazzino: m1, causale: "Reso", righe: [{ codice: "VITE-M6", quantita: 10, prezzo: "0.1" }] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scritte: 1, rifiutate: 0, righe: [{ indice: 0, esito: "scritta" }] });
    expect(r.body.operazione).toBe(r.body.righe[0].operazione);
    const after = await stockOf(t, ids.VITE!, m1);
    expect(after.ledger - before.ledger).toBe(10);
    expect(after.balance).toBe(after.ledger);
    const list = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(list.body.movimenti).toEqual([
      expect.objectContaining({
        id: r.body.righe[0].movimento,
        origine: "api",
        natura: "carico",
        causale: "Reso",
        magazzino: m1,
        articolo: { id: ids.VITE, codice: "VITE-M6" },
        quantita: "10",
        prezzo: "0.1",
        lotto: null,
        riferimento: null,
        annulla: null,
      }),
    ]);
    expect(list.body.movimenti[0].registrato_il).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
  });

  test("an unload is negative; the article found by EAN; non-lot stock may go negative", async () => {
    const before = await stockOf(t, ids.VITE!, m2);
    const r = await post({ natura: "scarico", magazzino: m2, righe: [{ ean: "8001234567897", quantita: 3.5 }] });
    expect(r.body.righe[0].esito).toBe("scritta");
    const after = await stockOf(t, ids.VITE!, m2);
    expect(after.ledger - before.ledger).toBe(-3.5);
    expect(after.balance).toBe(after.ledger);
  });

  test("a transfer writes two movements in one operation, negative in the origin", async () => {
    const r = await post({ natura: "trasferimento", magazzino: m2, magazzino_origine: m1, righe: [{ codice: "VITE-M6", quantita: 2 }] });
    const row = r.body.righe[0];
    expect(row).toMatchObject({ esito: "scritta", operazione: r.body.operazione });
    expect(row.movimento_origine).toBeLessThan(row.movimento);
    const list = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(list.body.movimenti.map((m: any) => [m.id, m.magazzino, m.quantita, m.natura])).toEqual([
      [row.movimento_origine, m1, "-2", "trasferimento"],
      [row.movimento, m2, "2", "trasferimento"],
    ]);
  });

  test("without prezzo the suggested price is the standard cost, else null", async () => {
    const r = await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "VITE-M6", quantita: 1 },
        { codice: "NOCOST", quantita: 1 },
      ],
    });
    const list = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(list.body.movimenti.map((m: any) => m.prezzo)).toEqual(["0.12", null]);
  });

  test("without prezzo the last purchase-order price wins over the standard cost", async () => {
    const sup = await t.prisma.fornitore.create({ data: { codice: "F-SUG", nome: "F" } });
    await t.prisma.ordineAcquisto.create({
      data: {
        numero: "PO-SUG",
        fornitore_id: sup.id,
        magazzino_id: m1,
        data: new Date("2026-11-01"),
        righe: { create: [{ posizione: 1, articolo_id: ids.VITE!, ordinata: "5", prezzo: "0.095" }] },
      },
    });
    const r = await post({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    const list = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(list.body.movimenti[0].prezzo).toBe("0.095");
    await t.prisma.articolo.update({ where: { id: ids.VITE! }, data: { ultimo_prezzo_arrivo: "0.11" } });
    const r2 = await post({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    const list2 = await rest("GET", `/movimenti?operazione=${r2.body.operazione}`, { key });
    expect(list2.body.movimenti[0].prezzo).toBe("0.11");
  });

  test("appending to an operation keeps its number", async () => {
    const first = await post({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    const second = await post({
      natura: "carico",
      magazzino: m1,
      operazione: first.body.operazione,
      righe: [{ codice: "VITE-M6", quantita: 2 }],
    });
    expect(second.body.operazione).toBe(first.body.operazione);
    const list = await rest("GET", `/movimenti?operazione=${first.body.operazione}`, { key });
    expect(list.body.movimenti).toHaveLength(2);
  });

  test("decimals float arithmetic gets wrong stay exact", async () => {
    const a = await seedArticle(t.prisma, "DEC");
    await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "DEC", quantita: 0.1 },
        { codice: "DEC", quantita: 0.2 },
      ],
    });
    await post({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "DEC", quantita: 999999999.999 },
        { codice: "DEC", quantita: 0.001 },
      ],
    });
    const { rows } = await t.pool.query("SELECT quantita::text AS q FROM giacenze WHERE articolo_id = $1", [a.id]);
    expect(rows[0].q).toBe("1000000000.300");
    const list = await rest("GET", `/movimenti?articolo=${a.id}`, { key });
    expect(list.body.movimenti.map((m: any) => m.quantita)).toEqual(["0.1", "0.2", "999999999.999", "0.001"]);
  });

  test("the screens write with origine 'schermo' through the same procedure", async () => {
    const ui = caller(t, actor, "trpc");
    const r = await ui.movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] });
    // List parameters are the query string: strings on every channel.
    const list = await caller(t, actor).movements.list({ operazione: String(r.operazione) });
    expect(list.movimenti[0]!.origine).toBe("schermo");
  });
});

test("createCaller goes through the same permission check: a lettura key cannot write", async () => {
  const k = await seedKey(t.prisma, ["lettura"]);
  const readOnly: Actor = { kind: "chiave", id: k.id, nome: k.nome, permessi: k.permessi };
  const before = await countRows(t, "movimenti");
  await expect(
    caller(t, readOnly).movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE-M6", quantita: 1 }] }),
  ).rejects.toMatchObject({
    cause: { codice: "permesso_negato" },
  });
  expect(await countRows(t, "movimenti")).toBe(before);
  const list = await caller(t, readOnly).movements.list({ limite: "1" });
  expect(list.movimenti).toHaveLength(1);
});
