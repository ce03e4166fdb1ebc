import fs from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { countRows } from "../server/testing/fixtures";
import { test } from "../server/testing/test";
import { cli, dir, setupCliBeforeAll, t, writeJson } from "./cli-testing";

setupCliBeforeAll();

describe("import", () => {
  test("a valid file prints the id maps", async () => {
    const file = writeJson("ok.json", {
      magazzini: [{ codice: "CEN", nome: "Centrale" }],
      fornitori: [{ codice: "F1", nome: "Fornitore uno" }],
      articoli: [{ codice: "VITE", descrizione: "Vite", ean: "5901234123457" }],
      clienti: [{ codice: "C1", ragione_sociale: "Cliente uno" }],
      ordini: [
        {
          numero: "OA-1",
          fornitore: "F1",
          data: "2026-11-20",
          magazzino: "CEN",
          righe: [{ articolo: "VITE", quantita: 10, prezzo: "0.1" }],
        },
      ],
    });
    const r = await cli("import", file);
    expect(r.code).toBe(0);
    const ids = JSON.parse(r.stdout);
    expect(ids).toEqual({
      magazzini: { CEN: (await t.prisma.magazzino.findUniqueOrThrow({ where: { codice: "CEN" } })).id },
      articoli: { VITE: (await t.prisma.articolo.findUniqueOrThrow({ where: { codice: "VITE" } })).id },
      fornitori: { F1: (await t.prisma.fornitore.findUniqueOrThrow({ where: { codice: "F1" } })).id },
      ordini: { "OA-1": (await t.prisma.ordineAcquisto.findFirstOrThrow({ where: { numero: "OA-1" } })).id },
      clienti: { C1: (await t.prisma.cliente.findUniqueOrThrow({ where: { codice: "C1" } })).id },
    });
  });

  test("a bad file exits 1, lists every problem with its path, and writes nothing", async () => {
    const tables = ["magazzini", "articoli", "fornitori", "clienti", "ordini_acquisto", "righe_ordine"];
    const before = await Promise.all(tables.map((table) => countRows(t, table)));
    const file = writeJson("bad.json", {
      magazzini: [{ codice: "SUD", nome: "Sud" }],
      articoli: [
        { codice: "DADO", descrizione: "Dado", ean: "5901234123458" },
        { codice: "BULLONE", descrizione: "Bullone", ean: "5901234123457", colore: "nero" },
      ],
      ordini: [
        {
          numero: "OA-2",
          fornitore: "F9",
          data: "2026-13-01",
          magazzino: "SUD",
          righe: [{ articolo: "DADO", quantita: -1, prezzo: "1,5" }],
        },
      ],
    });
    const r = await cli("import", file);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    const paths = lines.slice(0, -1).map((l) => l.split(": ")[0]);
    expect(paths).toEqual([
      "articoli[0].ean",
      "articoli[1].colore",
      "articoli[1].ean",
      "ordini[0].data",
      "ordini[0].fornitore",
      "ordini[0].righe[0].prezzo",
      "ordini[0].righe[0].quantita",
    ]);
    expect(lines).toContain("articoli[1].ean: l'EAN '5901234123457' è già dell'articolo 'VITE': correggerlo o toglierlo");
    expect(lines.at(-1)).toMatch(/Il file contiene 7 problemi: nulla è stato importato/);
    expect(await Promise.all(tables.map((table) => countRows(t, table)))).toEqual(before);
  });

  test("a file that is not JSON exits 1 without touching the database", async () => {
    const file = path.join(dir, "rotto.json");
    fs.writeFileSync(file, "{ magazzini: [");
    const r = await cli("import", file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/non è un JSON valido/);
  });
});

describe("usage", () => {
  test("an unknown command exits 2 with the usage on stderr", async () => {
    const r = await cli("esporta");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/comando sconosciuto: esporta/);
    expect(r.stderr).toMatch(/Uso: npm run -s cli -- <comando>/);
  });

  test("--help prints the usage on stdout", async () => {
    const r = await cli("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/api-key create --name NOME --scopes/);
  });

  test("migrate reports where the schema stands", async () => {
    const r = await cli("migrate");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Schema del database aggiornato: \d+ migrazion/);
  });
});

describe("verify", () => {
  test("exits 0 when everything matches the ledger, 1 naming each difference when it does not", async () => {
    await t.pool.query("INSERT INTO magazzini (codice, nome) VALUES ('VM', 'VM') ON CONFLICT DO NOTHING");
    await t.pool.query("INSERT INTO articoli (codice, descrizione) VALUES ('VA', 'VA') ON CONFLICT DO NOTHING");
    const ok = await cli("verify");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Nessuna differenza/);
    await t.pool.query(
      `INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
       SELECT a.id, m.id, 3 FROM articoli a, magazzini m WHERE a.codice = 'VA' AND m.codice = 'VM'`,
    );
    const bad = await cli("verify");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/giacenza\tarticolo \d+ magazzino \d+\tdal registro 0\tmantenuto 3/);
    expect(bad.stderr).toMatch(/1 differenze/);
    await t.pool.query("DELETE FROM giacenze WHERE quantita = 3");
  });
});
