import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { countRows, rest, seedKey } from "../../testing/fixtures";

/** POST /clienti (docs/api.md section 9): upsert by code, per-row outcomes, repeats that write nothing. */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db }) => {
  t = db;
  key = (await seedKey(t.prisma)).chiave;
});

const clienti = (rows: unknown[], headers: Record<string, string> = {}) =>
  rest("POST", "/clienti", { key, body: { clienti: rows }, headers });
const outcome = (r: { body: { righe: { esito: string; errore?: { codice: string } }[] } }) =>
  r.body.righe.map((x) => (x.esito === "rifiutato" ? x.errore!.codice : x.esito));
const table = async () => (await t.pool.query("SELECT xmin::text AS xmin, * FROM clienti ORDER BY id")).rows;
const client = async (codice: string) => (await t.pool.query("SELECT * FROM clienti WHERE codice = $1", [codice])).rows[0];

describe("POST /clienti", () => {
  test("creates, a repeat is invariato and writes nothing, a partial update keeps the other fields, null clears", async () => {
    const rows = [
      { codice: "C-1", ragione_sociale: "Rossi S.r.l.", partita_iva: "IT01234567890", email: "info@rossi.it", citta: "Torino" },
      { codice: "C-2", ragione_sociale: "Bianchi", nazione: "FR", attivo: false },
    ];
    const first = await clienti(rows);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ creati: 2, aggiornati: 0, invariati: 0, rifiutati: 0 });
    expect(await client("C-1")).toMatchObject({ nazione: "IT", attivo: true, citta: "Torino", telefono: null });
    expect(await client("C-2")).toMatchObject({ nazione: "FR", attivo: false });
    const before = await table();
    const again = await clienti(rows);
    expect(again.body).toMatchObject({ creati: 0, aggiornati: 0, invariati: 2, rifiutati: 0 });
    expect(again.body.righe.map((r: { id: number }) => r.id)).toEqual(first.body.righe.map((r: { id: number }) => r.id));
    expect(await table()).toEqual(before);

    const changed = await clienti([{ codice: "C-1", telefono: "011 123456", email: null }]);
    expect(outcome(changed)).toEqual(["aggiornato"]);
    expect(await client("C-1")).toMatchObject({
      ragione_sociale: "Rossi S.r.l.",
      partita_iva: "IT01234567890",
      telefono: "011 123456",
      email: null,
      citta: "Torino",
    });
    const c2 = (rows: { codice: string }[]) => rows.find((r) => r.codice === "C-2");
    expect(c2(await table())).toEqual(c2(before));
    const v1 = (rows: { codice: string; versione: string }[]) => Number(rows.find((r) => r.codice === "C-1")!.versione);
    expect(v1(await table())).toBeGreaterThan(v1(before));
  });

  test("row refusals: codice_non_valido, codice_ripetuto, campo_non_valido (field named), nothing written for them", async () => {
    const count = await countRows(t, "clienti");
    const r = await clienti([
      { ragione_sociale: "Senza codice" },
      { codice: "C-D", ragione_sociale: "uno" },
      { codice: "C-D", ragione_sociale: "due" },
      { codice: "C-NEW" },
      { codice: "C-MAIL", ragione_sociale: "Mail", email: "non-una-mail" },
      { codice: "C-NAZ", ragione_sociale: "Nazione", nazione: "Italia" },
      { codice: "C-1", nazione: null },
      { codice: "C-OK", ragione_sociale: "Va bene" },
    ]);
    expect(outcome(r)).toEqual([
      "codice_non_valido",
      "codice_ripetuto",
      "codice_ripetuto",
      "campo_non_valido",
      "campo_non_valido",
      "campo_non_valido",
      "campo_non_valido",
      "creato",
    ]);
    const msg = (i: number) => r.body.righe[i].errore.messaggio as string;
    expect(msg(3)).toContain("'ragione_sociale'");
    expect(msg(4)).toContain("'email'");
    expect(msg(5)).toContain("'nazione'");
    expect(r.body.righe[6].id).toBe((await client("C-1")).id);
    expect(await countRows(t, "clienti")).toBe(count + 1);
    expect(await client("C-1")).toMatchObject({ nazione: "IT" });
  });

  test("Idempotency-Key replays the answer", async () => {
    const body = [{ codice: "C-IK", ragione_sociale: "Chiave" }];
    const first = await clienti(body, { "idempotency-key": "cli-1" });
    const again = await clienti(body, { "idempotency-key": "cli-1" });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(outcome(again)).toEqual(["creato"]);
  });
});
