import { describe, expect } from "vitest";
import { toDomainError } from "../../trpc/errors";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * The reservations screen (docs/api.md section 14, "the screens"): reservations.newest (newest first, the names a
 * person reads, the state in force, the filters), reservations.holders (an article's page) and the release by
 * tRPC through reservations.cancel, with the REST one's Idempotency-Key and refusals.
 */

let t: TestDb;
let key: string;
let manager: Actor & { kind: "utente" };
let m1: number;
let m2: number;
let articolo: number;

const ui = (headers: Record<string, string> = {}) => caller(t, manager, "trpc", headers);
const codeOf = async (p: Promise<unknown>, isQuery = false) => {
  try {
    await p;
    return "ok";
  } catch (e) {
    const d = toDomainError(e, { isQuery });
    return d ? `${d.codice}: ${d.message}` : `altro: ${(e as Error).message}`;
  }
};

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  const u = await t.prisma.utente.create({ data: { username: "schermo-prenotazioni", password_hash: "-", ruolo: "responsabile" } });
  manager = { kind: "utente", id: u.id, username: u.username, ruolo: "responsabile" };
  m1 = (await seedWarehouse(t.prisma, "SP1")).id;
  m2 = (await seedWarehouse(t.prisma, "SP2")).id;
  articolo = (await seedArticle(t.prisma, "SP-VITE")).id;
  await seedArticle(t.prisma, "SP-DADO");
  await t.pool.query(`INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('SP-ROSSI', 'Rossi S.r.l.', current_date),
    ('SP-VERDI', 'Verdi & C.', current_date)`);
  for (const magazzino of [m1, m2]) {
    const r = await rest("POST", "/movimenti", {
      key,
      body: {
        natura: "carico",
        magazzino,
        righe: [
          { codice: "SP-VITE", quantita: 10 },
          { codice: "SP-DADO", quantita: 5 },
        ],
      },
    });
    expect(r.body.rifiutate).toBe(0);
  }
  const r = await rest("POST", "/prenotazioni", {
    key,
    body: {
      prenotazioni: [
        { riferimento: "SP-1", magazzino: "SP1", cliente: "SP-ROSSI", righe: [{ numero_riga: 1, codice: "SP-VITE", quantita: 3 }] },
        {
          riferimento: "SP-2",
          magazzino: "SP2",
          cliente: "SP-VERDI",
          parziale: true,
          righe: [
            { numero_riga: 1, codice: "SP-VITE", quantita: 2 },
            { numero_riga: 2, codice: "SP-DADO", quantita: 8 },
          ],
        },
        { riferimento: "SP-3", magazzino: "SP1", cliente: "SP-VERDI", righe: [{ numero_riga: 1, codice: "SP-DADO", quantita: 1 }] },
        // Expires at once: still `attiva` in the table, `scaduta` in force.
        {
          riferimento: "SP-4",
          magazzino: "SP1",
          cliente: "SP-ROSSI",
          scade_il: "2099-01-01T00:00:00Z",
          righe: [{ numero_riga: 1, codice: "SP-VITE", quantita: 1 }],
        },
      ],
    },
  });
  expect(r.body.create, JSON.stringify(r.body)).toBe(4);
  await t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 minute' WHERE riferimento = 'SP-4'");
});

const idOf = async (riferimento: string) =>
  (await t.pool.query<{ id: number }>("SELECT id FROM prenotazioni WHERE riferimento = $1", [riferimento])).rows[0]!.id;

describe("reservations.newest", () => {
  test("newest first, with the customer's and warehouse's names, the articles' descriptions, the author and every quantity", async () => {
    const page = await ui().reservations.newest({});
    expect(page.prenotazioni.map((p) => p.riferimento)).toEqual(["SP-4", "SP-3", "SP-2", "SP-1"]);
    expect(page.prima).toBeNull();
    const sp2 = page.prenotazioni.find((p) => p.riferimento === "SP-2")!;
    expect(sp2).toMatchObject({
      stato: "attiva",
      scade_il: null,
      magazzino: { id: m2, codice: "SP2" },
      cliente: { codice: "SP-VERDI", nome: "Verdi & C." },
      righe: [
        { numero_riga: 1, articolo: { codice: "SP-VITE", descrizione: "Articolo SP-VITE" }, lotto: null, richiesta: "2", prenotata: "2" },
        { numero_riga: 2, articolo: { codice: "SP-DADO" }, richiesta: "8", prenotata: "5", prelevata: "0", spedita: "0", scoperta: "0" },
      ],
    });
    expect(sp2.autore).toEqual({ tipo: "chiave", nome: expect.any(String) });
    // The same quantities as GET /prenotazioni.
    const listed = await rest("GET", `/prenotazioni?riferimento=SP-2`, { key });
    const quantities = (r: Record<string, unknown>) => [
      r.numero_riga,
      r.lotto,
      r.richiesta,
      r.prenotata,
      r.prelevata,
      r.spedita,
      r.scoperta,
    ];
    expect(sp2.righe.map(quantities)).toEqual(listed.body.prenotazioni[0].righe.map(quantities));
  });

  test("pages by prima, below the sync bound, as the other newest-first screens", async () => {
    const first = await ui().reservations.newest({ limite: "3" });
    expect(first.prenotazioni.map((p) => p.riferimento)).toEqual(["SP-4", "SP-3", "SP-2"]);
    expect(first.prima).toBe(first.prenotazioni[2]!.id);
    const second = await ui().reservations.newest({ limite: "3", prima: String(first.prima) });
    expect(second.prenotazioni.map((p) => p.riferimento)).toEqual(["SP-1"]);
    expect(second.prima).toBeNull();
  });

  test("filters by warehouse and by the state in force: one past its scade_il is scaduta, not attiva", async () => {
    const inM1 = await ui().reservations.newest({ magazzino: String(m1) });
    expect(inM1.prenotazioni.map((p) => p.riferimento)).toEqual(["SP-4", "SP-3", "SP-1"]);
    const active = await ui().reservations.newest({ stato: "attiva" });
    expect(active.prenotazioni.map((p) => p.riferimento)).toEqual(["SP-3", "SP-2", "SP-1"]);
    const expired = await ui().reservations.newest({ stato: "scaduta" });
    expect(expired.prenotazioni.map((p) => [p.riferimento, p.stato])).toEqual([["SP-4", "scaduta"]]);
    expect((await ui().reservations.newest({ stato: "scaduta", magazzino: String(m2) })).prenotazioni).toEqual([]);
  });

  test("refuses a bad filter in Italian, as the lists do", async () => {
    expect(await codeOf(ui().reservations.newest({ stato: "chiusa" } as never), true)).toMatch(
      /^filtro_non_valido: .*stato.*attiva, in_prelievo/,
    );
    expect(await codeOf(ui().reservations.newest({ limite: "101" }), true)).toMatch(/^filtro_non_valido: .*al massimo 100/);
  });
});

describe("reservations.holders", () => {
  test("the rows that hold the article now, oldest first, with the totals; an expired or cancelled one holds nothing", async () => {
    const held = await ui().reservations.holders({ articolo });
    expect(held.righe.map((r) => [r.riferimento, r.cliente.nome, r.magazzino.codice, r.prenotata])).toEqual([
      ["SP-1", "Rossi S.r.l.", "SP1", "3"],
      ["SP-2", "Verdi & C.", "SP2", "2"],
    ]);
    expect(held).toMatchObject({ totale_righe: 2, totale_prenotata: "5" });
    const none = await ui().reservations.holders({ articolo: 999_999 });
    expect(none).toEqual({ righe: [], totale_righe: 0, totale_prenotata: "0" });
  });
});

describe("releasing from the screen (reservations.cancel by tRPC)", () => {
  test("releases every row with an Idempotency-Key; the key replayed answers the same; the stock is free again", async () => {
    const id = await idOf("SP-1");
    const headers = { "idempotency-key": "schermo-rilascio-sp1" };
    const out = await ui(headers).reservations.cancel({ id: String(id) });
    expect(out).toMatchObject({ riferimento: "SP-1", stato: "annullata", righe: [{ prenotata: "0" }] });
    const again = await ui(headers).reservations.cancel({ id: String(id) });
    // Replayed from the key's record: the same answer, the same version (nothing written again).
    expect(again).toEqual(out);
    expect((await rest("GET", "/prenotazioni?riferimento=SP-1", { key })).body.prenotazioni[0].versione).toBe(out.versione);
    const free = await rest("GET", `/disponibilita?articolo=${articolo}&magazzino=${m1}`, { key });
    expect(free.body.disponibilita[0]).toMatchObject({ prenotata: "0", disponibile: "10" });
    expect((await ui().reservations.holders({ articolo })).righe.map((r) => r.riferimento)).toEqual(["SP-2"]);
  });

  test("a reservation past its scade_il is refused prenotazione_chiusa, naming it, and nothing changes", async () => {
    const id = await idOf("SP-4");
    const before = (await t.pool.query("SELECT stato, versione FROM prenotazioni WHERE id = $1", [id])).rows[0];
    expect(await codeOf(ui({ "idempotency-key": "schermo-sp4" }).reservations.cancel({ id: String(id) }))).toBe(
      "prenotazione_chiusa: La prenotazione SP-4 è scaduta: non c'è nulla da annullare.",
    );
    expect((await t.pool.query("SELECT stato, versione FROM prenotazioni WHERE id = $1", [id])).rows[0]).toEqual(before);
  });
});
