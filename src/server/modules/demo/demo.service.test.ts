import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect } from "vitest";
import { businessDate } from "../../lib/dates";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { authenticateApiKey } from "../auth/api-keys.service";
import { signIn } from "../auth/sessions.service";
import { verifyLedger } from "../ledger/verify.service";
import { validateImport } from "../import/import.service";
import demoData from "./demo-data.json";
import { demoUsersWithFirstPassword, demoWarnings, removeDemo, seedDemoIfEmpty } from "./demo.service";

const TZ = "Europe/Rome";
let t: TestDb;
let dataDir: string;

test.beforeAll(async ({ db }) => {
  t = db;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-demo-"));
});
afterAll(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

let firstLines = "";
const seed = () => seedDemoIfEmpty(t.prisma, { dataDir, timeZone: TZ, log: () => {} });

describe("seedDemoIfEmpty", () => {
  test("the demo data is a valid import file", async () => {
    expect(await validateImport(demoData, t.prisma)).toEqual({ problemi: [] });
  });

  test("two instances starting together seed once", async () => {
    const results = await Promise.all([seed(), seed()]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    const { rows } = await t.pool.query(`SELECT (SELECT count(*) FROM magazzini)::int AS magazzini,
      (SELECT count(*) FROM chiavi_api)::int AS chiavi, (SELECT count(*) FROM operazioni)::int AS operazioni`);
    // Opening stock in three warehouses, one delivery note, three sales documents (switching on an empty
    // warehouse's locations writes no operation).
    expect(rows[0]).toEqual({ magazzini: 3, chiavi: 1, operazioni: 7 });

    const created = results.find((r) => r.created)!;
    firstLines = created.lines.join("\n");
    const keyFile = path.join(dataDir, "chiave-demo.txt");
    const key = fs.readFileSync(keyFile, "utf8").trim();
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(created.lines.join("\n")).toContain(
      `curl -H "Authorization: Bearer ${key}" "http://localhost:${process.env.PORT ?? 3000}/api/v1/movimenti?limite=5"`,
    );
    // The instance that found the data seeded shows the saved key, as does every later start.
    const other = results.find((r) => !r.created)!;
    expect(other.lines.join("\n")).toContain(key);
    expect(await seed()).toEqual({ created: false, lines: other.lines });
  });

  test("the demo key authenticates with write permission", async () => {
    const key = fs.readFileSync(path.join(dataDir, "chiave-demo.txt"), "utf8").trim();
    const actor = await authenticateApiKey(t.prisma, key, { perSecond: 50, burst: 200 });
    expect(actor).toMatchObject({ kind: "chiave", nome: "demo", permessi: ["lettura", "scrittura"] });
  });

  test("one user per role, saved in the data dir (0600), whose credentials open a session; printed at the first start only", async () => {
    const usersFile = path.join(dataDir, "utenti-demo.txt");
    expect(fs.statSync(usersFile).mode & 0o777).toBe(0o600);
    const saved = fs
      .readFileSync(usersFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(saved.map((f) => [f[0], f[2]])).toEqual([
      ["operatore", "operatore"],
      ["responsabile", "responsabile"],
      ["amministratore", "amministratore"],
    ]);
    const again = (await seed()).lines.join("\n");
    for (const [username, password, ruolo] of saved) {
      expect(password).toMatch(/^[a-z2-9]{12}$/);
      expect(firstLines).toContain(`${username} / ${password}`);
      // Logs keep what is printed: a later start never prints a password again.
      expect(again).not.toContain(password!);
      const opened = await signIn(t.prisma, { username: username!, password: password!, address: "demo-test" });
      expect(opened.utente).toMatchObject({ username, ruolo });
    }
    // Every start warns while a demo user keeps its first password; a changed one is no longer named.
    expect(await demoUsersWithFirstPassword(t.prisma, dataDir)).toEqual(["operatore", "responsabile", "amministratore"]);
    await t.pool.query("UPDATE utenti SET password_hash = 'altro' WHERE username = 'operatore'");
    const unchanged = await demoUsersWithFirstPassword(t.prisma, dataDir);
    expect(unchanged).toEqual(["responsabile", "amministratore"]);
    expect(demoWarnings(unchanged, dataDir).join("\n")).toMatch(
      /^ATTENZIONE: gli utenti dimostrativi responsabile, amministratore hanno ancora la password iniziale, salvata in .*utenti-demo\.txt\.\n.*npm run -s cli -- demo remove$/,
    );
    expect(demoWarnings([], dataDir)).toEqual([]);
  });

  test("a warehouse with locations: a receiving bay holding goods to put away, shelves holding stock, a quarantine bin, preferred locations; the ledger explains every location", async () => {
    const { rows: warehouse } = await t.pool.query(
      `SELECT m.gestione_ubicazioni, u.codice AS ricevimento FROM magazzini m JOIN ubicazioni u ON u.id = m.ubicazione_ricevimento_id
        WHERE m.codice = 'PD-LOGISTICA'`,
    );
    expect(warehouse).toEqual([{ gestione_ubicazioni: true, ricevimento: "RIC-01" }]);
    const { rows: kinds } = await t.pool.query(
      `SELECT u.tipo, count(*)::int AS n FROM ubicazioni u JOIN magazzini m ON m.id = u.magazzino_id
        WHERE m.codice = 'PD-LOGISTICA' GROUP BY 1 ORDER BY 1`,
    );
    expect(kinds).toEqual([
      { tipo: "quarantena", n: 1 },
      { tipo: "ricevimento", n: 1 },
      { tipo: "stoccaggio", n: 12 },
    ]);
    const { rows: held } = await t.pool.query(
      `SELECT u.tipo, count(*)::int AS n FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
        WHERE g.quantita > 0 GROUP BY 1 ORDER BY 1`,
    );
    expect(held).toEqual([
      { tipo: "quarantena", n: 1 },
      { tipo: "ricevimento", n: 3 },
      { tipo: "stoccaggio", n: 5 },
    ]);
    const { rows: preferred } = await t.pool.query(
      `SELECT a.codice, u.codice AS ubicazione FROM ubicazioni_preferite p JOIN articoli a ON a.id = p.articolo_id
         JOIN ubicazioni u ON u.id = p.ubicazione_id ORDER BY 1`,
    );
    expect(preferred.length).toBe(5);
    expect(preferred).toContainEqual({ codice: "SILIC-TRASP-280", ubicazione: "A-02-01" });
    // What each location holds is the sum of its movements, and the warehouse's balance the sum of its locations.
    const { rows: unexplained } = await t.pool.query(`
      SELECT g.id FROM giacenze_ubicazioni g
       WHERE g.quantita <> (SELECT coalesce(sum(quantita), 0) FROM movimenti m WHERE m.articolo_id = g.articolo_id
                              AND m.ubicazione_id = g.ubicazione_id AND m.lotto_id IS NOT DISTINCT FROM g.lotto_id)
      UNION ALL
      SELECT g.articolo_id FROM giacenze g JOIN magazzini m ON m.id = g.magazzino_id AND m.gestione_ubicazioni
       WHERE g.quantita <> (SELECT coalesce(sum(quantita), 0) FROM giacenze_ubicazioni s
                             WHERE s.articolo_id = g.articolo_id AND s.magazzino_id = g.magazzino_id)`);
    expect(unexplained).toEqual([]);
  });

  test("opening stock is written through the ledger, lots with expiry dates, orders dated in recent days", async () => {
    const movements = await t.prisma.movimento.findMany({ where: { origine: "api" }, include: { lotto: true, articolo: true } });
    expect(movements.length).toBeGreaterThan(10);
    for (const m of movements) {
      expect(m).toMatchObject({ origine: "api", natura: "carico", causale: "Giacenza iniziale demo" });
      expect(m.lotto !== null).toBe(m.articolo.gestione_lotti);
      if (m.lotto) expect(m.lotto.scadenza!.toISOString().slice(0, 10) > businessDate(TZ)).toBe(true);
    }
    const { rows: unbalanced } = await t.pool.query(`
      SELECT g.articolo_id FROM giacenze g
       WHERE g.quantita <> (SELECT sum(quantita) FROM movimenti m WHERE m.articolo_id = g.articolo_id AND m.magazzino_id = g.magazzino_id)`);
    expect(unbalanced).toEqual([]);

    const orders = await t.prisma.ordineAcquisto.findMany({
      orderBy: { data: "asc" },
      include: { righe: { include: { articolo: true } } },
    });
    expect(orders.map((o) => o.stato)).toEqual(["aperto", "parziale", "aperto", "aperto"]);
    const yesterday = new Date(`${businessDate(TZ)}T00:00:00Z`).getTime() - 86_400_000;
    expect(orders.at(-1)!.data.getTime()).toBe(yesterday);
    expect(yesterday - orders[0]!.data.getTime()).toBeLessThanOrEqual(7 * 86_400_000);
    const ordered = orders.flatMap((o) => o.righe.map((r) => r.articolo));
    expect(ordered.some((a) => a.gestione_lotti)).toBe(true);
    expect(ordered.some((a) => a.modello_id !== null)).toBe(true);
    expect(ordered.some((a) => a.ha_varianti)).toBe(false);
  });

  test("a saved key that no longer works is not shown as if it did", async () => {
    await t.pool.query(`UPDATE chiavi_api SET revocata_il = now() WHERE nome = 'demo'`);
    const again = await seed();
    expect(again.created).toBe(false);
    expect(again.lines.join("\n")).toMatch(/non è più valida/);
    expect(again.lines.join("\n")).not.toMatch(/bnc_/);
  });
});

test("the demo has lived a little: a partly received order, sales in every list, and a clean ledger", async () => {
  const { rows } = await t.pool.query(`SELECT origine, count(*)::int AS n FROM movimenti GROUP BY origine ORDER BY origine`);
  expect(rows.map((r) => r.origine)).toEqual(["api", "arrivo", "vendita"]);
  const docs = await t.pool.query(`SELECT tipo, numero FROM documenti_vendita ORDER BY id`);
  expect(docs.rows.map((d) => d.tipo)).toEqual(["ddt", "fattura", "scontrino"]);
  expect(docs.rows.every((d) => /^\d{4}\/000001$/.test(d.numero))).toBe(true);
  expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
});

describe("removeDemo (npm run -s cli -- demo remove)", () => {
  test("refused while the demo administrator is the only one", async () => {
    await expect(removeDemo(t.prisma, { dataDir })).rejects.toMatchObject({ codice: "ultimo_amministratore" });
    expect(fs.existsSync(path.join(dataDir, "utenti-demo.txt"))).toBe(true);
  });

  test("removes the demo users, revokes the demo key, deletes the files; the data set stays", async () => {
    const { createUser } = await import("../users/users.service");
    await createUser(t.prisma, { username: "titolare", password: "una frase lunga e mia", ruolo: "amministratore" });
    // A demo user with a history keeps its name on what it wrote: deactivated, not deleted.
    const responsabile = await t.prisma.utente.findUniqueOrThrow({ where: { username: "responsabile" } });
    await t.pool.query("INSERT INTO operazioni (origine, utente_id) VALUES ('schermo', $1)", [responsabile.id]);
    // A test above revoked it: live again, as at a first start.
    await t.pool.query("UPDATE chiavi_api SET revocata_il = NULL WHERE nome = 'demo'");
    const key = fs.readFileSync(path.join(dataDir, "chiave-demo.txt"), "utf8").trim();
    const articles = await t.prisma.articolo.count();

    const r = await removeDemo(t.prisma, { dataDir });
    expect(r).toEqual({
      utentiRimossi: ["operatore", "amministratore"],
      utentiDisattivati: ["responsabile"],
      chiaveRevocata: "demo",
      fileRimossi: [path.join(dataDir, "utenti-demo.txt"), path.join(dataDir, "chiave-demo.txt")],
    });
    const users = await t.prisma.utente.findMany({ orderBy: { username: "asc" }, select: { username: true, attivo: true } });
    expect(users).toEqual([
      { username: "responsabile", attivo: false },
      { username: "titolare", attivo: true },
    ]);
    await expect(authenticateApiKey(t.prisma, key, { perSecond: 50, burst: 200 })).rejects.toMatchObject({ codice: "non_autenticato" });
    expect(fs.readdirSync(dataDir)).toEqual([]);
    expect(await t.prisma.articolo.count()).toBe(articles);
    expect(await demoUsersWithFirstPassword(t.prisma, dataDir)).toEqual([]);
    // The administrative log keeps the removal, by the command line.
    const { rows: log } = await t.pool.query(
      "SELECT autore_tipo, azione, dettagli FROM registro_amministrativo WHERE azione = 'demo.rimossa' ORDER BY id DESC LIMIT 1",
    );
    expect(log[0]).toEqual({
      autore_tipo: "riga_di_comando",
      azione: "demo.rimossa",
      dettagli: "utenti rimossi: operatore, amministratore; utenti disattivati: responsabile; chiave revocata: demo",
    });
    // Again: nothing left to remove.
    expect(await removeDemo(t.prisma, { dataDir })).toEqual({
      utentiRimossi: [],
      utentiDisattivati: [],
      chiaveRevocata: null,
      fileRimossi: [],
    });
  });
});
