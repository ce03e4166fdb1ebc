import { describe, expect } from "vitest";
import { toDomainError } from "../../trpc/errors";
import type { TestDb } from "../../testing/db";
import { caller, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { listAll, newestAll, newestCases } from "../lists/newest-cases";
import { documentsBefore } from "./sales.queries";
import type { NewestSalesParams, SaleDocumentOutput } from "./sales.schemas";

/**
 * The sales screen's read (sales.newest): newest first, paged by `prima`, with the filters of
 * GET /documenti-vendita and its rows exactly, and no document the list would not show yet.
 */

let t: TestDb;
let key: string;
let manager: Actor & { kind: "utente" };
let operator: Actor & { kind: "utente" };
let m1: number;
const cl: Record<string, number> = {};
/** The documents issued below, in issue order. */
const issued: SaleDocumentOutput[] = [];

type Filters = Omit<NewestSalesParams, "prima" | "limite">;

const ui = () => caller(t, manager, "trpc");

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  key = apiKey.chiave;
  for (const ruolo of ["responsabile", "operatore"] as const) {
    const u = await t.prisma.utente.create({ data: { username: `vendite-${ruolo}`, password_hash: "-", ruolo } });
    const a = { kind: "utente", id: u.id, username: u.username, ruolo } as const;
    if (ruolo === "responsabile") manager = a;
    else operator = a;
  }
  m1 = (await seedWarehouse(t.prisma, "V1")).id;
  await seedArticle(t.prisma, "V-VITE");
  await seedArticle(t.prisma, "V-DADO");
  for (const [codice, ragione_sociale] of [
    ["ROSSI", "Rossi S.r.l."],
    ["BIANCHI", "Bianchi S.p.A."],
    ["VERDI", "Verdi & C."],
  ] as const) {
    cl[codice] = (await t.prisma.cliente.create({ data: { codice, ragione_sociale, data: new Date("2026-01-01T00:00:00Z") } })).id;
  }
  // Dates out of issue order, so the order by id and the order by date differ.
  const plan: [keyof typeof cl, "ddt" | "fattura" | "scontrino", string][] = [
    ["ROSSI", "ddt", "2026-01-10"],
    ["BIANCHI", "fattura", "2026-02-15"],
    ["ROSSI", "scontrino", "2026-01-20"],
    ["VERDI", "ddt", "2026-03-01"],
    ["BIANCHI", "ddt", "2026-01-05"],
    ["ROSSI", "fattura", "2026-02-28"],
    ["VERDI", "scontrino", "2026-02-01"],
    ["ROSSI", "ddt", "2026-03-15"],
    ["BIANCHI", "fattura", "2026-03-02"],
    ["ROSSI", "ddt", "2026-02-10"],
  ];
  for (const [i, [cliente, tipo, data]] of plan.entries()) {
    issued.push(
      await ui().sales.create({
        tipo,
        cliente: cl[cliente]!,
        magazzino: m1,
        data,
        righe: [
          { codice: "V-VITE", quantita: i + 1, prezzo: "1.25", aliquota_iva: "22" },
          ...(i % 3 === 0 ? [{ codice: "V-DADO", quantita: 2, prezzo: "0.4", sconto: "10", aliquota_iva: "10" }] : []),
        ],
      }),
    );
  }
});

/** GET /documenti-vendita with these filters, every page: the sync order, oldest first. */
const listed = (filters: Filters = {}) =>
  listAll<SaleDocumentOutput>("/documenti-vendita", "documenti", key, filters as Record<string, string>);

/** sales.newest with these filters, page after page down to the oldest, each page checked on the way. */
const newest = (filters: Filters = {}, limite = 3) => newestAll((input) => ui().sales.newest(input), "documenti", filters, limite);

describe("sales.newest", () => {
  test("newest first, page by page down to the oldest: every document once, each exactly as GET /documenti-vendita shows it", async () => {
    const all = await listed();
    expect(all).toHaveLength(issued.length);
    const pages = await newest({}, 3);
    expect(pages).toEqual([...all].reverse());
    expect(new Set(pages.map((d) => d.id)).size).toBe(pages.length);
    // The first page is the newest: the document issued last on top, with its rows.
    const first = await ui().sales.newest({ limite: "2" });
    expect(first.documenti).toEqual([issued.at(-1), issued.at(-2)]);
    expect(first.documenti[0]!.righe.map((r) => r.articolo.codice)).toEqual(["V-VITE", "V-DADO"]);
    // A page size that divides the rows: the last full page says so by an empty next page, never a lost row.
    expect(await newest({}, all.length)).toEqual([...all].reverse());
    expect(await newest({}, 5)).toEqual([...all].reverse());
    expect(await newest({}, 100)).toEqual([...all].reverse());
  });

  test.each<[string, () => Filters]>([
    ["cliente", () => ({ cliente: String(cl.ROSSI) })],
    ["da e a", () => ({ da: "2026-02-01", a: "2026-02-28" })],
    ["solo da", () => ({ da: "2026-03-01" })],
    ["solo a", () => ({ a: "2026-01-20" })],
    ["cliente e periodo", () => ({ cliente: String(cl.BIANCHI), da: "2026-02-01" })],
  ])("filter %s: the same documents as GET /documenti-vendita, newest first", async (_, filters) => {
    const all = await listed(filters());
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThan(issued.length);
    expect(await newest(filters(), 2)).toEqual([...all].reverse());
  });

  test("the filters pick the documents they name, by id and not by date", async () => {
    const ofRossi = issued.filter((d) => d.cliente.id === cl.ROSSI).map((d) => d.id);
    expect((await newest({ cliente: String(cl.ROSSI) })).map((d) => d.id)).toEqual(ofRossi.reverse());
    expect((await newest({ da: "2026-03-01" })).map((d) => d.data)).toEqual(["2026-03-02", "2026-03-15", "2026-03-01"]);
    expect(await newest({ cliente: String(cl.VERDI), a: "2026-01-31" })).toEqual([]);
  });

  test("the page's LIMIT is in the statement's text, as every page's (db/sql.ts limit, lists/page-limit.test.ts)", () => {
    const { text } = documentsBefore(10, { cliente: 3 }, 51).sql;
    expect(text).toMatch(/\bORDER BY d\.id DESC\s+LIMIT 51\b/);
    expect(text).not.toMatch(/\bLIMIT \$\d/);
  });
});

newestCases({
  router: "sales",
  noun: "document",
  rows: "documenti",
  path: "/documenti-vendita",
  newest: (input) => ui().sales.newest(input as NewestSalesParams),
  asOperator: () => caller(t, operator, "trpc").sales,
  toDomainError,
  refusals: [["a bad client", { cliente: "0" }, "filtro_non_valido [cliente]: Parametro 'cliente': deve essere almeno 1."]],
  syncBound: {
    uncommitted: async (c) => {
      const inserted = await c.query(
        `INSERT INTO documenti_vendita (tipo, anno, progressivo, numero, data, cliente_id, magazzino_id, imponibile, imposta, totale)
         VALUES ('ddt', 1999, 1, '1999/000001', '1999-01-01', $1, $2, 0, 0, 0) RETURNING id`,
        [cl.VERDI, m1],
      );
      return inserted.rows[0].id;
    },
    shows: { numero: "1999/000001", righe: [] },
    committed: async () =>
      (
        await ui().sales.create({
          tipo: "ddt",
          cliente: cl.ROSSI!,
          magazzino: m1,
          righe: [{ codice: "V-VITE", quantita: 1, prezzo: "1", aliquota_iva: "22" }],
        })
      ).id,
  },
});
