import { describe, expect, vi } from "vitest";
import { closePrisma, createPrisma, getDb, setDb } from "../db/client";
import { rest, seedKey } from "../testing/fixtures";
import { test } from "../testing/test";
import { expectErrorBody, expectNothingWritten, load, reader, seedRestContractBeforeAll, t, writer } from "./rest-contract-testing";

/** docs/api.md sections 1–3: list paging, the rate limit (429), errore_interno (500), servizio_non_disponibile (503), X-Request-Id. */

seedRestContractBeforeAll();

describe("lists", () => {
  test("an empty page keeps the cursor that was sent", async () => {
    // An id issued to a write that rolled back: a cursor the service may have given, past every row.
    const last = Number((await t.pool.query("SELECT nextval('clienti_id_seq') AS n")).rows[0].n);
    const r = await rest("GET", `/clienti?dopo=${last}`, { key: reader });
    expect(r.body).toEqual({ clienti: [], altri: false, cursore: last });
  });

  test("clients page by id with altri and cursore; da/a filter on the creation date", async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 5; i++)
      await t.prisma.cliente.create({ data: { codice: `C${i}`, ragione_sociale: `Cliente ${i}`, data: new Date(`${today}T00:00:00Z`) } });
    const p1 = await rest("GET", "/clienti?limite=2", { key: reader });
    expect(p1.body.clienti).toHaveLength(2);
    expect(p1.body.altri).toBe(true);
    expect(p1.body.cursore).toBe(p1.body.clienti[1].id);
    const p2 = await rest("GET", `/clienti?limite=2&dopo=${p1.body.cursore}`, { key: reader });
    const p3 = await rest("GET", `/clienti?limite=2&dopo=${p2.body.cursore}`, { key: reader });
    expect([...p1.body.clienti, ...p2.body.clienti, ...p3.body.clienti].map((c: any) => c.codice)).toEqual(["C0", "C1", "C2", "C3", "C4"]);
    expect(p3.body.altri).toBe(false);
    expect(Object.keys(p1.body.clienti[0]).sort()).toEqual(
      [
        "id",
        "codice",
        "ragione_sociale",
        "partita_iva",
        "codice_fiscale",
        "email",
        "telefono",
        "indirizzo",
        "cap",
        "citta",
        "provincia",
        "nazione",
        "attivo",
        "versione",
        "creato_il",
      ].sort(),
    );
    expect((await rest("GET", "/clienti?a=2000-01-01", { key: reader })).body.clienti).toEqual([]);
    expect((await rest("GET", `/clienti?da=${today}&a=${today}`, { key: reader })).body.clienti).toHaveLength(5);
  });
});

describe("429, 500, 503", () => {
  test("troppe_richieste with Retry-After once the burst is spent; a refusal spends nothing", async () => {
    const k = await seedKey(t.prisma, ["lettura"], { perSecond: 1, burst: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await rest("GET", "/clienti", { key: k.chiave })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const r = await rest("GET", "/clienti", { key: k.chiave });
    expectErrorBody(r, 429, "troppe_richieste");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  test("the rate limit holds across instances (two clients, one database)", async () => {
    const k = await seedKey(t.prisma, ["lettura"], { perSecond: 0.001, burst: 10 });
    const other = createPrisma(t.url, 5);
    const mine = getDb();
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          return rest("GET", "/clienti", { key: k.chiave, headers: { "x-i": String(i) } });
        }),
      );
      setDb(other);
      const more = await Promise.all(Array.from({ length: 5 }, () => rest("GET", "/clienti", { key: k.chiave })));
      const ok = [...results, ...more].filter((r) => r.status === 200).length;
      expect(ok).toBe(10);
    } finally {
      setDb(mine);
      await closePrisma(other);
    }
  });

  test("an instance takes tokens in batches: one database write per 5% of the burst", async () => {
    const k = await seedKey(t.prisma, ["lettura"], { perSecond: 0.001, burst: 200 });
    const tokens = async () => (await t.pool.query("SELECT gettoni FROM chiavi_api WHERE id = $1", [k.id])).rows[0].gettoni;
    expect((await rest("GET", "/clienti", { key: k.chiave })).status).toBe(200);
    expect(await tokens()).toBeCloseTo(190, 1);
    for (let i = 0; i < 9; i++) expect((await rest("GET", "/clienti", { key: k.chiave })).status).toBe(200);
    expect(await tokens()).toBeCloseTo(190, 1);
    await rest("GET", "/clienti", { key: k.chiave });
    expect(await tokens()).toBeCloseTo(180, 1);
  });

  test("errore_interno: no stack, no SQL, the request id to quote; the details go to the server log", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    await t.pool.query("ALTER TABLE giacenze RENAME TO giacenze_rotte");
    try {
      const r = await expectNothingWritten(() => rest("POST", "/movimenti", { key: writer, body: load }));
      expect(log).toHaveBeenCalledWith(`[${r.body.richiesta}] errore interno:`, expect.anything());
      expectErrorBody(r, 500, "errore_interno");
      expect(r.body.richiesta).toBe(r.headers.get("x-request-id"));
      const text = JSON.stringify(r.body);
      expect(text).not.toMatch(/giacenze|SELECT|INSERT|relation|at |\.ts|node_modules|prisma/i);
    } finally {
      await t.pool.query("ALTER TABLE giacenze_rotte RENAME TO giacenze");
      log.mockRestore();
    }
  });

  test("servizio_non_disponibile with Retry-After when the database cannot be reached", async () => {
    const mine = getDb();
    const dead = createPrisma("postgresql://nessuno:x@127.0.0.1:1/nessuno", 1);
    setDb(dead);
    try {
      const r = await rest("GET", "/clienti", { key: reader });
      expectErrorBody(r, 503, "servizio_non_disponibile");
      expect(r.headers.get("retry-after")).toBe("5");
    } finally {
      setDb(mine);
      await closePrisma(dead);
    }
  });
});

test("every response carries X-Request-Id, successes included", async () => {
  const r = await rest("GET", "/clienti", { key: reader });
  expect(r.status).toBe(200);
  expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
});
