import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest } from "../../testing/fixtures";

/**
 * What the uncovering's tests share (docs/api.md section 14, "Facts may uncover a reservation"): reserving by
 * REST, each row's `scoperta` as stored and as GET /prenotazioni shows it, and the events a fact records.
 */
export function uncoverHelpers(t: TestDb, key: string) {
  let n = 0;

  /** One reservation of one row (or a lot's), in the warehouse; answers its id and reference. */
  async function reserve(magazzino: string, codice: string, quantita: number, lotto?: string) {
    const riferimento = `U-${++n}`;
    const r = await rest("POST", "/prenotazioni", {
      key,
      body: {
        prenotazioni: [
          { riferimento, magazzino, cliente: "C1", righe: [{ numero_riga: 1, codice, quantita, ...(lotto ? { lotto } : {}) }] },
        ],
      },
    });
    expect(r.body.righe[0], JSON.stringify(r.body)).toMatchObject({ esito: "creata", righe: [{ prenotata: String(quantita) }] });
    return { id: r.body.righe[0].id as number, riferimento };
  }

  /** `scoperta` of each reservation's first row, as GET /prenotazioni reads it (and as it is stored). */
  async function uncovered(...ids: number[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of ids) {
      const stored = (await t.pool.query("SELECT trim_scale(scoperta)::text AS s FROM righe_prenotazione WHERE prenotazione_id = $1", [id]))
        .rows[0].s as string;
      const { riferimento } = (await t.pool.query("SELECT riferimento FROM prenotazioni WHERE id = $1", [id])).rows[0];
      const listed = await rest("GET", `/prenotazioni?riferimento=${riferimento}`, { key });
      expect(listed.body.prenotazioni[0].righe[0].scoperta).toBe(stored);
      out.push(stored);
    }
    return out;
  }

  const lastEvent = async (): Promise<number> => (await t.pool.query("SELECT coalesce(max(id), 0)::int AS id FROM eventi")).rows[0].id;
  const versionOf = async (id: number): Promise<number> =>
    Number((await t.pool.query("SELECT versione FROM prenotazioni WHERE id = $1", [id])).rows[0].versione);

  /**
   * The events recorded after `after`: all in one transaction (the fact's), the fact's own first; then the
   * reservations whose `scoperta` changed, by id, each as prenotazione.scoperta with its rows and as
   * prenotazione.modificata at commit. Answers, by reservation, the `scoperta` of its first row in the event.
   */
  async function factEvents(after: number, fact: string): Promise<Map<number, string>> {
    const { rows } = await t.pool.query("SELECT tipo, dati, xmin::text AS tx FROM eventi WHERE id > $1 ORDER BY id", [after]);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
    expect(rows[0].tipo).toBe(fact);
    const scoperte = rows.filter((r) => r.tipo === "prenotazione.scoperta");
    const modificate = rows.filter((r) => r.tipo === "prenotazione.modificata");
    expect(scoperte.map((r) => r.dati.id)).toEqual(modificate.map((r) => r.dati.id).sort((a, b) => a - b));
    for (const r of scoperte) expect(r.dati.versione).toBe(await versionOf(r.dati.id));
    return new Map(scoperte.map((r) => [r.dati.id as number, r.dati.righe[0].scoperta as string]));
  }

  /** The events of a GET /eventi page of that type after `after`, as the service renders them. */
  async function renderedScoperte(after: number) {
    const page = await rest("GET", `/eventi?dopo=${after}&tipo=prenotazione.scoperta`, { key });
    expect(page.status).toBe(200);
    return page.body.eventi as { tipo: string; dati: { id: number; righe: { scoperta: string }[] } }[];
  }

  return { reserve, uncovered, lastEvent, versionOf, factEvents, renderedScoperte };
}
