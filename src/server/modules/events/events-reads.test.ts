import { describe, expect } from "vitest";
import { MAX_MOVEMENT_ROWS } from "../movements/movements.schemas";
import { MAX_PAGE_MOVEMENTS } from "./events.service";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import {
  type Evento,
  eventsAfter,
  get,
  holdMovement,
  key,
  lastSeq,
  listed,
  m1,
  movementsOf,
  post,
  seedEventsBeforeAll,
  t,
  types,
} from "./events-testing";

/**
 * Events (docs/api.md section 10): GET /eventi's filters and page budget, its completeness promise under concurrent
 * writers (section 4), and the table's refusal of anything but INSERT. The reads of a whole history are in
 * events-writes-stock.test.ts, after the writes that make it.
 */

seedEventsBeforeAll();

// ---- GET /eventi: filters and paging -------------------------------------------------------------------

describe("GET /eventi", () => {
  test("an unknown or repeated type, a parameter given twice, limite out of range: 422 filtro_non_valido naming the field", async () => {
    const cases: [string, string | RegExp][] = [
      ["tipo=ordine.creato", "tipo"],
      ["tipo=articolo.modificato,ordine.creato", "tipo"],
      ["tipo=articolo.modificato,articolo.modificato", "tipo"],
      ["tipo=", "tipo"],
      ["tipo=articolo.modificato&tipo=cliente.modificato", "tipo"],
      ["limite=101", "limite"],
      ["limite=0", "limite"],
      ["dopo=-1", "dopo"],
      ["dopo=abc", "dopo"],
      ["sconosciuto=1", "sconosciuto"],
    ];
    for (const [qs, campo] of cases) {
      const r = await rest("GET", `/eventi?${qs}`, { key });
      expect(r.status, qs).toBe(422);
      expect(r.body.codice, qs).toBe("filtro_non_valido");
      if (typeof campo === "string") expect(r.body.campo, qs).toBe(campo);
      else expect(r.body.campo, qs).toMatch(campo);
      expect(r.body.messaggio, qs).toMatch(/^Parametro|^Il parametro/);
    }
    const unknown = await rest("GET", "/eventi?tipo=articolo.modificato,ordine.creato", { key });
    expect(unknown.body.messaggio).toContain("'ordine.creato'");
    expect(unknown.body.messaggio).toContain("movimenti.registrati");
    expect((await rest("GET", "/eventi?limite=100", { key })).status).toBe(200);
  });

  test("a page stops before the event that would take its movements past MAX_PAGE_MOVEMENTS; paging on loses none", async () => {
    const before = await lastSeq();
    const calls = MAX_PAGE_MOVEMENTS / MAX_MOVEMENT_ROWS + 1;
    const righe = Array.from({ length: MAX_MOVEMENT_ROWS }, () => ({ codice: "B", quantita: 1 }));
    for (let i = 0; i < calls; i++) {
      const r = await post("/movimenti", { natura: "carico", magazzino: m1, righe });
      expect(r.body.scritte, JSON.stringify(r.body)).toBe(MAX_MOVEMENT_ROWS);
      // A master-data event between them carries no movement: it never stops a page.
      await post("/fornitori", { fornitori: [{ codice: `FB${i}`, nome: `Fornitore ${i}` }] });
    }
    const first = await get(`/eventi?dopo=${before}&limite=100`);
    const carried = (p: { eventi: Evento[] }) => p.eventi.reduce((n, e) => n + (e.dati.movimenti?.length ?? 0), 0);
    // 10 calls of 500 fill the budget exactly, with the supplier after the 10th: the 11th call's event would pass it.
    expect(types(first.eventi)).toEqual(Array.from({ length: calls - 1 }, () => ["movimenti.registrati", "fornitore.modificato"]).flat());
    expect(carried(first)).toBe(MAX_PAGE_MOVEMENTS);
    expect(first.altri).toBe(true);
    expect(first.cursore).toBe(first.eventi.at(-1).sequenza);
    const second = await get(`/eventi?dopo=${first.cursore}&limite=100`);
    expect(types(second.eventi)).toEqual(["movimenti.registrati", "fornitore.modificato"]);
    expect(second.altri).toBe(false);
    // Together, every event recorded, once, in order: as the table holds them.
    const table = (await t.pool.query("SELECT id FROM eventi WHERE id > $1 ORDER BY id", [before])).rows.map((r) => r.id);
    expect([...first.eventi, ...second.eventi].map((e) => e.sequenza)).toEqual(table);
  });
});

// ---- completeness --------------------------------------------------------------------------------------

describe("completeness under concurrent writers", () => {
  test("an event held by an open transaction holds the cursor back until it commits; then both, none twice", async () => {
    const start = await lastSeq();
    const held = await holdMovement();
    try {
      const low = held.event;
      expect(low).toBeGreaterThan(start);
      const high = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      expect(high.status).toBe(200);
      const highSeq = await lastSeq();
      expect(highSeq).toBeGreaterThan(low);

      // Without the gate, a reader would see the higher event now and store it as its cursor.
      const naive = await t.pool.query("SELECT id FROM eventi WHERE id > $1 ORDER BY id", [start]);
      expect(naive.rows.map((r) => r.id)).toEqual([highSeq]);

      const during = await get(`/eventi?dopo=${start}`);
      expect(during).toEqual({ eventi: [], altri: true, cursore: start });
      const filtered = await get(`/eventi?dopo=${start}&tipo=movimenti.registrati&limite=1`);
      expect(filtered).toEqual({ eventi: [], altri: true, cursore: start });

      await held.commit();
      const seen: number[] = [];
      let cursor = during.cursore as number;
      for (let i = 0; i < 10; i++) {
        const r = await get(`/eventi?dopo=${cursor}&limite=1`);
        seen.push(...r.eventi.map((e: Evento) => e.sequenza));
        cursor = r.cursore;
        if (!r.altri) break;
      }
      expect(seen).toEqual([low, highSeq]);
      const both = await eventsAfter(start);
      expect(both.map((e) => e.dati.operazione)).toEqual([held.operazione, high.body.operazione]);
      expect(both[0]!.dati).toEqual({ operazione: held.operazione, movimenti: await movementsOf(held.operazione) });
    } finally {
      await held.rollback();
    }
  });

  test("a rolled-back held event does not block the readers", async () => {
    const start = await lastSeq();
    const held = await holdMovement();
    let high: Awaited<ReturnType<typeof post>>;
    try {
      high = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      expect((await get(`/eventi?dopo=${start}`)).eventi).toEqual([]);
    } finally {
      await held.rollback();
    }
    const after = await eventsAfter(start);
    expect(after.map((e) => e.dati.operazione)).toEqual([high.body.operazione]);
  });

  test("a master-data change committed after a reader passed later events is still delivered, after them", async () => {
    const start = await lastSeq();
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const id = (
        await c.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('EV-LENTO', 'Lento', current_date) RETURNING id")
      ).rows[0].id as number;
      const other = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      const first = await get(`/eventi?dopo=${start}`);
      expect(first.eventi.map((e: Evento) => e.dati.operazione)).toEqual([other.body.operazione]);
      await c.query("COMMIT");
      const next = await get(`/eventi?dopo=${first.cursore}`);
      expect(next.eventi.map((e: Evento) => [e.tipo, e.dati.id])).toEqual([["cliente.modificato", id]]);
      expect(next.eventi[0].dati).toEqual(await listed("/clienti", "clienti", id));
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });

  test("writers racing a reader: the reader sees every event exactly once, in order", async () => {
    const from = await lastSeq();
    let writing = true;
    const apiWriters = Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; i < 12; i++) {
        if (i % 3 === 0) await post("/clienti", { clienti: [{ codice: `EV-RACE-${w}-${i}`, ragione_sociale: "Gara" }] });
        else await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      }
    });
    const slowWriters = Array.from({ length: 2 }, async () => {
      for (let i = 0; i < 10; i++) {
        const held = await holdMovement();
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 15));
        await held.commit();
      }
    });
    const seen: number[] = [];
    let reads = 0;
    const reader = (async () => {
      let cur = from;
      for (;;) {
        const done = !writing;
        const r = await get(`/eventi?limite=5&dopo=${cur}`);
        reads++;
        seen.push(...r.eventi.map((e: Evento) => e.sequenza));
        cur = r.cursore;
        if (done && !r.altri) break;
      }
    })();
    await Promise.all([...apiWriters, ...slowWriters]);
    writing = false;
    await reader;
    const all = (await t.pool.query("SELECT id FROM eventi WHERE id > $1 ORDER BY id", [from])).rows.map((r) => r.id);
    expect(all.length).toBe(3 * 12 + 2 * 10);
    expect(seen).toEqual(all);
    expect(reads).toBeGreaterThan(3);
  });
});

// ---- append-only -------------------------------------------------------------------------------------------

describe("the eventi table is append-only", () => {
  test("UPDATE, DELETE and TRUNCATE are refused by the database; the rows stay as they were", async () => {
    const before = (await t.pool.query("SELECT id, uid, tipo, dati FROM eventi ORDER BY id")).rows;
    expect(before.length).toBeGreaterThan(0);
    const id = before[0].id;
    // [statement, SQLSTATE, message]: the trigger refuses every UPDATE and DELETE (restrict_violation);
    // a plain TRUNCATE stops first at the webhook deliveries' foreign key, a CASCADE one at the trigger.
    const attempts: [string, unknown[], string, RegExp][] = [
      ["UPDATE eventi SET tipo = 'articolo.modificato' WHERE id = $1", [id], "23001", /eventi è un registro in sola aggiunta: UPDATE/],
      ["UPDATE eventi SET dati = '{}'::jsonb", [], "23001", /eventi è un registro in sola aggiunta: UPDATE/],
      ["DELETE FROM eventi WHERE id = $1", [id], "23001", /eventi è un registro in sola aggiunta: DELETE/],
      ["DELETE FROM eventi", [], "23001", /eventi è un registro in sola aggiunta: DELETE/],
      ["TRUNCATE eventi", [], "0A000", /foreign key/],
      ["TRUNCATE eventi CASCADE", [], "23001", /eventi è un registro in sola aggiunta: TRUNCATE/],
    ];
    for (const [sql, params, code, message] of attempts) {
      const err = await t.pool.query(sql, params).then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect(err, sql).not.toBeNull();
      expect(err!.code, sql).toBe(code);
      expect(err!.message, sql).toMatch(message);
    }
    expect((await t.pool.query("SELECT id, uid, tipo, dati FROM eventi ORDER BY id")).rows).toEqual(before);
  });
});
