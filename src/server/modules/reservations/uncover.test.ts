import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey } from "../../testing/fixtures";
import { notice, noticeGround, sscc } from "../../testing/notice-fixtures";
import { untilWaiting } from "../../testing/locks";
import { test } from "../../testing/test";
import { verifyLedger } from "../ledger/verify.service";
import { createEndpoint } from "../webhooks/webhooks.service";
import { testSettings, until, workersStoppedAfterEach } from "../webhooks/webhooks-testing";
import { uncoverHelpers } from "./uncover-testing";

/**
 * Facts may uncover a reservation (docs/api.md section 14, "The promise"): a count lowering stock, a cancelled
 * arrival, a cancelled pallet leave less than is held; `scoperta` falls on the newest reservations first, stock
 * that comes back covers the oldest first, each change records prenotazione.scoperta (and a new version, so
 * prenotazione.modificata and the feed) in the fact's transaction; verify finds a hold neither covered nor marked.
 */

let t: TestDb;
let g: Awaited<ReturnType<typeof noticeGround>>;
let h: ReturnType<typeof uncoverHelpers>;
const startWorker = workersStoppedAfterEach();

test.beforeAll(async ({ db }) => {
  t = db;
  g = await noticeGround(t);
  h = uncoverHelpers(t, g.key);
  for (const c of ["CNT", "ARR", "COL", "CUT", "NIL", "HOOK", "LOCK", "REL", "SHIP", "FREE", "WAIT", "DUP"]) await seedArticle(t.prisma, c);
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const load = await g.post("/movimenti", {
    natura: "carico",
    magazzino: g.m1,
    righe: [
      { codice: "CNT", quantita: 10 },
      { codice: "CUT", quantita: 10 },
      { codice: "NIL", quantita: 10 },
      { codice: "HOOK", quantita: 3 },
      { codice: "LOCK", quantita: 5 },
      { codice: "REL", quantita: 10 },
      { codice: "SHIP", quantita: 10 },
      { codice: "FREE", quantita: 10 },
      { codice: "WAIT", quantita: 5 },
      { codice: "DUP", quantita: 5 },
    ],
  });
  expect(load.body.rifiutate).toBe(0);
});

const align = (body: unknown) => g.post("/giacenze/allinea", body);

describe("a count lowering stock", () => {
  test("uncovers the newest first, each row at most its prenotata; an arrival covers the oldest first again", async () => {
    const p1 = await h.reserve("M1", "CNT", 6);
    const p2 = await h.reserve("M1", "CNT", 3);
    const p3 = await h.reserve("M1", "CNT", 1);
    const versions = [await h.versionOf(p1.id), await h.versionOf(p2.id), await h.versionOf(p3.id)];
    const before = await h.lastEvent();
    const counted = await align({ magazzino: g.m1, righe: [{ codice: "CNT", contato: 7 }] });
    expect(counted.body.scritte).toBe(1);
    // Held 10, 7 can cover them: 3 uncovered, 1 on the newest (all it holds), 2 on the one before it.
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "2", "1"]);
    expect(await h.factEvents(before, "giacenze.allineate")).toEqual(
      new Map([
        [p2.id, "2"],
        [p3.id, "1"],
      ]),
    );
    expect(await h.versionOf(p1.id)).toBe(versions[0]);
    expect(await h.versionOf(p2.id)).toBeGreaterThan(versions[1]!);
    expect(await h.versionOf(p3.id)).toBeGreaterThan(versions[2]!);
    // The change feed shows them, and GET /eventi renders the event as GET /prenotazioni reads the reservation.
    const feed = await rest("GET", `/prenotazioni?modificati_dopo=${Math.max(...versions)}`, { key: g.key });
    expect(feed.body.prenotazioni.map((p: { id: number }) => p.id)).toEqual([p2.id, p3.id]);
    const rendered = await h.renderedScoperte(before);
    expect(rendered.map((e) => [e.dati.id, e.dati.righe[0]!.scoperta])).toEqual([
      [p2.id, "2"],
      [p3.id, "1"],
    ]);
    expect(rendered[0]!.dati).toEqual(feed.body.prenotazioni[0]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);

    // Two pieces arrive: the deficit is 1, and it stays on the newest, so the older one is covered first.
    const o = await g.order("O-CNT", [[1, "CNT", 2]]);
    const again = await h.lastEvent();
    const arrived = await g.post("/arrivi", { magazzino: g.m1, ddt: "D-CNT", righe: [{ riga: o.righe[0]!.riga, quantita: 2 }] });
    expect(arrived.status).toBe(200);
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "1"]);
    expect(await h.factEvents(again, "arrivo.registrato")).toEqual(new Map([[p2.id, "0"]]));
    // One more piece by a count covers the last.
    const last = await h.lastEvent();
    await align({ magazzino: g.m1, righe: [{ codice: "CNT", contato: 10 }] });
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "0"]);
    expect(await h.factEvents(last, "giacenze.allineate")).toEqual(new Map([[p3.id, "0"]]));
  });

  test("a write that changes nothing uncovered records no reservation event", async () => {
    const p = await h.reserve("M1", "NIL", 4);
    const before = await h.lastEvent();
    const version = await h.versionOf(p.id);
    // 10 → 6: still 6 to cover the 4 held.
    await align({ magazzino: g.m1, righe: [{ codice: "NIL", contato: 6 }] });
    const { rows } = await t.pool.query("SELECT tipo FROM eventi WHERE id > $1 ORDER BY id", [before]);
    expect(rows.map((r) => r.tipo)).toEqual(["giacenze.allineate"]);
    expect(await h.versionOf(p.id)).toBe(version);
    expect(await h.uncovered(p.id)).toEqual(["0"]);
  });
});

describe("cancellations", () => {
  test("a cancelled arrival uncovers what its goods covered", async () => {
    const o = await g.order("O-ARR", [[1, "ARR", 5]]);
    const arrived = await g.post("/arrivi", { magazzino: g.m1, ddt: "D-ARR", righe: [{ riga: o.righe[0]!.riga, quantita: 5 }] });
    const p1 = await h.reserve("M1", "ARR", 1);
    const p2 = await h.reserve("M1", "ARR", 3);
    const before = await h.lastEvent();
    const c = await g.post(`/arrivi/${arrived.body.righe[0].movimento}/annulla`, {});
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["1", "3"]);
    expect(await h.factEvents(before, "arrivo.annullato")).toEqual(
      new Map([
        [p1.id, "1"],
        [p2.id, "3"],
      ]),
    );
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a cancelled pallet uncovers what it covered, and its new receipt covers it again", async () => {
    const o = await g.order("O-COL", [[1, "COL", 8]]);
    expect(o.righe).toHaveLength(1);
    await g.post("/avvisi-spedizione", {
      avvisi: [notice("AV-COL", [{ sscc: sscc(41), righe: [{ ordine: "O-COL", numero_riga: 1, quantita: 8 }] }])],
    });
    expect((await g.post(`/colli/${sscc(41)}/ricevi`, { ddt: "D-COL" })).status).toBe(200);
    await g.post("/movimenti", { natura: "carico", magazzino: g.m1, righe: [{ codice: "COL", quantita: 2 }] });
    const p1 = await h.reserve("M1", "COL", 5);
    const p2 = await h.reserve("M1", "COL", 4);
    const before = await h.lastEvent();
    const c = await g.post(`/colli/${sscc(41)}/annulla`, {});
    expect(c.status).toBe(200);
    // 2 pieces left for 9 held: the newest is all uncovered (4), the older one for 3 of its 5.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["3", "4"]);
    expect(await h.factEvents(before, "arrivo.annullato")).toEqual(
      new Map([
        [p1.id, "3"],
        [p2.id, "4"],
      ]),
    );
    const back = await h.lastEvent();
    expect((await g.post(`/colli/${sscc(41)}/ricevi`, { ddt: "D-COL-2" })).status).toBe(200);
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "0"]);
    expect(await h.factEvents(back, "arrivo.registrato")).toEqual(
      new Map([
        [p1.id, "0"],
        [p2.id, "0"],
      ]),
    );
  });

  test("a reservation cut by its upsert covers the others again, under the balance's lock", async () => {
    const p1 = await h.reserve("M1", "CUT", 6);
    const p2 = await h.reserve("M1", "CUT", 4);
    await align({ magazzino: g.m1, righe: [{ codice: "CUT", contato: 7 }] });
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "3"]);
    const before = await h.lastEvent();
    const cut = await rest("POST", "/prenotazioni", {
      key: g.key,
      body: {
        prenotazioni: [
          { riferimento: p1.riferimento, magazzino: "M1", cliente: "C1", righe: [{ numero_riga: 1, codice: "CUT", quantita: 4 }] },
        ],
      },
    });
    expect(cut.body.righe[0]).toMatchObject({ esito: "aggiornata", righe: [{ prenotata: "4" }] });
    // Held 8 for 7: 1 uncovered, on the newest.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "1"]);
    const { rows } = await t.pool.query("SELECT e.tipo, e.dati->>'id' AS id FROM eventi e WHERE e.id > $1 ORDER BY e.id", [before]);
    // The cut's own reservation took its version from the upsert; the other one from the uncovering.
    expect(rows).toEqual([
      { tipo: "prenotazione.scoperta", id: String(p2.id) },
      { tipo: "prenotazione.modificata", id: String(p1.id) },
      { tipo: "prenotazione.modificata", id: String(p2.id) },
    ]);
  });
});

describe("releases", () => {
  test("cancelling the oldest reservation covers the newest again, in the cancel's transaction", async () => {
    const p1 = await h.reserve("M1", "REL", 6);
    const p2 = await h.reserve("M1", "REL", 4);
    await align({ magazzino: g.m1, righe: [{ codice: "REL", contato: 7 }] });
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "3"]);
    const before = await h.lastEvent();
    expect((await g.post(`/prenotazioni/${p1.id}/annulla`, {})).body.stato).toBe("annullata");
    expect(await h.uncovered(p2.id)).toEqual(["0"]);
    const { rows } = await t.pool.query(
      "SELECT e.tipo, e.dati->>'id' AS id, e.xmin::text AS tx FROM eventi e WHERE e.id > $1 ORDER BY e.id",
      [before],
    );
    expect(rows.map((r) => [r.tipo, Number(r.id)])).toEqual([
      ["prenotazione.scoperta", p2.id],
      ["prenotazione.modificata", p2.id],
      ["prenotazione.modificata", p1.id],
    ]);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
  });
});

describe("an unload naming its reservation", () => {
  test("consumes the hold with the stock: nothing is uncovered, the others stay covered", async () => {
    const p1 = await h.reserve("M1", "SHIP", 6);
    const p2 = await h.reserve("M1", "SHIP", 4);
    const before = await h.lastEvent();
    const shipped = await g.post("/movimenti", {
      natura: "scarico",
      magazzino: g.m1,
      righe: [{ codice: "SHIP", quantita: 5, prenotazione: p1.id }],
    });
    expect(shipped.body, JSON.stringify(shipped.body)).toMatchObject({ scritte: 1, rifiutate: 0 });
    // 5 left for 1 + 4 held: covered, read after the consumption in the same write.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "0"]);
    const { rows } = await t.pool.query("SELECT e.tipo FROM eventi e WHERE e.id > $1 ORDER BY e.id", [before]);
    expect(rows.map((r) => r.tipo)).not.toContain("prenotazione.scoperta");
  });
});

describe("locks", () => {
  test("a reservation locked by its own writer does not stop the fact: its rows are uncovered, its version waits for that writer", async () => {
    const p = await h.reserve("M1", "LOCK", 4);
    const version = await h.versionOf(p.id);
    // Another writer of the reservation (an upsert holds it at level 2 and then waits for the balance the fact holds).
    const other = await t.pool.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT id FROM prenotazioni WHERE id = $1 FOR UPDATE", [p.id]);
      const before = await h.lastEvent();
      // The bound only ends a test that would hang (a fact waiting for the reservation): nothing is timed.
      let bound: NodeJS.Timeout | undefined;
      const counted = await Promise.race([
        align({ magazzino: g.m1, righe: [{ codice: "LOCK", contato: 1 }] }),
        new Promise<never>((_, reject) => {
          bound = setTimeout(() => reject(new Error("il conteggio aspetta la prenotazione bloccata")), 15_000);
        }),
      ]).finally(() => clearTimeout(bound));
      expect(counted.body.scritte).toBe(1);
      expect(await h.uncovered(p.id)).toEqual(["3"]);
      expect(await h.versionOf(p.id)).toBe(version);
      const { rows } = await t.pool.query("SELECT e.tipo FROM eventi e WHERE e.id > $1 ORDER BY e.id", [before]);
      expect(rows.map((r) => r.tipo)).toEqual(["giacenze.allineate", "prenotazione.scoperta"]);
    } finally {
      await other.query("ROLLBACK");
      other.release();
    }
  });
});

describe("the uncovering's own locks (banchina_scopri)", () => {
  test("a write that changes no share locks no held row: it commits while another transaction holds the row", async () => {
    const p = await h.reserve("M1", "FREE", 2);
    const gate = await t.pool.connect();
    try {
      await gate.query("BEGIN");
      await gate.query("SELECT id FROM righe_prenotazione WHERE prenotazione_id = $1 FOR UPDATE", [p.id]);
      const moved = await Promise.race([
        g.post("/movimenti", { natura: "carico", magazzino: g.m1, righe: [{ codice: "FREE", quantita: 1 }] }),
        // untilWaiting gives up (rejects) once the movement has long answered: nothing waited.
        untilWaiting(t.pool, "banchina_scopri").then(
          () => "in attesa della riga tenuta" as const,
          () => "mai" as const,
        ),
      ]);
      expect(moved).not.toBe("in attesa della riga tenuta");
      expect(await h.uncovered(p.id)).toEqual(["0"]);
    } finally {
      await gate.query("ROLLBACK");
      gate.release();
    }
  });

  test("a write that changes a share waits for a writer of the held row and shares what that writer left", async () => {
    const p = await h.reserve("M1", "WAIT", 4);
    const gate = await t.pool.connect();
    try {
      await gate.query("BEGIN");
      // A release that holds no balance (as the expiry sweep's): 2 of the 4 still held when it commits.
      await gate.query("UPDATE righe_prenotazione SET prenotata = 2 WHERE prenotazione_id = $1", [p.id]);
      const counted = align({ magazzino: g.m1, righe: [{ codice: "WAIT", contato: 1 }] });
      await untilWaiting(t.pool, "banchina_scopri");
      await gate.query("COMMIT");
      expect((await counted).body.scritte).toBe(1);
      // Shared on the 2 held once the release committed (1 covers them), not on the 4 read before the lock.
      expect(await h.uncovered(p.id)).toEqual(["1"]);
    } finally {
      await gate.query("ROLLBACK");
      gate.release();
    }
  });
});

describe("the uncovering's arguments", () => {
  test("a pair named twice is shared once", async () => {
    const p = await h.reserve("M1", "DUP", 4);
    await align({ magazzino: g.m1, righe: [{ codice: "DUP", contato: 3 }] });
    expect(await h.uncovered(p.id)).toEqual(["1"]);
    await t.pool.query("UPDATE righe_prenotazione SET scoperta = 0 WHERE prenotazione_id = $1", [p.id]);
    const pair = "ARRAY(SELECT articolo_id FROM righe_prenotazione WHERE prenotazione_id = $1)";
    await t.pool.query(`SELECT banchina_scopri(${pair} || ${pair}, ARRAY[$2::int, $2::int], current_date)`, [p.id, g.m1]);
    expect(await h.uncovered(p.id)).toEqual(["1"]);
  });
});

describe("verify and webhooks", () => {
  test("verify fails on a hold neither covered nor marked scoperta, by pair", async () => {
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
    const marked = await t.pool.query("SELECT id FROM righe_prenotazione WHERE scoperta > 0 ORDER BY id LIMIT 1");
    const row = marked.rows[0].id as number;
    await t.pool.query("UPDATE righe_prenotazione SET scoperta = 0 WHERE id = $1", [row]);
    try {
      const r = await verifyLedger(t.prisma);
      expect(r.ok).toBe(false);
      expect(r.differenze).toEqual([
        expect.objectContaining({ tipo: "prenotazioni_scoperte", chiave: expect.stringMatching(/^articolo \d+ magazzino \d+$/) }),
      ]);
    } finally {
      // Recomputed as a fact would: the database function, under this test's own transaction.
      await t.pool.query(
        "SELECT banchina_scopri(ARRAY(SELECT articolo_id FROM righe_prenotazione WHERE id = $1), ARRAY[$2::int], current_date)",
        [row, g.m1],
      );
    }
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a webhook may subscribe to prenotazione.scoperta; an unknown type is still refused", async ({ db }) => {
    const hook = await seedKey(db.prisma, ["lettura", "webhook"]);
    const created = await rest("POST", "/webhook", {
      key: hook.chiave,
      body: { url: "https://203.0.113.10/banchina/scoperte", eventi: ["prenotazione.scoperta", "prenotazione.modificata"] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.webhook.eventi).toEqual(["prenotazione.scoperta", "prenotazione.modificata"]);
    const wrong = await rest("POST", "/webhook", {
      key: hook.chiave,
      body: { url: "https://203.0.113.10/banchina/altro", eventi: ["prenotazione.scoperte"] },
    });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(wrong.body)).toContain("prenotazione.scoperta");
  });

  test("an endpoint subscribed to prenotazione.scoperta receives it, signed, when a fact uncovers a reservation", async ({ db }) => {
    const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/scoperte`;
      const { segreto } = await createEndpoint(
        db.prisma,
        "riga_di_comando",
        { url, eventi: ["prenotazione.scoperta"] },
        { allowPrivate: true, timeZone: "Europe/Rome" },
      );
      const p = await h.reserve("M1", "HOOK", 3);
      startWorker(db.prisma, db.url, testSettings());
      await align({ magazzino: g.m1, righe: [{ codice: "HOOK", contato: 1 }] });
      await until(() => got.length >= 1);
      const event = new Webhook(segreto).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as {
        tipo: string;
        dati: { id: number; righe: { prenotata: string; scoperta: string }[] };
      };
      expect(event.tipo).toBe("prenotazione.scoperta");
      expect(event.dati).toMatchObject({ id: p.id, righe: [{ prenotata: "3", scoperta: "2" }] });
      expect(got).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
