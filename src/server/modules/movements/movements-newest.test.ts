import { describe, expect } from "vitest";
import { inTransaction } from "../../db/transaction";
import { toDomainError } from "../../trpc/errors";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { appendToLedger } from "../ledger/ledger.service";
import { listAll, newestAll, newestCases } from "../lists/newest-cases";
import { movementsBefore } from "./movements.queries";
import type { MovementOutput, NewestMovementsParams } from "./movements.schemas";

/**
 * The movements screen's read (movements.newest): newest first, paged by `prima`, with the filters of
 * GET /movimenti and its rows exactly, and no row the list would not show yet.
 */

let t: TestDb;
let key: string;
let manager: Actor & { kind: "utente" };
let operator: Actor & { kind: "utente" };
let m1: number;
let m2: number;
const art: Record<string, number> = {};
/** The operations written below, by what they were. */
const op: Record<string, number> = {};

type Filters = Omit<NewestMovementsParams, "prima" | "limite">;

const ui = () => caller(t, manager, "trpc");
const post = async (body: unknown) => {
  const r = await rest("POST", "/movimenti", { key, body });
  expect(r.status).toBe(200);
  return r.body.operazione as number;
};

test.beforeAll(async ({ db, apiKey, actor }) => {
  t = db;
  key = apiKey.chiave;
  for (const ruolo of ["responsabile", "operatore"] as const) {
    const u = await t.prisma.utente.create({ data: { username: `nuovi-${ruolo}`, password_hash: "-", ruolo } });
    const a = { kind: "utente", id: u.id, username: u.username, ruolo } as const;
    if (ruolo === "responsabile") manager = a;
    else operator = a;
  }
  m1 = (await seedWarehouse(t.prisma, "N1")).id;
  m2 = (await seedWarehouse(t.prisma, "N2")).id;
  art.VITE = (await seedArticle(t.prisma, "N-VITE", { costo: "0.12" })).id;
  art.DADO = (await seedArticle(t.prisma, "N-DADO")).id;
  art.LATTE = (await seedArticle(t.prisma, "N-LATTE", { lotti: true })).id;

  // Two past business dates, which only the ledger can write: January and February.
  for (const [data, q] of [
    ["2026-01-10", "4"],
    ["2026-02-15", "-1.5"],
  ] as const) {
    const written = await inTransaction(t.prisma, (tx) =>
      appendToLedger(tx, { operazione: "nuova", origine: "correzione", causale: "Inventario", data, actor }, [
        { natura: Number(q) > 0 ? "carico" : "scarico", magazzino: m1, articolo: art.VITE!, quantita: q, prezzo: null, lotto: null },
        { natura: Number(q) > 0 ? "carico" : "scarico", magazzino: m2, articolo: art.DADO!, quantita: q, prezzo: null, lotto: null },
      ]),
    );
    op[data] = written.operazione;
  }
  op.carichi = await post({
    natura: "carico",
    magazzino: m1,
    causale: "Arrivo a mano",
    righe: [
      { codice: "N-VITE", quantita: 10 },
      { codice: "N-DADO", quantita: 2.5, prezzo: "0.4" },
      { codice: "N-LATTE", quantita: 6, lotto: "L1", scadenza: "2027-03-01" },
    ],
  });
  op.trasferimento = await post({
    natura: "trasferimento",
    magazzino: m2,
    magazzino_origine: m1,
    righe: [{ codice: "N-VITE", quantita: 3 }],
  });
  op.scarico = await post({ natura: "scarico", magazzino: m1, righe: [{ codice: "N-LATTE", quantita: 1, lotto: "L1" }] });
  for (let i = 1; i <= 6; i++) await post({ natura: "carico", magazzino: i % 2 ? m1 : m2, righe: [{ codice: "N-DADO", quantita: i }] });
  const screen = await ui().movements.write({
    natura: "carico",
    magazzino: m2,
    causale: "Dallo schermo",
    righe: [{ codice: "N-VITE", quantita: 1 }],
  });
  op.schermo = screen.operazione!;
});

/** GET /movimenti with these filters, every page: the sync order, oldest first. */
const listed = (filters: Filters = {}) => listAll<MovementOutput>("/movimenti", "movimenti", key, filters as Record<string, string>);

/**
 * movements.newest with these filters, page after page down to the oldest, each page checked on the way;
 * without the screen's own `annullato_da`, so a row compares with GET /movimenti's field by field.
 */
const newest = async (filters: Filters = {}, limite = 4) =>
  (await newestAll((input) => ui().movements.newest(input), "movimenti", filters, limite)).map(({ annullato_da: _, ...m }) => m);

describe("movements.newest", () => {
  test("newest first, page by page down to the oldest: every movement once, each exactly as GET /movimenti shows it", async () => {
    const all = await listed();
    expect(all.length).toBeGreaterThan(12);
    const pages = await newest({}, 4);
    expect(pages).toEqual([...all].reverse());
    expect(new Set(pages.map((m) => m.id)).size).toBe(pages.length);
    // The first page is the newest: the screen's own write on top, by its user.
    const first = await ui().movements.newest({ limite: "2" });
    expect(first.movimenti[0]).toMatchObject({
      operazione: op.schermo,
      origine: "schermo",
      autore: { tipo: "utente", nome: "nuovi-responsabile" },
    });
    // A page size that divides the rows: the last full page says so by an empty next page, never a lost row.
    expect(await newest({}, all.length)).toEqual([...all].reverse());
    expect(await newest({}, 100)).toEqual([...all].reverse());
  });

  test.each<[string, () => Filters]>([
    ["articolo", () => ({ articolo: String(art.VITE) })],
    ["magazzino", () => ({ magazzino: String(m2) })],
    ["origine", () => ({ origine: "schermo" })],
    ["operazione", () => ({ operazione: String(op.trasferimento) })],
    ["da e a", () => ({ da: "2026-01-01", a: "2026-01-31" })],
    ["solo da", () => ({ da: "2026-02-01" })],
    ["solo a", () => ({ a: "2026-02-15" })],
    ["articolo e magazzino", () => ({ articolo: String(art.DADO), magazzino: String(m1) })],
  ])("filter %s: the same rows as GET /movimenti, newest first", async (_, filters) => {
    const all = await listed(filters());
    expect(all.length).toBeGreaterThan(0);
    expect(all.length).toBeLessThan((await listed()).length);
    expect(await newest(filters(), 3)).toEqual([...all].reverse());
  });

  test("the past dates are where the filters put them", async () => {
    expect((await newest({ da: "2026-01-01", a: "2026-01-31" })).map((m) => m.operazione)).toEqual([op["2026-01-10"], op["2026-01-10"]]);
    expect((await newest({ a: "2026-02-15" })).map((m) => m.data)).toEqual(["2026-02-15", "2026-02-15", "2026-01-10", "2026-01-10"]);
  });

  test("an arrival names the movement that cancelled it (annullato_da); a standing arrival and any other movement, null", async () => {
    await seedSupplier(t.prisma, "N-FORN");
    const ordered = await rest("POST", "/ordini-acquisto", {
      key,
      body: {
        ordini: [
          {
            numero: "N-OA",
            fornitore: "N-FORN",
            data: "2026-11-20",
            magazzino: "N1",
            righe: [{ numero_riga: 1, articolo: "N-DADO", quantita: 10, prezzo: "1" }],
          },
        ],
      },
    });
    const riga = ordered.body.righe[0].righe[0].riga as number;
    const arrive = async (quantita: number) =>
      (await rest("POST", "/arrivi", { key, body: { magazzino: m1, ddt: "N-DDT", riga, quantita } })).body.movimento as number;
    const wrong = await arrive(4);
    const right = await arrive(3);
    const cancelled = await rest("POST", `/arrivi/${wrong}/annulla`, { key });
    expect(cancelled.status).toBe(200);
    const page = (await ui().movements.newest({ limite: "3" })).movimenti;
    expect(page.map((m) => [m.id, m.origine, m.annulla, m.annullato_da])).toEqual([
      [cancelled.body.movimento, "annullamento", wrong, null],
      [right, "arrivo", null, null],
      [wrong, "arrivo", null, cancelled.body.movimento],
    ]);
    // On the whole first page, only that arrival says it was cancelled.
    expect((await ui().movements.newest({})).movimenti.filter((m) => m.annullato_da !== null).map((m) => m.id)).toEqual([wrong]);
  });

  test("the page's LIMIT is in the statement's text, as every page's (db/sql.ts limit, lists/page-limit.test.ts)", () => {
    const { text } = movementsBefore(10, { articolo: 3 }, 51).sql;
    expect(text).toMatch(/\bORDER BY m\.id DESC\s+LIMIT 51\b/);
    expect(text).not.toMatch(/\bLIMIT \$\d/);
  });
});

newestCases({
  router: "movements",
  noun: "movement",
  rows: "movimenti",
  path: "/movimenti",
  newest: (input) => ui().movements.newest(input as NewestMovementsParams),
  asOperator: () => caller(t, operator, "trpc").movements,
  toDomainError,
  syncBound: {
    uncommitted: async (c) => {
      const o = await c.query("INSERT INTO operazioni (origine) VALUES ('api') RETURNING id");
      const inserted = await c.query(
        `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
         VALUES ($1, current_date, 'api', 'carico', $2, $3, 1) RETURNING id`,
        // Not the committed write's article: the insert takes that article's monthly row (movimenti_mensili).
        [o.rows[0].id, m1, art.VITE],
      );
      return inserted.rows[0].id;
    },
    committed: async () =>
      (await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "N-DADO", quantita: 2 }] } }))
        .body.righe[0].movimento,
  },
});
