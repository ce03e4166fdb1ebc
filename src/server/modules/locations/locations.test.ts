import { LOCATION_GATE } from "../../db/advisory-locks";
import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { countRows, rest, seedArticle, seedKey, seedWarehouse } from "../../testing/fixtures";
import { untilWaiting } from "../../testing/locks";
import { seedLocations } from "../../testing/locations";

/**
 * POST /ubicazioni and GET /ubicazioni (docs/api.md section 11): upsert by (warehouse code, code) with the per-row
 * outcomes of section 9, every refusal code provoked with nothing written for the refused row, the codes that
 * would read as something else, deactivation of a location that holds goods or receives, the list's filters
 * and its change feed, and the event.
 */

let t: TestDb;
let key: string;
let m1: number;
let m2: number;

test.beforeAll(async ({ db }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "UB1")).id;
  m2 = (await seedWarehouse(t.prisma, "UB2")).id;
  key = (await seedKey(t.prisma)).chiave;
});

const post = (body: unknown) => rest("POST", "/ubicazioni", { key, body });
const get = (query: string) => rest("GET", `/ubicazioni${query}`, { key });
const outcome = (r: { body: { righe: { esito: string; errore?: { codice: string } }[] } }) =>
  r.body.righe.map((x) => (x.esito === "rifiutato" ? x.errore!.codice : x.esito));

async function stored(magazzino: number, codice: string) {
  const { rows } = await t.pool.query(`SELECT xmin::text AS xmin, * FROM ubicazioni WHERE magazzino_id = $1 AND codice = $2`, [
    magazzino,
    codice,
  ]);
  return rows[0];
}

describe("POST /ubicazioni", () => {
  test("creates, a repeat is invariato and writes nothing, then updates only what differs; the same code in two warehouses is two locations", async () => {
    const rows = [
      { magazzino: "UB1", codice: "RIC", tipo: "ricevimento", descrizione: "Baia di ricevimento" },
      { magazzino: "UB1", codice: "A-01-01", tipo: "stoccaggio" },
      { magazzino: "UB2", codice: "A-01-01", tipo: "stoccaggio" },
    ];
    const first = await post({ ubicazioni: rows });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ creati: 3, aggiornati: 0, invariati: 0, rifiutati: 0 });
    expect(first.body.righe.map((r: { codice: string }) => r.codice)).toEqual(["RIC", "A-01-01", "A-01-01"]);
    const a1 = await stored(m1, "A-01-01");
    expect(a1).toMatchObject({ tipo: "stoccaggio", attiva: true, descrizione: null });
    expect(first.body.righe[1].id).toBe(a1.id);
    expect(first.body.righe[2].id).toBe((await stored(m2, "A-01-01")).id);

    const again = await post({ ubicazioni: rows });
    expect(again.body).toMatchObject({ creati: 0, aggiornati: 0, invariati: 3, rifiutati: 0 });
    expect((await stored(m1, "A-01-01")).xmin).toBe(a1.xmin);

    const changed = await post({ ubicazioni: [{ magazzino: "UB1", codice: "A-01-01", descrizione: "Scaffale A" }] });
    expect(outcome(changed)).toEqual(["aggiornato"]);
    const after = await stored(m1, "A-01-01");
    expect(after).toMatchObject({ descrizione: "Scaffale A", tipo: "stoccaggio" });
    expect(BigInt(after.versione)).toBeGreaterThan(BigInt(a1.versione));
  });

  test("every refusal code, each with nothing written for its row while the good row is written", async () => {
    const before = await countRows(t, "ubicazioni");
    const r = await post({
      ubicazioni: [
        { magazzino: "UB1", codice: "8001234567897", tipo: "stoccaggio" }, // EAN-13
        { magazzino: "UB1", codice: "96385074", tipo: "stoccaggio" }, // EAN-8
        { magazzino: "UB1", codice: "376104250021234569", tipo: "stoccaggio" }, // SSCC
        { magazzino: "UB1", codice: "(01)08001234567897(10)L1", tipo: "stoccaggio" }, // GS1
        { magazzino: "UB1", codice: "R1042", tipo: "stoccaggio" }, // order-row label
        { magazzino: "UB1", codice: "", tipo: "stoccaggio" },
        { magazzino: "UB1", codice: "DUE", tipo: "stoccaggio" },
        { magazzino: "UB1", codice: "DUE", tipo: "quarantena" },
        { magazzino: "UB1", codice: "SENZA-TIPO" },
        { magazzino: "UB1", codice: "TIPO-ERRATO", tipo: "scaffale" },
        { magazzino: "UB1", codice: "EXTRA", tipo: "stoccaggio", colore: "rosso" },
        { magazzino: "NESSUNO", codice: "A-09", tipo: "stoccaggio" },
        { magazzino: "UB1", codice: "B-01-01", tipo: "stoccaggio" },
      ],
    });
    expect(r.status).toBe(200);
    expect(outcome(r)).toEqual([
      "codice_non_valido",
      "codice_non_valido",
      "codice_non_valido",
      "codice_non_valido",
      "codice_non_valido",
      "codice_non_valido",
      "codice_ripetuto",
      "codice_ripetuto",
      "campo_non_valido",
      "campo_non_valido",
      "campo_non_valido",
      "magazzino_non_trovato",
      "creato",
    ]);
    expect(r.body.righe[2].errore.messaggio).toContain("SSCC");
    expect(r.body.righe[9].errore.messaggio).toContain("tipo");
    expect(r.body.righe[10].errore.messaggio).toContain("colore");
    expect(await countRows(t, "ubicazioni")).toBe(before + 1);
  });

  test("codes that read as nothing else are accepted: 18 digits with a wrong SSCC check digit, plain numbers, an EAN with a wrong check digit", async () => {
    const r = await post({
      ubicazioni: [
        { magazzino: "UB2", codice: "376104250021234560", tipo: "stoccaggio" },
        { magazzino: "UB2", codice: "0104", tipo: "stoccaggio" },
        { magazzino: "UB2", codice: "RAMPA-3", tipo: "ricevimento" },
      ],
    });
    expect(outcome(r)).toEqual(["creato", "creato", "creato"]);
  });

  test("ubicazione_non_vuota: a location holding goods, or the warehouse's receiving location, is not deactivated; an empty one is", async () => {
    await post({
      ubicazioni: [
        { magazzino: "UB1", codice: "PIENA", tipo: "stoccaggio" },
        { magazzino: "UB1", codice: "VUOTA", tipo: "stoccaggio" },
        { magazzino: "UB1", codice: "RIC-2", tipo: "ricevimento" },
      ],
    });
    const piena = await stored(m1, "PIENA");
    const ric = await stored(m1, "RIC-2");
    const art = await seedArticle(t.prisma, "UB-ART");
    // Goods in the location, as the ledger leaves them (the ledger's writers are the core's).
    await t.pool.query(`INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, quantita) VALUES ($1, $2, $3, 4)`, [
      art.id,
      m1,
      piena.id,
    ]);
    await t.pool.query(`UPDATE magazzini SET ubicazione_ricevimento_id = $1 WHERE id = $2`, [ric.id, m1]);
    const r = await post({
      ubicazioni: [
        { magazzino: "UB1", codice: "PIENA", attiva: false },
        { magazzino: "UB1", codice: "RIC-2", attiva: false },
      ],
    });
    expect(outcome(r)).toEqual(["ubicazione_non_vuota", "ubicazione_non_vuota"]);
    expect(r.body.righe[0].errore.messaggio).toContain("UB-ART");
    expect(r.body.righe[0].id).toBe(piena.id);
    expect((await stored(m1, "PIENA")).xmin).toBe(piena.xmin);
    expect((await stored(m1, "RIC-2")).attiva).toBe(true);

    const retype = await post({ ubicazioni: [{ magazzino: "UB1", codice: "RIC-2", tipo: "stoccaggio" }] });
    expect(outcome(retype)).toEqual(["campo_non_valido"]);
    const empty = await post({ ubicazioni: [{ magazzino: "UB1", codice: "VUOTA", attiva: false }] });
    expect(outcome(empty)).toEqual(["aggiornato"]);
    expect((await stored(m1, "VUOTA")).attiva).toBe(false);
    // Goods gone: the location may close.
    await t.pool.query(`UPDATE giacenze_ubicazioni SET quantita = 0 WHERE ubicazione_id = $1`, [piena.id]);
    expect(outcome(await post({ ubicazioni: [{ magazzino: "UB1", codice: "PIENA", attiva: false }] }))).toEqual(["aggiornato"]);
    await t.pool.query(`UPDATE magazzini SET ubicazione_ricevimento_id = NULL WHERE id = $1`, [m1]);
  });

  test("a deactivation waits for a load into the location in flight (its gate), then sees its goods: ubicazione_non_vuota", async () => {
    await post({ ubicazioni: [{ magazzino: "UB2", codice: "GATE-1", tipo: "stoccaggio" }] });
    const loc = await stored(m2, "GATE-1");
    const art = await seedArticle(t.prisma, "UB-GATE");
    // A writer putting goods in, as the ledger does: the location's gate shared, then its stock, not yet committed.
    const writer = await t.pool.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("SELECT pg_advisory_xact_lock_shared($1::int, $2::int)", [LOCATION_GATE, loc.id]);
      await writer.query("INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, quantita) VALUES ($1, $2, $3, 3)", [
        art.id,
        m2,
        loc.id,
      ]);
      const pending = post({ ubicazioni: [{ magazzino: "UB2", codice: "GATE-1", attiva: false }] });
      await untilWaiting(t.pool, "pg_advisory_xact_lock");
      await writer.query("COMMIT");
      expect(outcome(await pending)).toEqual(["ubicazione_non_vuota"]);
    } finally {
      await writer.query("ROLLBACK").catch(() => {});
      writer.release();
    }
    expect((await stored(m2, "GATE-1")).attiva).toBe(true);
  });

  test("Idempotency-Key: the same call replays its answer and writes nothing; another body with the key is refused", async () => {
    const body = { ubicazioni: [{ magazzino: "UB2", codice: "IK-1", tipo: "stoccaggio" }] };
    const headers = { "idempotency-key": "ub-ik-1" };
    const first = await rest("POST", "/ubicazioni", { key, body, headers });
    const again = await rest("POST", "/ubicazioni", { key, body, headers });
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(outcome(again)).toEqual(["creato"]);
    const other = await rest("POST", "/ubicazioni", {
      key,
      body: { ubicazioni: [{ ...body.ubicazioni[0], tipo: "quarantena" }] },
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.body.codice).toBe("chiave_idempotenza_riutilizzata");
    expect((await stored(m2, "IK-1")).tipo).toBe("stoccaggio");
  });

  test("the OpenAPI document: each row as the service checks it, at most 500, the row codes", async () => {
    const doc = (await rest("GET", "/openapi.json")).body;
    const op = doc.paths["/ubicazioni"].post;
    const list = op.requestBody.content["application/json"].schema.properties.ubicazioni;
    expect(list.maxItems).toBe(500);
    const row = doc.components.schemas[list.items.$ref.split("/").pop()];
    expect(row).toMatchObject({ additionalProperties: false });
    expect(row.required).toEqual(expect.arrayContaining(["magazzino", "codice"]));
    const codes = op.responses["200"].content["application/json"].schema.properties.righe.items.properties.errore.properties.codice.enum;
    expect(codes).toEqual(expect.arrayContaining(["codice_non_valido", "magazzino_non_trovato", "ubicazione_non_vuota"]));
    expect(doc.paths["/ubicazioni"].get).toBeDefined();
  });

  test("troppe_righe: more than 500 rows refuse the call, nothing written", async () => {
    const before = await countRows(t, "ubicazioni");
    const r = await post({
      ubicazioni: Array.from({ length: 501 }, (_, i) => ({ magazzino: "UB1", codice: `X-${i}`, tipo: "stoccaggio" })),
    });
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("troppe_righe");
    expect(await countRows(t, "ubicazioni")).toBe(before);
  });
});

describe("GET /ubicazioni", () => {
  test("filters magazzino, tipo, attiva, cerca; pages by id; the change feed by versione; an unknown warehouse is magazzino_non_trovato", async () => {
    const all = (await get("?limite=100")).body;
    expect(all.ubicazioni.length).toBeGreaterThan(5);
    expect(all.ubicazioni[0]).toEqual({
      id: expect.any(Number),
      magazzino: m1,
      codice: "RIC",
      descrizione: "Baia di ricevimento",
      tipo: "ricevimento",
      attiva: true,
      versione: expect.any(Number),
    });
    const m2rows = (await get(`?magazzino=${m2}`)).body.ubicazioni;
    expect(m2rows.every((u: { magazzino: number }) => u.magazzino === m2)).toBe(true);
    expect(m2rows.map((u: { codice: string }) => u.codice)).toEqual(["A-01-01", "376104250021234560", "0104", "RAMPA-3", "GATE-1", "IK-1"]);
    const ricevimento = (await get(`?magazzino=${m2}&tipo=ricevimento`)).body.ubicazioni;
    expect(ricevimento.map((u: { codice: string }) => u.codice)).toEqual(["RAMPA-3"]);
    const inactive = (await get(`?attiva=false`)).body.ubicazioni;
    expect(inactive.map((u: { codice: string }) => u.codice).sort()).toEqual(["PIENA", "VUOTA"]);
    const found = (await get(`?cerca=scaffale`)).body.ubicazioni;
    expect(found.map((u: { codice: string }) => u.codice)).toEqual(["A-01-01"]);

    // Paging: two at a time, all of them once.
    const seen: number[] = [];
    for (let dopo = 0, altri = true; altri; ) {
      const page = (await get(`?limite=2&dopo=${dopo}`)).body;
      seen.push(...page.ubicazioni.map((u: { id: number }) => u.id));
      ({ altri, cursore: dopo } = page);
    }
    expect(seen).toEqual(all.ubicazioni.map((u: { id: number }) => u.id));

    // The feed: a change after the stored cursor comes back, in its current state.
    const start = (await rest("GET", "/cursori", { key })).body.ubicazioni;
    await post({ ubicazioni: [{ magazzino: "UB2", codice: "0104", descrizione: "Bancale 4" }] });
    const feed = (await get(`?modificati_dopo=${start.modificati_dopo}`)).body;
    expect(feed.ubicazioni.map((u: { codice: string; descrizione: string }) => [u.codice, u.descrizione])).toEqual([["0104", "Bancale 4"]]);
    expect(feed.cursore_versione).toBe(feed.ubicazioni[0].versione);
    expect((await get(`?dopo=${start.dopo}`)).body.ubicazioni).toEqual([]);

    const unknown = await get("?magazzino=999999&dopo=999999999");
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ codice: "magazzino_non_trovato", campo: "magazzino" });
    const bad = await get("?tipo=scaffale");
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ codice: "filtro_non_valido" });
    const both = await get("?dopo=1&modificati_dopo=1");
    expect(both.body.codice).toBe("filtro_non_valido");
  });

  test("ubicazione.modificato: the location as GET /ubicazioni reads it, at commit, once per change", async () => {
    const from = (await rest("GET", "/cursori", { key })).body.eventi;
    await post({ ubicazioni: [{ magazzino: "UB2", codice: "Q-1", tipo: "quarantena", descrizione: "Quarantena" }] });
    await post({ ubicazioni: [{ magazzino: "UB2", codice: "Q-1", tipo: "quarantena", descrizione: "Quarantena" }] });
    const events = (await rest("GET", `/eventi?dopo=${from}&tipo=ubicazione.modificato`, { key })).body.eventi;
    const row = (await get(`?magazzino=${m2}&tipo=quarantena`)).body.ubicazioni[0];
    expect(events.map((e: { dati: unknown }) => e.dati)).toEqual([row]);
  });
});

// Last: it leaves an inactive location in the database, which the list tests above do not expect.
describe("deactivation against a queued load", () => {
  test("a load queued behind a deactivation reads the location as it committed: ubicazione_non_trovata, nothing written", async () => {
    const m3 = (await seedWarehouse(t.prisma, "UB3")).id;
    const ids = await seedLocations(t, m3, [
      { codice: "RIC-3", tipo: "ricevimento" },
      { codice: "DEST-3", tipo: "stoccaggio" },
    ]);
    await t.pool.query(`UPDATE magazzini SET gestione_ubicazioni = true, ubicazione_ricevimento_id = $2 WHERE id = $1`, [m3, ids["RIC-3"]]);
    const art = await seedArticle(t.prisma, "UB-QUEUED");
    // The deactivation, as the upsert does it: the location's gate exclusive, then its row, not yet committed.
    const closer = await t.pool.connect();
    try {
      await closer.query("BEGIN");
      await closer.query("SELECT pg_advisory_xact_lock($1::int, $2::int)", [LOCATION_GATE, ids["DEST-3"]]);
      await closer.query("UPDATE ubicazioni SET attiva = false WHERE id = $1", [ids["DEST-3"]]);
      const load = rest("POST", "/movimenti", {
        key,
        body: { natura: "carico", magazzino: m3, righe: [{ codice: art.codice, quantita: 2, ubicazione: "DEST-3" }] },
      });
      await untilWaiting(t.pool, "pg_advisory_xact_lock_shared");
      await closer.query("COMMIT");
      const answer = await load;
      expect(answer.body.righe[0].errore?.codice).toBe("ubicazione_non_trovata");
    } finally {
      await closer.query("ROLLBACK").catch(() => {});
      closer.release();
    }
    const held = await t.pool.query("SELECT count(*)::int AS n FROM giacenze_ubicazioni WHERE ubicazione_id = $1", [ids["DEST-3"]]);
    expect(held.rows[0].n).toBe(0);
  });
});
