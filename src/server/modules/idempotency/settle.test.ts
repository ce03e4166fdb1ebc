import { idempotencyLockKey } from "../../db/advisory-locks";
import { describe, expect } from "vitest";
import { DomainError } from "../../lib/errors";
import { responseHeaders } from "../../trpc/errors";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * idempotency.settle: a write whose outcome is unknown is settled without being run: its
 * stored answer, or an abandonment that a late original then meets (chiave_idempotenza_abbandonata).
 */

type User = Actor & { kind: "utente" };
let t: TestDb;
let key: string;
let keyId: number;
let anna: User;
let bruno: User;
let m1: number;
let riga: number;

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  key = apiKey.chiave;
  keyId = apiKey.id;
  const user = async (username: string): Promise<User> => {
    const u = await t.prisma.utente.create({ data: { username, password_hash: "-", ruolo: "operatore" } });
    return { kind: "utente", id: u.id, username, ruolo: "operatore" };
  };
  anna = await user("anna");
  bruno = await user("bruno");
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  const art = (await seedArticle(t.prisma, "VITE")).id;
  const f = (await seedSupplier(t.prisma, "F1")).id;
  riga = (
    await seedOrder(t.prisma, {
      numero: "O-1",
      fornitore: f,
      magazzino: m1,
      data: "2026-11-01",
      righe: [{ articolo: art, quantita: "100000", prezzo: "1" }],
    })
  ).righe[0]!;
});

/** The screen's arrival, as `who`, under an Idempotency-Key. */
const register = (who: User, chiave: string, ddt: string) =>
  caller(t, who, "trpc", { "idempotency-key": chiave }).arrivals.register({ magazzino: m1, ddt, riga, quantita: 1 });
const settle = (who: User, chiave: string, percorso = "/arrivi") => caller(t, who, "trpc").idempotency.settle({ percorso, chiave });

/** The domain refusal of a call, or "ok". */
async function refusal(call: Promise<unknown>): Promise<DomainError | "ok"> {
  try {
    await call;
    return "ok";
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    if (cause instanceof DomainError) return cause;
    throw e;
  }
}

const arrivalsOf = async (ddt: string): Promise<number> =>
  (
    await t.pool.query(
      "SELECT count(*)::int AS n FROM movimenti m JOIN operazioni o ON o.id = m.operazione_id WHERE m.origine = 'arrivo' AND o.ddt = $1",
      [ddt],
    )
  ).rows[0].n;

describe("idempotency.settle", () => {
  test("a key that ran: eseguita with its status and body, and nothing new written", async () => {
    const first = await register(anna, "s-ran", "DDT-RAN");
    const before = { movimenti: await countRows(t, "movimenti"), idempotenza: await countRows(t, "idempotenza") };
    const settled = await settle(anna, "s-ran");
    expect(settled).toEqual({ esito: "eseguita", stato: 201, corpo: first });
    expect((settled as { corpo: { movimento: number } }).corpo.movimento).toEqual(expect.any(Number));
    expect(await countRows(t, "movimenti")).toBe(before.movimenti);
    expect(await countRows(t, "idempotenza")).toBe(before.idempotenza);
    // Settling is not replaying: asked again, the same answer; the original's replay is unchanged too.
    expect(await settle(anna, "s-ran")).toEqual(settled);
    expect(await register(anna, "s-ran", "DDT-RAN")).toEqual(first);
    expect(await arrivalsOf("DDT-RAN")).toBe(1);
  });

  test("a key that was refused: eseguita with the refusal's status and body", async () => {
    const r = await refusal(
      caller(t, anna, "trpc", { "idempotency-key": "s-refused" }).arrivals.register({ magazzino: m1, ddt: "DDT-NO", riga: 999_999 }),
    );
    expect(r).not.toBe("ok");
    expect((r as DomainError).codice).toBe("riga_non_trovata");
    expect(await settle(anna, "s-refused")).toEqual({
      esito: "eseguita",
      stato: 422,
      corpo: { codice: "riga_non_trovata", messaggio: (r as DomainError).message, campo: "riga" },
    });
  });

  test("an unknown key: abandoned; the original with that key is then refused with 409 chiave_idempotenza_abbandonata and writes nothing", async () => {
    expect(await settle(anna, "s-lost")).toEqual({ esito: "abbandonata" });
    const { rows } = await t.pool.query(
      "SELECT extract(epoch FROM scade_il - creato_il)::int AS s FROM idempotenza WHERE chiave = 's-lost'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].s).toBe(24 * 3600);
    const late = await refusal(register(anna, "s-lost", "DDT-LOST"));
    expect(late).toBeInstanceOf(DomainError);
    expect((late as DomainError).codice).toBe("chiave_idempotenza_abbandonata");
    expect((late as DomainError).status).toBe(409);
    expect(await arrivalsOf("DDT-LOST")).toBe(0);
    // Settled again: still abandoned, nothing more stored.
    expect(await settle(anna, "s-lost")).toEqual({ esito: "abbandonata" });
    expect((await t.pool.query("SELECT count(*)::int AS n FROM idempotenza WHERE chiave = 's-lost'")).rows[0].n).toBe(1);
    // A new key registers the same intent normally.
    expect(await register(anna, "s-lost-2", "DDT-LOST")).toMatchObject({ riga });
    expect(await arrivalsOf("DDT-LOST")).toBe(1);
  });

  test("over REST, an abandoned key answers 409 chiave_idempotenza_abbandonata, not a replay nor 422", async () => {
    const asKey: Actor = { kind: "chiave", id: keyId, nome: "test", permessi: ["lettura", "scrittura"] };
    expect(await caller(t, asKey, "trpc").idempotency.settle({ percorso: "/arrivi", chiave: "s-rest" })).toEqual({ esito: "abbandonata" });
    const r = await rest("POST", "/arrivi", {
      key,
      body: { magazzino: m1, ddt: "DDT-REST", riga, quantita: 1 },
      headers: { "idempotency-key": "s-rest" },
    });
    expect(r.status).toBe(409);
    expect(r.body.codice).toBe("chiave_idempotenza_abbandonata");
    expect(r.headers.get("idempotency-replayed")).toBeNull();
    expect(await arrivalsOf("DDT-REST")).toBe(0);
    // The key was abandoned for /arrivi only: another path's request with the same key runs.
    const other = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: m1, righe: [{ codice: "VITE", quantita: 1 }] },
      headers: { "idempotency-key": "s-rest" },
    });
    expect(other.status).toBe(200);
  });

  test("while the original holds the key: 409 idempotenza_in_corso with Retry-After, and nothing stored", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const lock = idempotencyLockKey({ ambito: `u${anna.id}`, metodo: "POST", percorso: "/arrivi", chiave: "s-busy" });
      await c.query("SELECT pg_advisory_xact_lock($1)", [lock.toString()]);
      const busy = await refusal(settle(anna, "s-busy"));
      expect(busy).toBeInstanceOf(DomainError);
      expect((busy as DomainError).codice).toBe("idempotenza_in_corso");
      expect((busy as DomainError).status).toBe(409);
      expect(responseHeaders(busy as DomainError)["Retry-After"]).toBe("1");
    } finally {
      await c.query("ROLLBACK");
      c.release();
    }
    expect((await t.pool.query("SELECT count(*)::int AS n FROM idempotenza WHERE chiave = 's-busy'")).rows[0].n).toBe(0);
    expect(await settle(anna, "s-busy")).toEqual({ esito: "abbandonata" });
  });

  test("scoped: another user's settle does not see the key, and its abandonment does not touch the owner's", async () => {
    const first = await register(anna, "s-scope", "DDT-SCOPE");
    expect(await settle(bruno, "s-scope")).toEqual({ esito: "abbandonata" });
    expect(await settle(anna, "s-scope")).toEqual({ esito: "eseguita", stato: 201, corpo: first });
    expect(await register(anna, "s-scope", "DDT-SCOPE")).toEqual(first);
    expect(await arrivalsOf("DDT-SCOPE")).toBe(1);
  });

  test("a key or a path that is not one: refused before any look-up", async () => {
    const bad = await refusal(settle(anna, " "));
    expect((bad as DomainError).codice).toBe("chiave_idempotenza_non_valida");
    for (const percorso of ["arrivi", "/arrivi?x=1", "/arrivi/../x y", ""]) {
      const e = await caller(t, anna, "trpc")
        .idempotency.settle({ percorso, chiave: "k" })
        .catch((x: unknown) => x);
      expect((e as { code?: string }).code, percorso).toBe("BAD_REQUEST");
    }
  });

  test("racing originals and settles on one key, 30 rounds: written once and settled eseguita, or never written and settled abbandonata", async () => {
    const N = 4;
    /** Retries the answer "still running" (the client's rule), as the screen would, until a definite one. */
    async function untilDefinite<T>(call: () => Promise<T>): Promise<T | DomainError> {
      for (let i = 0; i < 500; i++) {
        const outcome = await call().then(
          (v) => v,
          (e: { cause?: unknown }) => {
            if (e.cause instanceof DomainError) return e.cause;
            throw e;
          },
        );
        if (!(outcome instanceof DomainError && outcome.codice === "idempotenza_in_corso")) return outcome;
        await new Promise((r) => setTimeout(r, 2));
      }
      throw new Error("sempre in corso");
    }
    const seen = { eseguita: 0, abbandonata: 0 };
    for (let round = 0; round < 30; round++) {
      const chiave = `race-${round}`;
      const ddt = `DDT-RACE-${round}`;
      const calls = Array.from({ length: 2 * N }, (_, i) =>
        i % 2 === 0 ? untilDefinite(() => register(anna, chiave, ddt)) : untilDefinite(() => settle(anna, chiave)),
      );
      const outcomes = await Promise.all(calls);
      const originals = outcomes.filter((_, i) => i % 2 === 0);
      const settles = outcomes.filter((_, i) => i % 2 === 1) as ({ esito: "eseguita"; corpo: unknown } | { esito: "abbandonata" })[];
      const esito = settles[0]!.esito;
      for (const s of settles) expect(s.esito, `round ${round}`).toBe(esito);
      const written = await arrivalsOf(ddt);
      if (esito === "eseguita") {
        expect(written, `round ${round}`).toBe(1);
        const body = (settles[0] as { corpo: unknown }).corpo;
        for (const s of settles) expect((s as { corpo: unknown }).corpo).toEqual(body);
        for (const o of originals) expect(o, `round ${round}`).toEqual(body);
      } else {
        expect(written, `round ${round}`).toBe(0);
        for (const o of originals) expect((o as DomainError).codice, `round ${round}`).toBe("chiave_idempotenza_abbandonata");
      }
      seen[esito]++;
    }
    // Which side wins a round is the scheduler's; both are correct. Printed to see that both were exercised.
    console.info(`settle race: ${seen.eseguita} eseguite, ${seen.abbandonata} abbandonate`);
  });
});
