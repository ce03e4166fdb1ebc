import { describe, expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedKey } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { DomainError } from "../../lib/errors";
import { gtinCheckDigit } from "../../../lib/gtin";

/**
 * GET /cursori and `cursore_non_valido` (docs/api.md section 9): where a client starts every list "from now",
 * under the completeness promise of section 4 (a concurrent writer holding a lower id or version keeps
 * the cursor below it), and a cursor above anything the service ever issued refused on every list that
 * takes one, a wrong filter reported first.
 */

let t: TestDb;
let key: string;
let reader: string;
let m1: number;
let manager: Actor;
let operator: Actor;

const SEQUENCES = {
  movimenti: "movimenti_id_seq",
  documenti_vendita: "documenti_vendita_id_seq",
  clienti: "clienti_id_seq",
  articoli: "articoli_id_seq",
  fornitori: "fornitori_id_seq",
  magazzini: "magazzini_id_seq",
  ordini_acquisto: "ordini_acquisto_id_seq",
  eventi: "eventi_id_seq",
  ubicazioni: "ubicazioni_id_seq",
  avvisi_spedizione: "avvisi_spedizione_id_seq",
  differenze_ricevimento: "differenze_ricevimento_id_seq",
  prenotazioni: "prenotazioni_id_seq",
  versioni: "banchina_versioni",
} as const;

/** The list of each cursor, its response key, and whether it has a change feed. */
const LISTS = [
  ["movimenti", "/movimenti", "movimenti", false],
  ["documenti_vendita", "/documenti-vendita", "documenti", false],
  ["clienti", "/clienti", "clienti", true],
  ["articoli", "/articoli", "articoli", true],
  ["fornitori", "/fornitori", "fornitori", true],
  ["magazzini", "/magazzini", "magazzini", true],
  ["ordini_acquisto", "/ordini-acquisto", "ordini", true],
  ["eventi", "/eventi", "eventi", false],
  ["ubicazioni", "/ubicazioni", "ubicazioni", true],
  ["avvisi_spedizione", "/avvisi-spedizione", "avvisi", true],
  ["differenze_ricevimento", "/differenze-ricevimento", "differenze", false],
  ["prenotazioni", "/prenotazioni", "prenotazioni", true],
] as const;

/** An SSCC of this file's (company prefix 8007123): extension 3, a serial, the GS1 check digit. */
const sscc = (serial: number) => {
  const body = `38007123${String(serial).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

const post = (path: string, body: unknown) => rest("POST", path, { key, body });
const get = (path: string, k = reader) => rest("GET", path, { key: k });
const issued = async (seq: string) =>
  Number((await t.pool.query("SELECT coalesce(pg_sequence_last_value($1::regclass), 0) AS n", [seq])).rows[0].n);

/** One write of every synced kind: a movement, a sale, a client, an article, a supplier, a warehouse, a location, an order (and their events). */
async function writeOneOfEach(tag: string) {
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  ok(await post("/magazzini", { magazzini: [{ codice: `M-${tag}`, nome: "Magazzino" }] }));
  ok(await post("/fornitori", { fornitori: [{ codice: `F-${tag}`, nome: "Fornitore" }] }));
  ok(await post("/ubicazioni", { ubicazioni: [{ magazzino: `M-${tag}`, codice: `U-${tag}`, tipo: "stoccaggio" }] }));
  ok(await post("/articoli", { articoli: [{ codice: `A-${tag}`, descrizione: "Articolo" }] }));
  const cliente = ok(await post("/clienti", { clienti: [{ codice: `C-${tag}`, ragione_sociale: "Cliente" }] })).righe[0].id;
  const order = { numero: `O-${tag}`, fornitore: `F-${tag}`, data: "2026-11-20", magazzino: "M1", righe: [] as unknown[] };
  order.righe.push({ numero_riga: 1, articolo: `A-${tag}`, quantita: 1, prezzo: "1" });
  const written = ok(await post("/ordini-acquisto", { ordini: [order] }));
  expect(written.creati).toBe(1);
  // A shipping notice of that order, and a difference declared on it with nothing received.
  const notice = { numero: `AV-${tag}`, fornitore: `F-${tag}`, magazzino: "M1" };
  const colli = [{ sscc: sscc(700 + Number(tag)), righe: [{ ordine: `O-${tag}`, numero_riga: 1, quantita: 1 }] }];
  expect(ok(await post("/avvisi-spedizione", { avvisi: [{ ...notice, colli }] })).creati).toBe(1);
  const riga = written.righe[0].righe[0].riga;
  const difference = await post("/arrivi", {
    magazzino: m1,
    ddt: `DDT-${tag}`,
    riga,
    quantita: 0,
    differenza: { quantita: 1, motivo: "mancante" },
  });
  expect(difference.status, JSON.stringify(difference.body)).toBe(201);
  expect(ok(await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: `A-${tag}`, quantita: 5 }] })).scritte).toBe(1);
  const reservation = {
    riferimento: `P-${tag}`,
    magazzino: "M1",
    cliente: `C-${tag}`,
    righe: [{ numero_riga: 1, codice: `A-${tag}`, quantita: 1 }],
  };
  expect(ok(await post("/prenotazioni", { prenotazioni: [reservation] })).create).toBe(1);
  const sale = await caller(t, manager, "trpc").sales.create({
    tipo: "scontrino",
    cliente,
    magazzino: m1,
    righe: [{ codice: `A-${tag}`, quantita: 1, prezzo: "2", aliquota_iva: "22" }],
  });
  expect(sale.totale).toBe("2.44");
}

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  const user = async (ruolo: "responsabile" | "operatore") => {
    const u = await t.prisma.utente.create({ data: { username: `cur-${ruolo}`, password_hash: "-", ruolo } });
    return { kind: "utente" as const, id: u.id, username: u.username, ruolo };
  };
  manager = await user("responsabile");
  operator = await user("operatore");
  const m = await post("/magazzini", { magazzini: [{ codice: "M1", nome: "Principale" }] });
  m1 = m.body.righe[0].id;
  await writeOneOfEach("0");
});

describe("GET /cursori", () => {
  test("every list's cursor, each the highest id (version) issued while no writer is in flight", async () => {
    const r = await get("/cursori");
    expect(r.status).toBe(200);
    const v = await issued(SEQUENCES.versioni);
    const expected: Record<string, unknown> = {};
    for (const [name, , , feed] of LISTS) {
      const dopo = await issued(SEQUENCES[name]);
      expect(dopo, name).toBeGreaterThan(0);
      expected[name] = feed ? { dopo, modificati_dopo: v } : dopo;
    }
    expect(r.body).toEqual(expected);
  });

  test("from its cursors, each list and feed answers exactly what is written afterwards", async () => {
    const start = (await get("/cursori")).body;
    for (const [name, path, k, feed] of LISTS) {
      const c = feed ? start[name].dopo : start[name];
      expect((await get(`${path}?dopo=${c}`)).body, name).toEqual({ [k]: [], altri: false, cursore: c });
      if (feed) {
        const v = start[name].modificati_dopo;
        expect((await get(`${path}?modificati_dopo=${v}`)).body, name).toEqual({ [k]: [], altri: false, cursore_versione: v });
      }
    }
    await writeOneOfEach("1");
    for (const [name, path, k, feed] of LISTS) {
      const after = (await get(`${path}?dopo=${feed ? start[name].dopo : start[name]}&limite=100`)).body;
      expect(after.altri, name).toBe(false);
      expect(after[k].length, name).toBeGreaterThan(0);
      expect(after.cursore, name).toBe(await issued(SEQUENCES[name]));
      if (name === "clienti") expect(after[k].map((x: { codice: string }) => x.codice)).toEqual(["C-1"]);
      if (feed) {
        const changed = (await get(`${path}?modificati_dopo=${start[name].modificati_dopo}&limite=100`)).body[k];
        expect(changed.length, name).toBeGreaterThan(0);
        for (const row of changed) expect(row.versione, name).toBeGreaterThan(start[name].modificati_dopo);
      }
    }
    const events = (await get(`/eventi?dopo=${start.eventi}&limite=100`)).body.eventi;
    expect(new Set(events.map((e: { tipo: string }) => e.tipo))).toEqual(
      new Set([
        "magazzino.modificato",
        "ubicazione.modificato",
        "fornitore.modificato",
        "articolo.modificato",
        "cliente.modificato",
        "ordine_acquisto.modificato",
        "avviso_spedizione.modificato",
        "ricevimento.differenza",
        "movimenti.registrati",
        "documento_vendita.emesso",
        "prenotazione.modificata",
      ]),
    );
  });

  test("a writer holding a lower id and version keeps the cursors below them; committed, its rows are read from there", async () => {
    const held = await t.pool.connect();
    try {
      await held.query("BEGIN");
      const op = await held.query("INSERT INTO operazioni (origine) VALUES ('api') RETURNING id");
      const movement = Number(
        (
          await held.query(
            `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
             VALUES ($1, current_date, 'api', 'carico', $2, (SELECT id FROM articoli WHERE codice = 'A-0'), 1) RETURNING id`,
            [op.rows[0].id, m1],
          )
        ).rows[0].id,
      );
      const client = (
        await held.query(
          "INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C-LENTO', 'In attesa', current_date) RETURNING id, versione",
        )
      ).rows[0];
      const heldDifference = Number(
        (
          await held.query(
            `INSERT INTO differenze_ricevimento (data, fornitore_id, riga_ordine_id, articolo_id, ricevuta, quantita, motivo)
             SELECT data, fornitore_id, riga_ordine_id, articolo_id, 0, 1, 'mancante' FROM differenze_ricevimento ORDER BY id LIMIT 1
             RETURNING id`,
          )
        ).rows[0].id,
      );
      // Committed writes after it, with higher ids and versions.
      await writeOneOfEach("2");
      expect(await issued(SEQUENCES.movimenti)).toBeGreaterThan(movement);
      expect(await issued(SEQUENCES.clienti)).toBeGreaterThan(client.id);

      const during = (await get("/cursori")).body;
      expect(during.movimenti).toBe(movement - 1);
      expect(during.clienti.dopo).toBe(client.id - 1);
      expect(during.differenze_ricevimento).toBe(heldDifference - 1);
      expect(await issued(SEQUENCES.differenze_ricevimento)).toBeGreaterThan(heldDifference);
      expect(during.clienti.modificati_dopo).toBeLessThan(Number(client.versione));
      expect(during.articoli.modificati_dopo).toBe(during.clienti.modificati_dopo);
      // Lists nobody holds are not held back.
      expect(during.fornitori.dopo).toBe(await issued(SEQUENCES.fornitori));

      await held.query("COMMIT");
      const movements = (await get(`/movimenti?dopo=${during.movimenti}&limite=100`)).body.movimenti.map((m: { id: number }) => m.id);
      expect(movements[0]).toBe(movement);
      expect(movements.length).toBeGreaterThan(1);
      const clients = (await get(`/clienti?dopo=${during.clienti.dopo}&limite=100`)).body.clienti.map((c: { codice: string }) => c.codice);
      expect(clients).toEqual(["C-LENTO", "C-2"]);
      const differences = (await get(`/differenze-ricevimento?dopo=${during.differenze_ricevimento}&limite=100`)).body.differenze;
      expect(differences.map((d: { id: number }) => d.id)[0]).toBe(heldDifference);
      expect(differences.length).toBe(2);
      const changed = (await get(`/clienti?modificati_dopo=${during.clienti.modificati_dopo}&limite=100`)).body.clienti;
      expect(changed.map((c: { codice: string }) => c.codice)).toContain("C-LENTO");
    } finally {
      await held.query("ROLLBACK").catch(() => {});
      held.release();
    }
  });

  test("who may read it: a lettura key, a responsabile; not an operatore, not without a key; no parameter", async () => {
    expect((await get("/cursori")).status).toBe(200);
    expect((await rest("GET", "/cursori")).status).toBe(401);
    expect(await caller(t, manager, "trpc").cursors.starting({})).toMatchObject({ movimenti: expect.any(Number) });
    const refused = await caller(t, operator, "trpc")
      .cursors.starting({})
      .catch((e: { cause?: unknown }) => e.cause);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).codice).toBe("permesso_negato");
    const r = await get("/cursori?dopo=0");
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice: "filtro_non_valido", campo: "dopo" });
  });
});

describe("422 cursore_non_valido: a cursor above anything ever issued", () => {
  test("on every list, for `dopo`; the highest value issued is still a cursor", async () => {
    const lists = [
      ...LISTS.map(([name, path, k]) => [SEQUENCES[name], path, k] as const),
      [SEQUENCES.articoli, "/disponibilita", "disponibilita"] as const,
    ];
    for (const [seq, path, k] of lists) {
      const last = await issued(seq);
      const ok = await get(`${path}?dopo=${last}`);
      expect(ok.status, path).toBe(200);
      expect(ok.body).toMatchObject({ [k]: [], cursore: last });
      for (const dopo of [last + 1, 2_147_483_647]) {
        const r = await get(`${path}?dopo=${dopo}`);
        expect(r.status, `${path} ${dopo}`).toBe(422);
        expect(r.body).toMatchObject({ codice: "cursore_non_valido", campo: "dopo" });
        expect(r.body.messaggio).toContain(`'dopo' (${dopo})`);
        expect(r.body.messaggio).toContain("GET /cursori");
      }
    }
    // A cursor far past anything issued, on the events feed.
    expect((await get("/eventi?dopo=999999999")).body).toMatchObject({ codice: "cursore_non_valido", campo: "dopo" });
  });

  test("on every change feed, for `modificati_dopo`, above the versions' sequence", async () => {
    const last = await issued(SEQUENCES.versioni);
    for (const [, path, k, feed] of LISTS) {
      if (!feed) continue;
      expect((await get(`${path}?modificati_dopo=${last}`)).body, path).toEqual({ [k]: [], altri: false, cursore_versione: last });
      const r = await get(`${path}?modificati_dopo=${last + 1}`);
      expect(r.status, path).toBe(422);
      expect(r.body).toMatchObject({ codice: "cursore_non_valido", campo: "modificati_dopo" });
      expect(r.body.messaggio).toMatch(/versione emesso.*GET \/cursori.*da 0/);
    }
  });

  test("a wrong filter is reported before a wrong cursor", async () => {
    const huge = "dopo=2147483647";
    const unknownWarehouse = await get(`/disponibilita?magazzino=999999&${huge}`);
    expect(unknownWarehouse.body).toMatchObject({ codice: "magazzino_non_trovato", campo: "magazzino" });
    for (const path of ["/movimenti?limite=0", "/clienti?attivo=forse", "/eventi?tipo=nessuno", "/ordini-acquisto?da=2026-13-01"]) {
      const r = await get(`${path}&${huge}`);
      expect(r.body.codice, path).toBe("filtro_non_valido");
    }
    expect((await get(`/articoli?${huge}&modificati_dopo=1`)).body).toMatchObject({
      codice: "filtro_non_valido",
      campo: "modificati_dopo",
    });
    // A filter that is valid leaves the cursor's fault to be reported.
    expect((await get(`/disponibilita?magazzino=${m1}&${huge}`)).body).toMatchObject({ codice: "cursore_non_valido", campo: "dopo" });
  });
});
