import { afterAll, beforeAll, expect, test } from "vitest";
import { Decimal } from "../../lib/decimal";
import { createTestDb, type TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import type { Actor } from "../auth/actor";

/**
 * The specification's synchronisation recipe, end to end: an initial load, writes through every
 * channel, incremental runs from stored cursors (one of them while writers are still writing), and
 * the balances rebuilt from the extract equal to /disponibilita for every article and warehouse.
 */

let t: TestDb;
let key: string;
let actor: Actor;
const w: number[] = [];

beforeAll(async () => {
  t = await createTestDb();
  w.push((await seedWarehouse(t.prisma, "W1")).id, (await seedWarehouse(t.prisma, "W2")).id);
  for (const c of ["A", "B", "C"]) await seedArticle(t.prisma, c);
  await seedArticle(t.prisma, "LOT", { lotti: true });
  const tpl = await seedArticle(t.prisma, "T", { haVarianti: true });
  await seedArticle(t.prisma, "T-1", { modelloId: tpl.id });
  await t.prisma.cliente.create({ data: { codice: "K1", ragione_sociale: "Cliente uno", data: new Date() } });
  const k = await seedKey(t.prisma);
  key = k.chiave;
  actor = { kind: "chiave", id: k.id, nome: k.nome, permessi: k.permessi };
});
afterAll(async () => t?.drop());

class SyncClient {
  cursors: Record<string, number> = { movimenti: 0, "documenti-vendita": 0 };
  movimenti: any[] = [];
  documenti: any[] = [];

  async run(): Promise<void> {
    for (const [resource, arrayKey] of [
      ["movimenti", "movimenti"],
      ["documenti-vendita", "documenti"],
    ] as const) {
      for (;;) {
        const r = await rest("GET", `/${resource}?limite=100&dopo=${this.cursors[resource]}`, { key });
        expect(r.status).toBe(200);
        (this as any)[arrayKey].push(...r.body[arrayKey]);
        this.cursors[resource] = r.body.cursore;
        if (!r.body.altri) break;
      }
    }
  }

  /** Stock per "article:warehouse" rebuilt from the extract alone. */
  balances(): Map<string, Decimal> {
    const out = new Map<string, Decimal>();
    for (const m of this.movimenti) {
      const k = `${m.articolo.id}:${m.magazzino}`;
      out.set(k, (out.get(k) ?? new Decimal(0)).plus(m.quantita));
    }
    return out;
  }
}

async function availability(): Promise<Map<string, Decimal>> {
  const out = new Map<string, Decimal>();
  let dopo = 0;
  for (;;) {
    const r = await rest("GET", `/disponibilita?limite=500&dopo=${dopo}`, { key });
    expect(r.status).toBe(200);
    for (const row of r.body.disponibilita) {
      for (const m of row.magazzini) out.set(`${row.articolo.id}:${m.magazzino}`, new Decimal(m.giacenza));
    }
    dopo = r.body.cursore;
    if (!r.body.altri) break;
  }
  return out;
}

function expectSameBalances(extract: Map<string, Decimal>, served: Map<string, Decimal>) {
  const keys = new Set([...extract.keys(), ...served.keys()]);
  for (const k of keys) {
    expect({ k, q: (extract.get(k) ?? new Decimal(0)).toFixed() }).toEqual({ k, q: (served.get(k) ?? new Decimal(0)).toFixed() });
  }
}

async function writeThroughEveryChannel(round: number) {
  const [w1, w2] = w as [number, number];
  await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: w1,
      righe: [
        { codice: "A", quantita: 10 + round },
        { codice: "LOT", quantita: 5, lotto: `L${round}` },
        { codice: "T-1", quantita: 0.5 },
      ],
    },
  });
  await rest("POST", "/movimenti", { key, body: { natura: "scarico", magazzino: w1, righe: [{ codice: "B", quantita: 1.25 }] } });
  await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "trasferimento",
      magazzino_origine: w1,
      magazzino: w2,
      righe: [
        { codice: "A", quantita: 3 },
        { codice: "LOT", quantita: 2, lotto: `L${round}` },
      ],
    },
  });
  await caller(t, actor, "trpc").movements.write({ natura: "carico", magazzino: w2, righe: [{ codice: "C", quantita: 7 }] });
  const f = await seedSupplier(t.prisma, `F${round}`);
  const articles = await t.prisma.articolo.findMany({ where: { codice: { in: ["A", "LOT"] } }, orderBy: { codice: "asc" } });
  const o = await seedOrder(t.prisma, {
    numero: `O${round}`,
    fornitore: f.id,
    magazzino: w2,
    data: "2026-11-20",
    righe: [
      { articolo: articles[0]!.id, quantita: "4", prezzo: "1" },
      { articolo: articles[1]!.id, quantita: "6", prezzo: "2" },
    ],
  });
  const arrived = await rest("POST", "/arrivi", {
    key,
    body: { magazzino: w2, ddt: `D${round}`, righe: [{ riga: o.righe[0] }, { riga: o.righe[1], quantita: 3, lotto: `AR${round}` }] },
  });
  expect(arrived.body.registrate).toBe(2);
  await rest("POST", `/arrivi/${arrived.body.righe[0].movimento}/annulla`, { key });
  const aligned = await rest("POST", "/giacenze/allinea", {
    key,
    body: {
      magazzino: w1,
      righe: [
        { codice: "B", contato: 40 + round },
        { codice: "C", contato: 2 },
      ],
    },
  });
  expect(aligned.body.rifiutate).toBe(0);
  const client = (await t.prisma.cliente.findFirstOrThrow()).id;
  await caller(t, actor, "trpc").sales.create({
    tipo: "ddt",
    cliente: client,
    magazzino: w1,
    righe: [{ codice: "A", quantita: 2, prezzo: "3.3", aliquota_iva: "22" }],
  });
}

test("initial load, writes through every channel, incremental runs: the extract rebuilds every balance", async () => {
  const sync = new SyncClient();
  await writeThroughEveryChannel(0);
  await sync.run();
  expectSameBalances(sync.balances(), await availability());

  await writeThroughEveryChannel(1);
  const seenBefore = sync.movimenti.length;
  await sync.run();
  expect(sync.movimenti.length).toBeGreaterThan(seenBefore);
  expectSameBalances(sync.balances(), await availability());

  // An incremental run racing the writers, then one after they finish.
  const writers = Promise.all([writeThroughEveryChannel(2), writeThroughEveryChannel(3)]);
  while ((await Promise.race([writers.then(() => true), new Promise((r) => setTimeout(() => r(false), 30))])) === false) await sync.run();
  await writers;
  await sync.run();
  expectSameBalances(sync.balances(), await availability());

  const ids = sync.movimenti.map((m) => m.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM movimenti");
  expect(ids.length).toBe(rows[0].n);
  expect(new Set(sync.movimenti.map((m) => m.origine))).toEqual(
    new Set(["api", "schermo", "arrivo", "annullamento", "correzione", "vendita"]),
  );
  expect(sync.documenti).toHaveLength(4);
});
