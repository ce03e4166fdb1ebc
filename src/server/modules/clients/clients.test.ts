import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { searchClients } from "./clients.service";

let t: TestDb;
let key: string;
test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  // More clients than one page of GET /clienti (100): the picker must reach every one.
  await t.prisma.cliente.createMany({
    data: Array.from({ length: 150 }, (_, i) => ({
      codice: `CL-${String(i + 1).padStart(3, "0")}`,
      ragione_sociale: i === 139 ? "Ferramenta Rossi 100% S.r.l." : `Cliente ${String(i + 1).padStart(3, "0")} S.p.A.`,
      partita_iva: i === 139 ? "01234567890" : null,
      data: new Date("2026-11-01T00:00:00Z"),
    })),
  });
});

describe("client picker search", () => {
  test("finds a client beyond the first hundred by part of its name, whatever the case", async () => {
    const found = await searchClients(t.prisma, "ferramenta ROSSI");
    expect(found.map((c) => c.codice)).toEqual(["CL-140"]);
  });

  test("by code (an exact code first) and by VAT number", async () => {
    expect((await searchClients(t.prisma, "cl-014"))[0]!.codice).toBe("CL-014");
    expect((await searchClients(t.prisma, "01234567890")).map((c) => c.codice)).toEqual(["CL-140"]);
  });

  test("% and _ are searched literally, not as wildcards", async () => {
    expect((await searchClients(t.prisma, "100%")).map((c) => c.codice)).toEqual(["CL-140"]);
    expect(await searchClients(t.prisma, "_")).toEqual([]);
  });

  test("without text: the first 20 by name", async () => {
    const first = await searchClients(t.prisma, "");
    expect(first).toHaveLength(20);
    expect(first[0]!.ragione_sociale).toBe("Cliente 001 S.p.A.");
    expect(first.map((c) => c.ragione_sociale)).toEqual([...first.map((c) => c.ragione_sociale)].sort());
  });
});

const get = (path: string) => rest("GET", path, { key });

/** The feed's cursor once every change so far has been read. */
async function feedHead(): Promise<number> {
  let cursor = 0;
  for (;;) {
    const r = await get(`/clienti?modificati_dopo=${cursor}&limite=100`);
    expect(r.status).toBe(200);
    cursor = r.body.cursore_versione;
    if (!r.body.altri) return cursor;
  }
}

describe("GET /clienti: the change feed (docs/api.md section 9)", () => {
  test("the id list carries attivo and versione, and only the id cursor", async () => {
    const r = await get("/clienti?limite=1");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      clienti: [
        {
          id: expect.any(Number),
          codice: "CL-001",
          ragione_sociale: "Cliente 001 S.p.A.",
          partita_iva: null,
          codice_fiscale: null,
          email: null,
          telefono: null,
          indirizzo: null,
          cap: null,
          citta: null,
          provincia: null,
          nazione: "IT",
          attivo: true,
          versione: expect.any(Number),
          creato_il: expect.any(String),
        },
      ],
      altri: true,
      cursore: r.body.clienti[0].id,
    });
  });

  test("from 0 every client once, in version order; an empty page answers the version sent", async () => {
    const seen: any[] = [];
    let cursor = 0;
    for (;;) {
      const r = await get(`/clienti?modificati_dopo=${cursor}&limite=40`);
      expect(r.body.cursore).toBeUndefined();
      seen.push(...r.body.clienti);
      cursor = r.body.cursore_versione;
      if (!r.body.altri) break;
    }
    expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
    expect(seen.length).toBe(await t.prisma.cliente.count());
    const versions = seen.map((c) => c.versione);
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(cursor).toBe(versions.at(-1));
    expect((await get(`/clienti?modificati_dopo=${cursor}`)).body).toEqual({ clienti: [], altri: false, cursore_versione: cursor });
  });

  test("a changed client shows up after the old cursor, in its current state, with a higher version", async () => {
    const head = await feedHead();
    const c = await t.prisma.cliente.findUniqueOrThrow({ where: { codice: "CL-007" } });
    await t.pool.query("UPDATE clienti SET email = 'ordini@cl7.it', attivo = false WHERE id = $1", [c.id]);
    const r = await get(`/clienti?modificati_dopo=${head}`);
    expect(r.body.clienti).toEqual([expect.objectContaining({ id: c.id, codice: "CL-007", email: "ordini@cl7.it", attivo: false })]);
    expect(r.body.clienti[0].versione).toBeGreaterThan(head);
    expect(r.body.cursore_versione).toBe(r.body.clienti[0].versione);
    // An update that changes nothing takes no version: the feed stays quiet.
    await t.pool.query("UPDATE clienti SET email = email WHERE id = $1", [c.id]);
    expect((await get(`/clienti?modificati_dopo=${r.body.cursore_versione}`)).body.clienti).toEqual([]);
  });

  test("da/a filter the feed as the list (creation date)", async () => {
    const head = await feedHead();
    const late = await t.prisma.cliente.create({
      data: { codice: "CL-DIC", ragione_sociale: "Dicembre", data: new Date("2026-12-05T00:00:00Z") },
    });
    await t.pool.query("UPDATE clienti SET telefono = '1' WHERE codice = 'CL-002'");
    const r = await get(`/clienti?modificati_dopo=${head}&da=2026-12-01`);
    expect(r.body.clienti.map((c: any) => c.id)).toEqual([late.id]);
  });

  test("422 filtro_non_valido: dopo with modificati_dopo, and a bad modificati_dopo", async () => {
    for (const qs of ["dopo=0&modificati_dopo=0", "dopo=3&modificati_dopo=5", "modificati_dopo=-1", "modificati_dopo=uno"]) {
      const r = await get(`/clienti?${qs}`);
      expect(r.status, qs).toBe(422);
      expect(r.body.codice, qs).toBe("filtro_non_valido");
    }
  });

  test("completeness: a held change with a lower version bounds every page until it commits", async () => {
    const start = await feedHead();
    const [low, high] = await Promise.all(["CL-010", "CL-011"].map((codice) => t.prisma.cliente.findUniqueOrThrow({ where: { codice } })));
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const held = Number(
        (await c.query("UPDATE clienti SET citta = 'Lenta' WHERE id = $1 RETURNING versione", [low!.id])).rows[0].versione,
      );
      await t.prisma.cliente.update({ where: { id: high!.id }, data: { citta: "Veloce" } });
      const highVersion = Number((await t.pool.query("SELECT versione FROM clienti WHERE id = $1", [high!.id])).rows[0].versione);
      expect(highVersion).toBeGreaterThan(held);

      const during = await get(`/clienti?modificati_dopo=${start}`);
      expect(during.body).toEqual({ clienti: [], altri: true, cursore_versione: start });
      const again = await get(`/clienti?modificati_dopo=${during.body.cursore_versione}&limite=1`);
      expect(again.body).toEqual({ clienti: [], altri: true, cursore_versione: start });

      await c.query("COMMIT");
      const after = await get(`/clienti?modificati_dopo=${again.body.cursore_versione}`);
      expect(after.body.clienti.map((x: any) => [x.id, x.citta, x.versione])).toEqual([
        [low!.id, "Lenta", held],
        [high!.id, "Veloce", highVersion],
      ]);
      expect(after.body.altri).toBe(false);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
});

describe("GET /clienti: cerca and attivo, as the other lists (docs/api.md section 9)", () => {
  const codes = async (qs: string) => {
    const r = await get(`/clienti?${qs}&limite=100`);
    expect(r.status, qs).toBe(200);
    return r.body.clienti.map((c: { codice: string }) => c.codice);
  };

  test("cerca: code or ragione sociale, case-insensitive, % and _ literal; on the id list and the feed", async () => {
    expect(await codes("cerca=ferramenta%20ROSSI")).toEqual(["CL-140"]);
    expect(await codes("cerca=cl-14")).toEqual(Array.from({ length: 10 }, (_, i) => `CL-${140 + i}`));
    expect(await codes("cerca=100%25")).toEqual(["CL-140"]);
    expect(await codes("cerca=_")).toEqual([]);
    // Not the VAT number: the contract's `cerca` is code and ragione sociale.
    expect(await codes("cerca=01234567890")).toEqual([]);
    const feed = await get("/clienti?modificati_dopo=0&cerca=Ferramenta");
    expect(feed.body.clienti.map((c: { codice: string }) => c.codice)).toEqual(["CL-140"]);
    // Paged with the cursor, a filtered list answers each match once.
    const first = await get("/clienti?cerca=cl-14&limite=6");
    expect(first.body).toMatchObject({ altri: true });
    const second = await get(`/clienti?cerca=cl-14&limite=6&dopo=${first.body.cursore}`);
    expect([...first.body.clienti, ...second.body.clienti].map((c: { codice: string }) => c.codice)).toEqual(await codes("cerca=cl-14"));
    expect(second.body.altri).toBe(false);
  });

  test("attivo: true only the active, false only the deactivated; with cerca", async () => {
    await t.pool.query("UPDATE clienti SET attivo = false WHERE codice IN ('CL-141', 'CL-142')");
    try {
      expect(await codes("cerca=cl-14&attivo=false")).toEqual(["CL-141", "CL-142"]);
      expect(await codes("cerca=cl-14&attivo=true")).toEqual(["CL-140", ...Array.from({ length: 7 }, (_, i) => `CL-${143 + i}`)]);
      const all = (await get("/clienti?attivo=false&limite=100")).body.clienti;
      expect(all.length).toBeGreaterThanOrEqual(2);
      for (const c of all) expect(c.attivo).toBe(false);
      expect(await codes("cerca=cl-141&attivo=false")).toEqual(["CL-141"]);
    } finally {
      await t.pool.query("UPDATE clienti SET attivo = true WHERE codice IN ('CL-141', 'CL-142')");
    }
  });

  test("422 filtro_non_valido naming the field: a bad attivo, an empty, long or repeated cerca", async () => {
    for (const [qs, campo] of [
      ["attivo=si", "attivo"],
      ["attivo=1", "attivo"],
      ["attivo=", "attivo"],
      ["attivo=true&attivo=false", "attivo"],
      ["cerca=", "cerca"],
      ["cerca=%20%20", "cerca"],
      [`cerca=${"x".repeat(101)}`, "cerca"],
      ["cerca=a&cerca=b", "cerca"],
    ]) {
      const r = await get(`/clienti?${qs}`);
      expect(r.status, qs).toBe(422);
      expect(r.body.codice, qs).toBe("filtro_non_valido");
      const fields = r.body.campo ? [r.body.campo] : r.body.dettagli.map((d: { campo: string }) => d.campo);
      expect(fields, qs).toContain(campo);
    }
  });
});
