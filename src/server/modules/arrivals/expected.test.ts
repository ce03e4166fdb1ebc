import { describe, expect } from "vitest";
import type { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { caller, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/** arrivals.expected: a warehouse's open expected rows, the handheld's offline copy. */

let t: TestDb;
let actor: Actor;
let m1: number;
let m2: number;
let f1: number;
const a: Record<string, number> = {};
type Order = { id: number; righe: number[] };
const o = {} as Record<"newer" | "older" | "done" | "other", Order>;

test.beforeAll(async ({ db, actor: k }) => {
  t = db;
  actor = k;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  f1 = (await seedSupplier(t.prisma, "F1")).id;
  a.VITE = (await seedArticle(t.prisma, "VITE", { ean: "8001234567897" })).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true, ean: "8000000000026" });
  a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8000000000033" })).id;
  a.SPENTO = (await seedArticle(t.prisma, "SPENTO")).id;
  const row = (articolo: number, quantita = "10", prezzo = "1.5") => ({ articolo, quantita, prezzo });
  // Seeded newest first: the order date decides, then the order id, then the row's position.
  o.newer = await seedOrder(t.prisma, { numero: "N-2", fornitore: f1, magazzino: m1, data: "2026-11-10", righe: [row(a.VITE!)] });
  o.older = await seedOrder(t.prisma, {
    numero: "N-1",
    fornitore: f1,
    magazzino: m1,
    data: "2026-11-01",
    righe: [row(a.LATTE!, "5", "2.25"), row(a.GUANTO_M!), row(a.VITE!, "3"), row(a.SPENTO!)],
  });
  o.done = await seedOrder(t.prisma, { numero: "N-EVASO", fornitore: f1, magazzino: m1, data: "2026-10-01", righe: [row(a.VITE!, "2")] });
  o.other = await seedOrder(t.prisma, { numero: "ALTRO", fornitore: f1, magazzino: m2, data: "2026-10-01", righe: [row(a.VITE!)] });
  const c = caller(t, actor, "trpc");
  // Row 3 of N-1 partly arrived; N-EVASO received in full; SPENTO deactivated (not received).
  await c.arrivals.register({ magazzino: m1, ddt: "D-1", riga: o.older.righe[2]!, quantita: 1 });
  await c.arrivals.register({ magazzino: m1, ddt: "D-1", riga: o.done.righe[0]! });
  await t.pool.query("UPDATE articoli SET attivo = false WHERE id = $1", [a.SPENTO]);
});

const expected = (magazzino: number) => caller(t, actor, "trpc").arrivals.expected({ magazzino });

describe("arrivals.expected", () => {
  test("the open rows of the warehouse's orders, oldest order first, each with its order; closed, other warehouses' and inactive articles' rows absent", async () => {
    const before = Date.now();
    const r = await expected(m1);
    expect(r.magazzino).toBe(m1);
    expect(r.completo).toBe(true);
    expect(r.al).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
    expect(Date.parse(r.al)).toBeGreaterThanOrEqual(before - 1);
    expect(r.righe.map((x) => [x.ordine.numero, x.articolo.codice])).toEqual([
      ["N-1", "LATTE"],
      ["N-1", "GUANTO-M"],
      ["N-1", "VITE"],
      ["N-2", "VITE"],
    ]);
    expect(r.righe[0]).toEqual({
      riga: o.older.righe[0],
      etichetta: `R${o.older.righe[0]}`,
      articolo: { id: a.LATTE, codice: "LATTE" },
      ean: null,
      descrizione: "Articolo LATTE",
      ordinata: "5",
      arrivata: "0",
      residua: "5",
      prezzo_proposto: "2.25",
      chiede_lotto: true,
      ordine: {
        id: o.older.id,
        numero: "N-1",
        data: "2026-11-01",
        stato: "parziale",
        fornitore: { id: f1, nome: "Fornitore F1" },
        magazzino: m1,
      },
    });
    // A variant's own EAN, not its template's.
    expect(r.righe[1]).toMatchObject({ ean: "8000000000033", chiede_lotto: false });
    expect(r.righe[2]).toMatchObject({ riga: o.older.righe[2], ordinata: "3", arrivata: "1", residua: "2", ean: "8001234567897" });
    expect(r.righe.map((x) => x.riga)).not.toContain(o.done.righe[0]);
    expect(r.righe.map((x) => x.riga)).not.toContain(o.other.righe[0]);
  });

  test("a row closed short leaves the copy; another warehouse's copy holds its own rows only", async () => {
    const manager = await t.prisma.utente.create({ data: { username: "capo", password_hash: "-", ruolo: "responsabile" } });
    await caller(t, { kind: "utente", id: manager.id, username: "capo", ruolo: "responsabile" }, "trpc").orders.close({
      id: String(o.newer.id),
      motivo: "Non arriva più",
    } as never);
    expect((await expected(m1)).righe.map((x) => x.ordine.numero)).toEqual(["N-1", "N-1", "N-1"]);
    expect((await expected(m2)).righe.map((x) => x.riga)).toEqual([o.other.righe[0]]);
  });

  test("the same row a scan proposes comes first for its article", async () => {
    const copy = await expected(m1);
    const scan = await caller(t, actor, "trpc").arrivals.scan({ barcode: "8001234567897", magazzino: m1 });
    expect(copy.righe.find((x) => x.articolo.codice === "VITE")!.riga).toBe(scan.ordini[0]!.righe[0]!.riga);
  });

  test("beyond 5,000 rows: the oldest orders' 5,000, and completo false", async () => {
    const big = (await seedWarehouse(t.prisma, "GRANDE")).id;
    const old = await seedOrder(t.prisma, { numero: "G-1", fornitore: f1, magazzino: big, data: "2026-09-01", righe: [] });
    const late = await seedOrder(t.prisma, { numero: "G-2", fornitore: f1, magazzino: big, data: "2026-09-02", righe: [] });
    await t.pool.query(
      `INSERT INTO righe_ordine (ordine_id, posizione, articolo_id, ordinata, prezzo)
       SELECT $1, g, $2, 1, 1 FROM generate_series(1, 5000) g`,
      [old.id, a.VITE],
    );
    await t.pool.query("INSERT INTO righe_ordine (ordine_id, posizione, articolo_id, ordinata, prezzo) VALUES ($1, 1, $2, 1, 1)", [
      late.id,
      a.VITE,
    ]);
    const r = await expected(big);
    expect(r.completo).toBe(false);
    expect(r.righe).toHaveLength(5000);
    expect(new Set(r.righe.map((x) => x.ordine.numero))).toEqual(new Set(["G-1"]));
  });

  test("a warehouse with nothing expected: an empty, complete copy; an unknown one: magazzino_non_trovato", async () => {
    const empty = (await seedWarehouse(t.prisma, "VUOTO")).id;
    expect(await expected(empty)).toMatchObject({ magazzino: empty, righe: [], completo: true });
    const e = await expected(999_999).catch((x: { cause?: unknown }) => x.cause);
    expect((e as DomainError).codice).toBe("magazzino_non_trovato");
  });
});
