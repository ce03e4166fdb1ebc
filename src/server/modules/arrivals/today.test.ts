import { describe, expect, vi } from "vitest";
import { getConfig } from "../../config";
import type { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { caller, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { createContextInner } from "../../trpc/context";
import { appRouter } from "../../trpc/router";
import type { Actor, Role } from "../auth/actor";
import type { TodayArrival } from "./arrivals.schemas";

/** arrivals.today: the day's arrivals from the service, for any device. */

type User = Actor & { kind: "utente" };
let t: TestDb;
let keyActor: Actor;
let readOnly: Actor;
const users = {} as Record<"anna" | "bruno" | "capo", User>;
let m1: number;
let m2: number;
let f1: number;
let vite: number;
let latte: number;
/** Movement ids by name. */
const mv: Record<string, number> = {};

test.beforeAll(async ({ db, actor }) => {
  t = db;
  keyActor = actor;
  const ro = await seedKey(t.prisma, ["lettura"]);
  readOnly = { kind: "chiave", id: ro.id, nome: ro.nome, permessi: ro.permessi };
  const user = async (username: "anna" | "bruno" | "capo", ruolo: Role) => {
    const u = await t.prisma.utente.create({ data: { username, password_hash: "-", ruolo } });
    users[username] = { kind: "utente", id: u.id, username, ruolo };
  };
  await user("anna", "operatore");
  await user("bruno", "operatore");
  await user("capo", "responsabile");
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  f1 = (await seedSupplier(t.prisma, "F1")).id;
  vite = (await seedArticle(t.prisma, "VITE")).id;
  latte = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  const o1 = await seedOrder(t.prisma, {
    numero: "O-1",
    fornitore: f1,
    magazzino: m1,
    data: "2026-11-01",
    righe: [
      { articolo: vite, quantita: "1000", prezzo: "1" },
      { articolo: latte, quantita: "1000", prezzo: "2" },
    ],
  });
  const o2 = await seedOrder(t.prisma, {
    numero: "O-2",
    fornitore: f1,
    magazzino: m2,
    data: "2026-11-02",
    righe: [{ articolo: vite, quantita: "1000", prezzo: "1" }],
  });
  const arrive = async (
    who: Actor,
    name: string,
    input: { magazzino: number; ddt: string; riga: number; quantita: number; lotto?: string; scadenza?: string },
  ) => {
    mv[name] = ((await caller(t, who, "trpc").arrivals.register(input)) as { movimento: number }).movimento;
  };
  await arrive(users.anna, "anna", { magazzino: m1, ddt: "D-A", riga: o1.righe[0]!, quantita: 2 });
  await arrive(users.anna, "annaLotto", {
    magazzino: m1,
    ddt: "D-A",
    riga: o1.righe[1]!,
    quantita: 1.5,
    lotto: "L1",
    scadenza: "2027-01-31",
  });
  await arrive(users.anna, "annaAnnullato", { magazzino: m1, ddt: "D-A", riga: o1.righe[0]!, quantita: 3 });
  await caller(t, users.anna, "trpc").arrivals.cancel({ id: String(mv.annaAnnullato) } as never);
  await arrive(users.bruno, "bruno", { magazzino: m1, ddt: "D-B", riga: o1.righe[0]!, quantita: 4 });
  await arrive(users.capo, "capoMinuscolo", { magazzino: m1, ddt: "d-a", riga: o1.righe[0]!, quantita: 5 });
  await arrive(keyActor, "chiave", { magazzino: m2, ddt: "D-K", riga: o2.righe[0]!, quantita: 6 });
  // An arrival of anna's from yesterday (written directly, as a past day's ledger holds it): never today's.
  await t.pool.query(
    `WITH op AS (INSERT INTO operazioni (origine, ddt, fornitore_id, utente_id) VALUES ('arrivo', 'D-IERI', $4, $1) RETURNING id)
     INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita, riferimento_tipo, riferimento_id, utente_id)
     SELECT op.id, current_date - 1, 'arrivo', 'carico', $2, r.articolo_id, 1, 'riga_ordine', r.id, $1 FROM op, righe_ordine r WHERE r.id = $3`,
    [users.anna.id, m1, o1.righe[0], f1],
  );
});

const today = (who: Actor, input: { ddt?: string; mine?: boolean; magazzino?: number } = {}) =>
  caller(t, who, "trpc").arrivals.today(input);
const byName = (list: TodayArrival[]) => {
  const names = new Map(Object.entries(mv).map(([n, id]) => [id, n]));
  return list.map((a) => names.get(a.movimento) ?? `?${a.movimento}`);
};

describe("arrivals.today", () => {
  test("today's arrivals, newest first, every field; a cancelled one is there, marked; yesterday's is not", async () => {
    const r = await today(users.capo);
    expect(r.altri).toBe(false);
    expect(byName(r.arrivi)).toEqual(["chiave", "capoMinuscolo", "bruno", "annaAnnullato", "annaLotto", "anna"]);
    const lotto = r.arrivi.find((a) => a.movimento === mv.annaLotto)!;
    expect(lotto).toEqual({
      movimento: mv.annaLotto,
      operazione: expect.any(Number),
      riga: expect.any(Number),
      etichetta: `R${lotto.riga}`,
      articolo: { id: latte, codice: "LATTE" },
      descrizione: "Articolo LATTE",
      quantita: "1.5",
      lotto: "L1",
      scadenza: "2027-01-31",
      unita: "PZ",
      ddt: "D-A",
      ordine: { id: expect.any(Number), numero: "O-1" },
      fornitore: { id: f1, nome: "Fornitore F1" },
      magazzino: m1,
      utente: { id: users.anna.id, username: "anna" },
      registrato_il: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/),
      annullato: false,
      annullabile: true,
    });
    expect(r.arrivi.find((a) => a.movimento === mv.anna)).toMatchObject({ lotto: null, scadenza: null, quantita: "2" });
    expect(r.arrivi.find((a) => a.movimento === mv.chiave)).toMatchObject({ utente: null, magazzino: m2, ddt: "D-K" });
    expect(r.arrivi.find((a) => a.movimento === mv.annaAnnullato)).toMatchObject({ annullato: true, annullabile: false });
    // The instant is the movement's own, in the service's zone.
    const { rows } = await t.pool.query(
      "SELECT floor(extract(epoch FROM registrato_il) * 1000)::float8 AS ms FROM movimenti WHERE id = $1",
      [mv.anna],
    );
    expect(Date.parse(r.arrivi.find((a) => a.movimento === mv.anna)!.registrato_il)).toBe(rows[0].ms);
  });

  test("annullabile is cancelArrival's rule for the caller: an operator's own; a manager's and a writing key's, any; a read-only key's, none", async () => {
    const annullabili = async (who: Actor) =>
      byName((await today(who)).arrivi.filter((a) => a.annullabile))
        .sort()
        .join(",");
    expect(await annullabili(users.anna)).toBe("anna,annaLotto");
    expect(await annullabili(users.bruno)).toBe("bruno");
    expect(await annullabili(users.capo)).toBe("anna,annaLotto,bruno,capoMinuscolo,chiave");
    expect(await annullabili(keyActor)).toBe("anna,annaLotto,bruno,capoMinuscolo,chiave");
    expect(await annullabili(readOnly)).toBe("");
    // And the service agrees: what bruno sees as not annullabile, cancelArrival refuses him.
    const e = await caller(t, users.bruno, "trpc")
      .arrivals.cancel({ id: String(mv.anna) } as never)
      .catch((x: { cause?: unknown }) => x.cause);
    expect((e as DomainError).codice).toBe("permesso_negato");
  });

  test("mine keeps the caller's own (a user's, or an API key's)", async () => {
    expect(byName((await today(users.anna, { mine: true })).arrivi)).toEqual(["annaAnnullato", "annaLotto", "anna"]);
    expect(byName((await today(users.bruno, { mine: true })).arrivi)).toEqual(["bruno"]);
    expect(byName((await today(keyActor, { mine: true })).arrivi)).toEqual(["chiave"]);
    expect((await today(readOnly, { mine: true })).arrivi).toEqual([]);
  });

  test("ddt filters by the delivery note as the service groups it (exactly as written), magazzino by warehouse", async () => {
    expect(byName((await today(users.capo, { ddt: "D-A" })).arrivi)).toEqual(["annaAnnullato", "annaLotto", "anna"]);
    expect(byName((await today(users.capo, { ddt: "d-a" })).arrivi)).toEqual(["capoMinuscolo"]);
    expect(byName((await today(users.capo, { ddt: " D-B " })).arrivi)).toEqual(["bruno"]);
    expect((await today(users.capo, { ddt: "D-NESSUNO" })).arrivi).toEqual([]);
    expect(byName((await today(users.capo, { magazzino: m2 })).arrivi)).toEqual(["chiave"]);
    expect(byName((await today(users.anna, { ddt: "D-A", mine: true, magazzino: m1 })).arrivi)).toEqual([
      "annaAnnullato",
      "annaLotto",
      "anna",
    ]);
  });

  test("an unknown warehouse: magazzino_non_trovato", async () => {
    const e = await today(users.capo, { magazzino: 999_999 }).catch((x: { cause?: unknown }) => x.cause);
    expect((e as DomainError).codice).toBe("magazzino_non_trovato");
  });

  test("at most 500, newest first, with altri", async () => {
    const m3 = (await seedWarehouse(t.prisma, "M3")).id;
    const o = await seedOrder(t.prisma, {
      numero: "O-MOLTI",
      fornitore: f1,
      magazzino: m3,
      data: "2026-11-03",
      righe: Array.from({ length: 501 }, () => ({ articolo: vite, quantita: "1", prezzo: "1" })),
    });
    const c = caller(t, users.capo, "trpc");
    await c.arrivals.register({ magazzino: m3, ddt: "D-MOLTI", righe: o.righe.slice(0, 500).map((riga) => ({ riga })) });
    const last = (await c.arrivals.register({ magazzino: m3, ddt: "D-MOLTI", riga: o.righe[500]! })) as { movimento: number };
    const r = await today(users.capo, { magazzino: m3 });
    expect(r.arrivi).toHaveLength(500);
    expect(r.altri).toBe(true);
    expect(r.arrivi[0]!.movimento).toBe(last.movimento);
    const ids = r.arrivi.map((a) => a.movimento);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  test("the day is the business date in the service's zone, at its boundary", async () => {
    const m4 = (await seedWarehouse(t.prisma, "M4")).id;
    const o = await seedOrder(t.prisma, {
      numero: "O-NOTTE",
      fornitore: f1,
      magazzino: m4,
      data: "2026-11-04",
      righe: [{ articolo: vite, quantita: "10", prezzo: "1" }],
    });
    const inZone = (zone: string, who: Actor) =>
      appRouter.createCaller(
        createContextInner({ db: t.prisma, channel: "trpc", actor: who, config: { ...getConfig(), SERVICE_TIME_ZONE: zone } }),
      );
    const seen = async (zone: string) => (await inZone(zone, users.anna).arrivals.today({ magazzino: m4 })).arrivi;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      // 23:30 UTC on the 27th is 00:30 on the 28th in Rome: the arrival is of the 28th there.
      vi.setSystemTime(new Date("2026-11-27T23:30:00Z"));
      await inZone("Europe/Rome", users.anna).arrivals.register({ magazzino: m4, ddt: "D-NOTTE", riga: o.righe[0]!, quantita: 1 });
      expect((await seen("Europe/Rome")).map((a) => a.annullabile)).toEqual([true]);
      expect(await seen("UTC")).toEqual([]);
      // 23:30 in Rome on the 28th: still its day.
      vi.setSystemTime(new Date("2026-11-28T22:30:00Z"));
      expect((await seen("Europe/Rome")).map((a) => a.annullabile)).toEqual([true]);
      // 00:30 in Rome on the 29th: yesterday's, gone from today's list.
      vi.setSystemTime(new Date("2026-11-28T23:30:00Z"));
      expect(await seen("Europe/Rome")).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
