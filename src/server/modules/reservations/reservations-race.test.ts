import { expect } from "vitest";
import { closePrisma, createPrisma } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { waitsWithoutHolding } from "../../testing/locks";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * The promise (docs/api.md section 14), with real concurrency on real PostgreSQL: reservations racing for the same
 * stock through two separate pools (two instances) never hold more than was free, with or without a lot.
 */

let t: TestDb;
let second: TestDb;
let key: string;
let actor: Actor;
let m1: number;

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  await seedArticle(t.prisma, "ULTIMI");
  await seedArticle(t.prisma, "LOTTI", { lotti: true });
  await seedArticle(t.prisma, "ATTESA");
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const r = await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "ULTIMI", quantita: 10 },
        { codice: "LOTTI", quantita: 10, lotto: "L1" },
        { codice: "ATTESA", quantita: 1 },
      ],
    },
  });
  expect(r.body.rifiutate).toBe(0);
  // A second instance: its own pool of connections on the same database.
  second = { ...t, prisma: createPrisma(t.url, 10) };
  return async () => closePrisma(second.prisma);
});

const reserve = (instance: TestDb, riferimento: string, riga: Record<string, unknown>) =>
  caller(instance, actor, "rest")
    .reservations.upsert({
      prenotazioni: [{ riferimento, magazzino: "M1", cliente: "C1", righe: [{ numero_riga: 1, quantita: 1, ...riga }] }],
    })
    .then((r) => r.righe[0]!);

async function held(codice: string): Promise<{ total: number; lot: number }> {
  const { rows } = await t.pool.query(
    `SELECT coalesce(sum(r.prenotata), 0)::text AS total, coalesce(sum(r.prenotata) FILTER (WHERE r.lotto_id IS NOT NULL), 0)::text AS lot
       FROM righe_prenotazione r JOIN articoli a ON a.id = r.articolo_id WHERE a.codice = $1`,
    [codice],
  );
  return { total: Number(rows[0].total), lot: Number(rows[0].lot) };
}

test("20 reservations of 1 racing for 10 pieces on two instances: exactly 10 held", async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, (_, i) => reserve(i % 2 === 0 ? t : second, `CORSA-${i}`, { codice: "ULTIMI" })),
  );
  expect(outcomes.filter((o) => o.esito === "creata")).toHaveLength(10);
  const refused = outcomes.filter((o) => o.esito === "rifiutata");
  expect(refused).toHaveLength(10);
  expect(refused.every((o) => o.errore?.codice === "disponibilita_insufficiente" && o.errore.righe?.[0]?.disponibile === "0")).toBe(true);
  expect((await held("ULTIMI")).total).toBe(10);
  const a = await rest("GET", "/disponibilita?codice=ULTIMI", { key });
  expect(a.body.disponibilita[0]).toMatchObject({ giacenza: "10", prenotata: "10", disponibile: "0" });
});

test("a lot and the article without lot racing on the same stock never overlap", async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      reserve(i % 2 === 0 ? t : second, `LOTTO-${i}`, i % 3 === 0 ? { codice: "LOTTI" } : { codice: "LOTTI", lotto: "L1" }),
    ),
  );
  expect(outcomes.filter((o) => o.esito === "creata")).toHaveLength(10);
  const h = await held("LOTTI");
  expect(h.total).toBe(10);
  expect(h.lot).toBeLessThanOrEqual(10);
  const a = await rest("GET", "/disponibilita?codice=LOTTI", { key });
  expect(a.body.disponibilita[0]).toMatchObject({ giacenza: "10", prenotata: "10", disponibile: "0" });
});

test("a reservation waits on the balance's row lock, holding no lot, and then reads what committed before it", async () => {
  const { rows } = await t.pool.query("SELECT id FROM articoli WHERE codice = 'ATTESA'");
  const articolo = rows[0].id as number;
  const lot = (await t.pool.query("SELECT id FROM lotti WHERE codice = 'L1'")).rows[0].id as number;
  const r = await waitsWithoutHolding(t.pool, {
    hold: { sql: "SELECT quantita FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2", params: [articolo, m1] },
    probe: { sql: "SELECT id FROM lotti WHERE id = $1", params: [lot] },
    table: "giacenze",
    send: () => reserve(t, "ATTESA-1", { codice: "ATTESA" }),
  });
  expect(r.waited).toBe(true);
  expect(r.free).toBe(true);
  expect(r.result).toMatchObject({ esito: "creata", righe: [{ prenotata: "1" }] });
});
