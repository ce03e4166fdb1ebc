import { expect } from "vitest";
import { call, type HttpResult } from "./harness";
import { type Across, stock } from "./promises";
import { articleCode, seedArticles } from "./seed";

/**
 * Section 14's promise (docs/api.md) where every guarantee must live: in PostgreSQL, whichever instance a request
 * reaches (two-instances.test.ts on PostgreSQL, pgbouncer.test.ts through PgBouncer in transaction mode).
 */

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

/**
 * The last 10 pieces of a lot-handled article, and 40 requests of 1 for them at once, split between the instances:
 * 20 reservations of the article (no lot named), 10 unloads and 10 transfers out of its lot that name no
 * reservation. Every request of 1 succeeds while something is free at its turn and none after, so exactly 10
 * succeed whatever the order: what is held never exceeds what is there, and nothing held is sold from under it.
 * The writes of stock go out first of each pair (a reservation is the quicker request), so that both kinds win some.
 */
export async function reservationRace(c: Across, prefix: string): Promise<void> {
  const [articolo] = await seedArticles(c.pool, prefix, 1, { lotti: true });
  const codice = articleCode(prefix, 1);
  const cliente = `${prefix}-CLIENTE`;
  await c.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ($1, 'Cliente della corsa', current_date)", [cliente]);
  const { rows } = await c.pool.query("SELECT codice FROM magazzini WHERE id = $1", [c.m1]);
  const magazzino = rows[0].codice as string;
  const load = await call(c.on(0), "POST", "/movimenti", {
    key: c.key,
    body: { natura: "carico", magazzino: c.m1, righe: [{ codice, quantita: 10, lotto: "L1" }] },
  });
  expect(load.status, load.text).toBe(200);

  const requests: (() => Promise<HttpResult>)[] = Array.from({ length: 40 }, (_, i) => {
    // Each kind split between the instances too (pairs alternate).
    const base = c.on(Math.floor(i / 2));
    if (i % 2 === 1) {
      const prenotazione = { riferimento: `${prefix}-${i}`, magazzino, cliente, righe: [{ numero_riga: 1, codice, quantita: 1 }] };
      return () => call(base, "POST", "/prenotazioni", { key: c.key, body: { prenotazioni: [prenotazione] } });
    }
    const riga = { codice, quantita: 1, lotto: "L1" };
    const body =
      i % 4 === 0
        ? { natura: "scarico", magazzino: c.m1, righe: [riga] }
        : { natura: "trasferimento", magazzino: c.m2, magazzino_origine: c.m1, righe: [riga] };
    return () => call(base, "POST", "/movimenti", { key: c.key, body });
  });
  const rs = await Promise.all(requests.map((send) => send()));
  for (const r of rs) expect(r.status, r.text).toBe(200);

  const outcome = (i: number) => rs[i]!.body.righe[0] as { esito: string; errore?: { codice: string } };
  const reserved = rs.filter((_, i) => i % 2 === 1 && outcome(i).esito === "creata").length;
  const unloaded = rs.filter((_, i) => i % 4 === 0 && outcome(i).esito === "scritta").length;
  const transferred = rs.filter((_, i) => i % 4 === 2 && outcome(i).esito === "scritta").length;
  const refusals: Record<string, number> = {};
  for (const [i] of rs.entries())
    if (outcome(i).errore) refusals[outcome(i).errore!.codice] = (refusals[outcome(i).errore!.codice] ?? 0) + 1;
  report("prenotazioni, scarichi e trasferimenti in corsa", {
    prenotate: reserved,
    scaricate: unloaded,
    trasferite: transferred,
    rifiuti: refusals,
  });
  expect(reserved + unloaded + transferred).toBe(10);
  // A reservation finds nothing free; a write naming no reservation finds the free stock held or gone.
  for (const [i] of rs.entries()) {
    const o = outcome(i);
    if (o.esito !== "rifiutata") continue;
    expect(i % 2 === 1 ? ["disponibilita_insufficiente"] : ["quantita_prenotata", "lotto_insufficiente"]).toContain(o.errore?.codice);
  }

  const held = await c.pool.query(
    "SELECT coalesce(sum(prenotata), 0)::float8 AS h, coalesce(sum(scoperta), 0)::float8 AS s FROM righe_prenotazione WHERE articolo_id = $1",
    [articolo],
  );
  expect(held.rows[0]).toEqual({ h: reserved, s: 0 });
  const here = await stock(c, articolo!, c.m1);
  expect(here).toEqual({ ledger: reserved, balance: reserved });
  expect(await stock(c, articolo!, c.m2)).toEqual({ ledger: transferred, balance: transferred });
  const a = await call(c.on(1), "GET", `/disponibilita?codice=${codice}&magazzino=${c.m1}`, { key: c.key });
  expect(a.status, a.text).toBe(200);
  expect(a.body.disponibilita[0]).toMatchObject({ giacenza: String(reserved), prenotata: String(reserved), disponibile: "0" });
}
