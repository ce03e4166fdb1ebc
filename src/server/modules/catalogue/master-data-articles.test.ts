import { describe, expect } from "vitest";
import { MASTER_DATA_LOCKS } from "../../db/advisory-locks";
import { caller, countRows, rest, seedOrder, seedSupplier } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { article, articoli, ean, load, m1, outcome, post, reader, seedMasterDataBeforeAll, t, table } from "./master-data-testing";

/**
 * POST /articoli (docs/api.md section 9): upserts by code with per-row outcomes, every row refusal code with nothing
 * written for the refused row and the others written, repeats that write nothing (no UPDATE: the rows' xmin stays),
 * variants by `modello`, the lot flag locked by a movement, Idempotency-Key.
 */

seedMasterDataBeforeAll();

describe("POST /articoli", () => {
  test("creates, then a repeat is invariato and writes nothing (counts, versions, xmin unchanged), then updates only what differs", async () => {
    const rows = [
      { codice: "A-VITE", descrizione: "Vite M6", ean: ean(1), costo: "0.12" },
      { codice: "A-LATTE", descrizione: "Latte", gestione_lotti: true, unita: "LT", costo: 1.5 },
      { codice: "A-DADO", descrizione: "Dado", attivo: false },
    ];
    const first = await articoli(rows);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ creati: 3, aggiornati: 0, invariati: 0, rifiutati: 0 });
    expect(first.body.righe.map((r: { indice: number; codice: string; esito: string }) => [r.indice, r.codice, r.esito])).toEqual([
      [0, "A-VITE", "creato"],
      [1, "A-LATTE", "creato"],
      [2, "A-DADO", "creato"],
    ]);
    expect(await article("A-LATTE")).toMatchObject({
      unita: "LT",
      gestione_lotti: true,
      costo: "1.5000",
      attivo: true,
      ha_varianti: false,
    });
    expect(await article("A-DADO")).toMatchObject({ unita: "PZ", gestione_lotti: false, costo: null, ean: null, attivo: false });
    const ids = first.body.righe.map((r: { id: number }) => r.id);
    expect(ids.every((id: number) => id > 0)).toBe(true);

    const before = await table("articoli");
    const again = await articoli(rows);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ creati: 0, aggiornati: 0, invariati: 3, rifiutati: 0 });
    expect(again.body.righe.map((r: { id: number }) => r.id)).toEqual(ids);
    expect(await table("articoli")).toEqual(before);

    const changed = await articoli([
      { codice: "A-VITE", descrizione: "Vite M6 zincata" },
      { codice: "A-DADO", descrizione: "Dado" },
    ]);
    expect(outcome(changed)).toEqual(["aggiornato", "invariato"]);
    const after = await table("articoli");
    const vite = (rows: { codice: string }[]) => rows.find((r) => r.codice === "A-VITE") as Record<string, unknown>;
    expect(Number(vite(after).versione)).toBeGreaterThan(Number(vite(before).versione));
    // A field left out keeps its value.
    expect(await article("A-VITE")).toMatchObject({ descrizione: "Vite M6 zincata", ean: ean(1), costo: "0.1200" });
    const others = (rows: { codice: string }[]) => rows.filter((r) => r.codice !== "A-VITE");
    expect(others(after)).toEqual(others(before));
  });

  test("null clears an optional field; attivo toggles; a required field cannot be cleared", async () => {
    await articoli([{ codice: "A-NULL", descrizione: "Da svuotare", ean: ean(2), costo: "3" }]);
    const r = await articoli([{ codice: "A-NULL", ean: null, costo: null, attivo: false }]);
    expect(outcome(r)).toEqual(["aggiornato"]);
    expect(await article("A-NULL")).toMatchObject({ ean: null, costo: null, attivo: false, descrizione: "Da svuotare" });
    const bad = await articoli([{ codice: "A-NULL", descrizione: null }]);
    expect(outcome(bad)).toEqual(["campo_non_valido"]);
    expect(bad.body.righe[0].errore.messaggio).toContain("descrizione");
    expect(bad.body.righe[0].id).toBe((await article("A-NULL")).id);
  });

  test("every row refusal code, each with nothing written for its row and the other rows written", async () => {
    await articoli([{ codice: "R-HOLD", descrizione: "Ha l'EAN", ean: ean(10) }]);
    await articoli([{ codice: "R-LOT", descrizione: "A lotti" }]);
    await load("R-LOT");
    const articlesBefore = await countRows(t, "articoli");
    const lotBefore = await table("articoli", "codice = 'R-LOT'");
    const r = await articoli([
      { descrizione: "senza codice" },
      { codice: 42, descrizione: "codice numerico" },
      { codice: "   ", descrizione: "codice vuoto" },
      { codice: "R-TWICE", descrizione: "prima" },
      { codice: "R-OK-1", descrizione: "buona" },
      { codice: "R-TWICE", descrizione: "seconda" },
      { codice: "R-EAN", descrizione: "EAN altrui", ean: ean(10) },
      { codice: "R-LOT", gestione_lotti: true },
      { codice: "R-VAR", descrizione: "variante orfana", modello: "NON-ESISTE" },
      { codice: "R-BADEAN", descrizione: "EAN errato", ean: "8001234567890" },
      { codice: "R-EXTRA", descrizione: "campo in più", colore: "rosso" },
      { codice: "R-NEW" },
      { codice: "R-COST", descrizione: "costo negativo", costo: "-1" },
      { codice: "R-OK-2", descrizione: "buona anche lei", ean: ean(11) },
    ]);
    expect(r.status).toBe(200);
    expect(outcome(r)).toEqual([
      "codice_non_valido",
      "codice_non_valido",
      "codice_non_valido",
      "codice_ripetuto",
      "creato",
      "codice_ripetuto",
      "ean_in_uso",
      "gestione_lotti_bloccata",
      "modello_non_trovato",
      "campo_non_valido",
      "campo_non_valido",
      "campo_non_valido",
      "campo_non_valido",
      "creato",
    ]);
    expect(r.body).toMatchObject({ creati: 2, aggiornati: 0, invariati: 0, rifiutati: 12 });
    const msg = (i: number) => r.body.righe[i].errore.messaggio as string;
    expect(msg(6)).toContain("R-HOLD");
    expect(msg(9)).toContain("'ean'");
    expect(msg(10)).toContain("'colore'");
    expect(msg(11)).toContain("'descrizione'");
    expect(msg(12)).toContain("'costo'");
    expect(r.body.righe[0].codice).toBeNull();
    expect(r.body.righe[7].id).toBe(lotBefore[0].id);
    // Only the two good rows were written.
    expect(await countRows(t, "articoli")).toBe(articlesBefore + 2);
    for (const c of ["R-TWICE", "R-EAN", "R-VAR", "R-BADEAN", "R-EXTRA", "R-NEW", "R-COST"]) expect(await article(c)).toBeUndefined();
    expect(await table("articoli", "codice = 'R-LOT'")).toEqual(lotBefore);
    expect(await article("R-OK-2")).toMatchObject({ ean: ean(11) });
  });

  test("two rows giving one EAN: the second is ean_in_uso", async () => {
    const r = await articoli([
      { codice: "E-1", descrizione: "primo", ean: ean(20) },
      { codice: "E-2", descrizione: "secondo", ean: ean(20) },
    ]);
    expect(outcome(r)).toEqual(["creato", "ean_in_uso"]);
    expect(await article("E-2")).toBeUndefined();
  });

  test("lot handling, unit and template are free until the first movement, then locked", async () => {
    await articoli([{ codice: "L-1", descrizione: "Prima dei movimenti" }]);
    expect(outcome(await articoli([{ codice: "L-1", gestione_lotti: true, unita: "KG" }]))).toEqual(["aggiornato"]);
    expect(outcome(await articoli([{ codice: "L-1", gestione_lotti: false, unita: "PZ" }]))).toEqual(["aggiornato"]);
    await load("L-1");
    const before = await table("articoli", "codice = 'L-1'");
    const r = await articoli([{ codice: "L-1", gestione_lotti: true }]);
    expect(outcome(r)).toEqual(["gestione_lotti_bloccata"]);
    expect(r.body.righe[0].errore.messaggio).toContain("movimenti");
    expect(outcome(await articoli([{ codice: "L-1", unita: "KG" }]))).toEqual(["campo_non_valido"]);
    // Sending the value it already has is no change.
    expect(outcome(await articoli([{ codice: "L-1", gestione_lotti: false, unita: "PZ" }]))).toEqual(["invariato"]);
    expect(await table("articoli", "codice = 'L-1'")).toEqual(before);
  });

  test("variants by modello: template and variants in one call, in any order; variants inherit lots and unit; the template is marked", async () => {
    const r = await articoli([
      { codice: "G-M", descrizione: "Guanto M", modello: "G" },
      { codice: "G", descrizione: "Guanto", gestione_lotti: true, unita: "PA" },
      { codice: "G-L", descrizione: "Guanto L", modello: "G", ean: ean(30) },
    ]);
    expect(outcome(r)).toEqual(["creato", "creato", "creato"]);
    expect(await article("G")).toMatchObject({ ha_varianti: true, modello: null });
    expect(await article("G-M")).toMatchObject({ modello: "G", gestione_lotti: true, unita: "PA", ha_varianti: false });
    expect(await article("G-L")).toMatchObject({ modello: "G", ean: ean(30) });
    const before = await table("articoli", "codice LIKE 'G%'");
    expect(outcome(await articoli([{ codice: "G-M", descrizione: "Guanto M", modello: "G" }]))).toEqual(["invariato"]);
    expect(await table("articoli", "codice LIKE 'G%'")).toEqual(before);

    // A registered article becomes a template when a variant names it.
    await articoli([{ codice: "T-2", descrizione: "Diventerà modello" }]);
    expect(outcome(await articoli([{ codice: "T-2-A", descrizione: "Variante", modello: "T-2" }]))).toEqual(["creato"]);
    expect(await article("T-2")).toMatchObject({ ha_varianti: true });
    // An existing plain article can become a variant, and leave it, while it has no movements.
    await articoli([{ codice: "P-1", descrizione: "Semplice" }]);
    expect(outcome(await articoli([{ codice: "P-1", modello: "T-2" }]))).toEqual(["aggiornato"]);
    expect(await article("P-1")).toMatchObject({ modello: "T-2" });
    expect(outcome(await articoli([{ codice: "P-1", modello: null }]))).toEqual(["aggiornato"]);
    expect(await article("P-1")).toMatchObject({ modello: null });
    // A template stays a template.
    expect(await article("T-2")).toMatchObject({ ha_varianti: true });
  });

  test("a variant updated without repeating modello keeps its template: invariato or aggiornato, never a 500, the call's other rows written", async () => {
    await articoli([
      { codice: "V-TPL", descrizione: "Guanti nitrile" },
      { codice: "V-TPL-M", descrizione: "Guanti nitrile M", modello: "V-TPL" },
      { codice: "V-TPL-L", descrizione: "Guanti nitrile L", modello: "V-TPL" },
    ]);
    await load("V-TPL-M");
    const before = await table("articoli", "codice LIKE 'V-%'");
    // An integrator's usual call: a variant, `attivo` as stored, `modello` left out.
    const same = await articoli([
      { codice: "V-TPL-M", attivo: true },
      { codice: "V-NEW", descrizione: "Nuovo nella stessa chiamata" },
    ]);
    expect(same.status).toBe(200);
    expect(outcome(same)).toEqual(["invariato", "creato"]);
    expect(await table("articoli", "codice LIKE 'V-TPL%'")).toEqual(before.filter((r) => r.codice.startsWith("V-TPL")));
    expect(await article("V-NEW")).toMatchObject({ descrizione: "Nuovo nella stessa chiamata", modello: null });

    // Other fields of a variant (one with movements, one without), its template, and a variant leaving its template.
    const changed = await articoli([
      { codice: "V-TPL-M", descrizione: "Guanti nitrile taglia M", attivo: false },
      { codice: "V-TPL", descrizione: "Guanti in nitrile" },
      { codice: "V-TPL-L", modello: null },
      { codice: "V-TPL-M2", descrizione: "Nuova variante", modello: "V-TPL" },
    ]);
    expect(outcome(changed)).toEqual(["aggiornato", "aggiornato", "aggiornato", "creato"]);
    expect(await article("V-TPL-M")).toMatchObject({ descrizione: "Guanti nitrile taglia M", attivo: false, modello: "V-TPL" });
    expect(await article("V-TPL")).toMatchObject({ descrizione: "Guanti in nitrile", ha_varianti: true, modello: null });
    expect(await article("V-TPL-L")).toMatchObject({ modello: null });
    expect(await article("V-TPL-M2")).toMatchObject({ modello: "V-TPL" });
    // Repeated, the same rows change nothing; a variant with movements may not leave its template.
    const again = await articoli([
      { codice: "V-TPL-M", descrizione: "Guanti nitrile taglia M" },
      { codice: "V-TPL", descrizione: "Guanti in nitrile" },
      { codice: "V-TPL-M", attivo: false },
    ]);
    expect(outcome(again)).toEqual(["codice_ripetuto", "invariato", "codice_ripetuto"]);
    const leave = await articoli([
      { codice: "V-TPL-M", modello: null },
      { codice: "V-TPL-M2", attivo: true },
    ]);
    expect(outcome(leave)).toEqual(["campo_non_valido", "invariato"]);
    expect(await article("V-TPL-M")).toMatchObject({ modello: "V-TPL" });
  });

  test("what cannot be a template, or a variant, is refused with nothing written", async () => {
    await articoli([
      { codice: "S-STOCK", descrizione: "Con movimenti" },
      { codice: "S-TPL", descrizione: "Modello" },
      { codice: "S-TPL-1", descrizione: "Variante", modello: "S-TPL" },
    ]);
    await load("S-STOCK");
    const count = await countRows(t, "articoli");
    const r = await articoli([
      { codice: "S-V1", descrizione: "Variante di un articolo con movimenti", modello: "S-STOCK" },
      { codice: "S-V2", descrizione: "Variante di una variante", modello: "S-TPL-1" },
      { codice: "S-TPL", modello: "S-TPL-1" },
      { codice: "S-SELF", descrizione: "Sé stesso", modello: "S-SELF" },
      { codice: "S-STOCK", modello: "S-TPL" },
      { codice: "S-X", descrizione: "Modello che diventa variante", modello: "S-Y" },
      { codice: "S-Y", descrizione: "Variante", modello: "S-X" },
    ]);
    // S-X is refused (its template S-Y is a variant), so S-Y's template does not exist.
    expect(outcome(r)).toEqual([...Array(6).fill("campo_non_valido"), "modello_non_trovato"]);
    for (const x of r.body.righe) expect(x.errore.messaggio).toContain("'modello'");
    expect(await countRows(t, "articoli")).toBe(count);
    expect(await article("S-STOCK")).toMatchObject({ ha_varianti: false, modello: null });
    // An article on order rows cannot become a template either.
    const sup = await seedSupplier(t.prisma, "S-FOR");
    const ordered = await article("S-TPL-1");
    await articoli([{ codice: "S-ORD", descrizione: "Ordinato" }]);
    await seedOrder(t.prisma, {
      numero: "S-O1",
      fornitore: sup.id,
      magazzino: m1,
      data: "2026-11-20",
      righe: [{ articolo: (await article("S-ORD")).id, quantita: "1", prezzo: "1" }],
    });
    expect(ordered).toBeDefined();
    const o = await articoli([{ codice: "S-ORD-V", descrizione: "Variante", modello: "S-ORD" }]);
    expect(outcome(o)).toEqual(["campo_non_valido"]);
    expect(o.body.righe[0].errore.messaggio).toContain("righe d'ordine");
  });

  test("Idempotency-Key: the same call replays its answer and writes nothing; another body with the key is refused", async () => {
    const body = [{ codice: "I-1", descrizione: "Idempotente" }];
    const first = await articoli(body, { "idempotency-key": "art-1" });
    expect(outcome(first)).toEqual(["creato"]);
    const before = await table("articoli");
    const again = await articoli(body, { "idempotency-key": "art-1" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await table("articoli")).toEqual(before);
    const other = await articoli([{ codice: "I-2", descrizione: "Altro" }], { "idempotency-key": "art-1" });
    expect(other.status).toBe(422);
    expect(other.body.codice).toBe("chiave_idempotenza_riutilizzata");
    expect(await article("I-2")).toBeUndefined();
  });

  test("401 without a key, 403 with a read-only key, 422 troppe_righe over 500 rows; nothing written", async () => {
    const count = await countRows(t, "articoli");
    const body = { articoli: [{ codice: "N-1", descrizione: "No" }] };
    const none = await rest("POST", "/articoli", { body });
    expect(none.status).toBe(401);
    expect(none.body.codice).toBe("non_autenticato");
    const ro = await post("/articoli", body, {}, reader);
    expect(ro.status).toBe(403);
    expect(ro.body.codice).toBe("permesso_negato");
    for (const [path, k] of [
      ["/articoli", "articoli"],
      ["/fornitori", "fornitori"],
      ["/magazzini", "magazzini"],
      ["/clienti", "clienti"],
    ] as const) {
      const many = await post(path, {
        [k]: Array.from({ length: 501 }, (_, i) => ({ codice: `N-${i}`, descrizione: "x", nome: "x", ragione_sociale: "x" })),
      });
      expect(many.status, path).toBe(422);
      expect(many.body.codice).toBe("troppe_righe");
      expect((await post(path, {}, {}, reader)).status, path).toBe(403);
    }
    const bad = await post("/articoli", { articoli: [] });
    expect(bad.status).toBe(422);
    expect(bad.body.codice).toBe("richiesta_non_valida");
    expect(await countRows(t, "articoli")).toBe(count);
  });

  test("concurrent calls with the same new codes: each code created once, the other call answers invariato", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ codice: `CC-${i}`, descrizione: `Concorrente ${i}`, ean: ean(3000 + i) }));
    const [x, y] = await Promise.all([articoli(rows), articoli(rows)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect([x.body.creati, y.body.creati].sort()).toEqual([0, 50]);
    expect([x.body.invariati, y.body.invariati].sort()).toEqual([0, 50]);
    expect((await table("articoli", "codice LIKE 'CC-%'")).length).toBe(50);
  });

  test("a call waits for another writer of the table, then sees what it wrote (no duplicate code, no 500)", async () => {
    const gate = await t.pool.connect();
    try {
      // Another upsert between its load and its commit: it holds the table's lock and has inserted a code.
      await gate.query("BEGIN");
      await gate.query("SELECT pg_advisory_xact_lock($1::bigint)", [MASTER_DATA_LOCKS.articoli]);
      await gate.query("INSERT INTO articoli (codice, descrizione) VALUES ('CC-HELD', 'Altro scrittore')");
      const pending = articoli([
        { codice: "CC-HELD", descrizione: "Altro scrittore" },
        { codice: "CC-NEW", descrizione: "Nuovo" },
      ]);
      let waiting = false;
      for (let i = 0; i < 100 && !waiting; i++) {
        const { rows } = await t.pool.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        waiting = rows[0].n > 0;
        if (!waiting) await new Promise((r) => setTimeout(r, 50));
      }
      expect(waiting).toBe(true);
      await gate.query("COMMIT");
      const r = await pending;
      expect(r.status).toBe(200);
      expect(outcome(r)).toEqual(["invariato", "creato"]);
    } finally {
      await gate.query("ROLLBACK").catch(() => {});
      gate.release();
    }
  });

  test("a signed-in operatore may not write master data; a responsabile may", async () => {
    const op = caller(t, { kind: "utente", id: 1, username: "op", ruolo: "operatore" }, "trpc");
    await expect(op.masterData.upsertArticles({ articoli: [{ codice: "U-1", descrizione: "No" }] })).rejects.toThrow(
      /riservata al ruolo responsabile/,
    );
    expect(await article("U-1")).toBeUndefined();
    const boss = caller(t, { kind: "utente", id: 1, username: "capo", ruolo: "responsabile" }, "trpc");
    expect((await boss.masterData.upsertArticles({ articoli: [{ codice: "U-1", descrizione: "Sì" }] })).creati).toBe(1);
  });

  test("500 rows in one call are written, and repeated write nothing", async () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({
      codice: `B-${i}`,
      descrizione: `Articolo ${i}`,
      ean: ean(1000 + i),
      costo: "1.25",
    }));
    const r = await articoli(rows);
    expect(r.body).toMatchObject({ creati: 500, rifiutati: 0 });
    const before = await table("articoli", "codice LIKE 'B-%'");
    expect(before).toHaveLength(500);
    expect((await articoli(rows)).body).toMatchObject({ invariati: 500 });
    expect(await table("articoli", "codice LIKE 'B-%'")).toEqual(before);
  });
});
