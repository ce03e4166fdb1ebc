import { describe, expect, vi } from "vitest";
import { closePrisma, createPrisma, getDb, setDb } from "../db/client";
import { revokeApiKey } from "../modules/auth/api-keys.service";
import type { TestDb } from "../testing/db";
import { countRows, rest, seedArticle, seedKey, seedWarehouse } from "../testing/fixtures";
import { test } from "../testing/test";
import { handleRestRequest } from "./rest-handler";

/** docs/api.md sections 1–3: the transport rules and every whole-request error code they can produce. */

let t: TestDb;
let writer: string;
let reader: string;

test.beforeAll(async ({ db }) => {
  t = db;
  await seedWarehouse(t.prisma);
  await seedArticle(t.prisma, "A1");
  writer = (await seedKey(t.prisma, ["scrittura"])).chiave;
  reader = (await seedKey(t.prisma, ["lettura"])).chiave;
});

const load = { natura: "carico", magazzino: 1, righe: [{ codice: "A1", quantita: 1 }] };

async function expectNothingWritten<T>(fn: () => Promise<T>): Promise<T> {
  const before = await countRows(t, "movimenti");
  const ops = await countRows(t, "operazioni");
  const r = await fn();
  expect(await countRows(t, "movimenti")).toBe(before);
  expect(await countRows(t, "operazioni")).toBe(ops);
  return r;
}

function expectErrorBody(r: { status: number; body: any; headers: Headers }, status: number, codice: string) {
  expect(r.status).toBe(status);
  expect(r.body.codice).toBe(codice);
  expect(typeof r.body.messaggio).toBe("string");
  expect(r.body.messaggio.length).toBeGreaterThan(10);
  expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.headers.get("content-type")).toContain("application/json");
}

describe("400", () => {
  test.each([
    ["not JSON", "{natura:"],
    ["an array", "[1,2]"],
    ["a string", '"ciao"'],
    ["null", "null"],
    ["empty", ""],
    ["deeply nested", "[".repeat(200_000) + "]".repeat(200_000)],
  ])("json_non_valido: body is %s", async (_n, raw) => {
    const r = await expectNothingWritten(() =>
      rest("POST", "/movimenti", { key: writer, rawBody: raw, headers: { "content-type": "application/json" } }),
    );
    expectErrorBody(r, 400, "json_non_valido");
  });

  test("json_non_valido: invalid UTF-8", async () => {
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const r = await rest("POST", "/movimenti", { key: writer, rawBody: bytes, headers: { "content-type": "application/json" } });
    expectErrorBody(r, 400, "json_non_valido");
  });

  test.each([
    ["empty", ""],
    ["too long", "x".repeat(256)],
    ["not ASCII", "chiave-è"],
    ["control char", "a\tb"],
  ])("chiave_idempotenza_non_valida: %s", async (_n, value) => {
    const r = await expectNothingWritten(() =>
      rest("POST", "/movimenti", { key: writer, body: load, headers: { "idempotency-key": value } }),
    );
    expectErrorBody(r, 400, "chiave_idempotenza_non_valida");
  });
});

describe("401 and 403", () => {
  test.each([
    ["missing", {}],
    ["not Bearer", { authorization: "Basic dXNlcjpwYXNz" }],
    ["malformed", { authorization: "Bearer !!" }],
    ["unknown", { authorization: "Bearer bnc_00000000_sconosciutasconosciutasconosciuta" }],
  ])("non_autenticato: key %s", async (_n, headers) => {
    const r = await expectNothingWritten(() => rest("POST", "/movimenti", { body: load, headers }));
    expectErrorBody(r, 401, "non_autenticato");
    expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const g = await rest("GET", "/movimenti", { headers });
    expectErrorBody(g, 401, "non_autenticato");
  });

  test("non_autenticato: revoked key", async () => {
    const k = await seedKey(t.prisma, ["scrittura"]);
    expect((await rest("GET", "/clienti", { key: k.chiave })).status).toBe(200);
    await revokeApiKey(t.prisma, k.prefisso);
    const r = await rest("GET", "/clienti", { key: k.chiave });
    expectErrorBody(r, 401, "non_autenticato");
  });

  test("permesso_negato: a lettura key cannot write, but reads and searches", async () => {
    const r = await expectNothingWritten(() => rest("POST", "/movimenti", { key: reader, body: load }));
    expectErrorBody(r, 403, "permesso_negato");
    expect((await rest("GET", "/movimenti", { key: reader })).status).toBe(200);
  });

  test("keys are stored only as a hash", async () => {
    const { rows } = await t.pool.query("SELECT hash FROM chiavi_api");
    for (const row of rows) {
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.hash).not.toBe(writer);
    }
  });
});

describe("404, 405, 413, 415", () => {
  test("non_trovato: unknown path", async () => {
    const r = await rest("GET", "/inesistente", { key: reader });
    expectErrorBody(r, 404, "non_trovato");
  });

  test("non_trovato: unknown article's lots", async () => {
    const r = await rest("GET", "/articoli/424242/lotti?magazzino=1", { key: reader });
    expectErrorBody(r, 404, "non_trovato");
  });

  test("metodo_non_consentito with Allow", async () => {
    const r = await expectNothingWritten(() => rest("DELETE", "/movimenti", { key: writer }));
    expectErrorBody(r, 405, "metodo_non_consentito");
    expect(r.headers.get("allow")).toBe("POST, GET");
    const put = await rest("PUT", "/clienti", { key: writer, body: {} });
    expectErrorBody(put, 405, "metodo_non_consentito");
  });

  test("richiesta_troppo_grande over 5 MB, declared or streamed", async () => {
    const big = JSON.stringify({ ...load, causale: "x".repeat(6 * 1024 * 1024) });
    const r = await expectNothingWritten(() =>
      rest("POST", "/movimenti", { key: writer, rawBody: big, headers: { "content-type": "application/json" } }),
    );
    expectErrorBody(r, 413, "richiesta_troppo_grande");
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 12; i++) c.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
        c.close();
      },
    });
    const res = await handleRestRequest(
      new Request("http://localhost/api/v1/movimenti", {
        method: "POST",
        headers: { authorization: `Bearer ${writer}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
  });

  test.each([
    ["text/plain", "ciao"],
    ["application/x-www-form-urlencoded", "a=1"],
    [null, JSON.stringify(load)],
  ])("tipo_contenuto_non_supportato: %s", async (type, raw) => {
    const headers: Record<string, string> = type ? { "content-type": type } : {};
    const r = await expectNothingWritten(() => rest("POST", "/movimenti", { key: writer, rawBody: raw, headers }));
    expectErrorBody(r, 415, "tipo_contenuto_non_supportato");
  });
});

describe("422 filtro_non_valido: a list parameter is never ignored", () => {
  test.each([
    ["unknown parameter", "/movimenti?pagina=2", "pagina"],
    ["repeated parameter", "/movimenti?limite=5&limite=6", "limite"],
    ["limite 0", "/movimenti?limite=0", "limite"],
    ["limite over 100", "/movimenti?limite=101", "limite"],
    ["limite hexadecimal", "/movimenti?limite=0x10", "limite"],
    ["limite decimal", "/movimenti?limite=1.5", "limite"],
    ["limite empty", "/movimenti?limite=", "limite"],
    ["dopo negative", "/movimenti?dopo=-1", "dopo"],
    ["da not a date", "/movimenti?da=21/11/2026", "da"],
    ["a impossible date", "/movimenti?a=2026-02-30", "a"],
    ["da after a", "/movimenti?da=2026-11-22&a=2026-11-01", "da"],
    ["origine unknown", "/movimenti?origine=fax", "origine"],
    ["articolo not a number", "/movimenti?articolo=abc", "articolo"],
    ["clienti limite over 100", "/clienti?limite=500", "limite"],
    ["lotti without magazzino", "/articoli/1/lotti", "magazzino"],
    ["lotti magazzino malformed", "/articoli/1/lotti?magazzino=uno", "magazzino"],
  ])("%s", async (_n, path, campo) => {
    const r = await rest("GET", path, { key: reader });
    expectErrorBody(r, 422, "filtro_non_valido");
    const fields = r.body.campo ? [r.body.campo] : r.body.dettagli.map((d: any) => d.campo);
    expect(fields).toContain(campo);
    expect(r.body.messaggio).toContain(campo);
  });
});

describe("lists", () => {
  test("an empty page keeps the cursor that was sent", async () => {
    // An id issued to a write that rolled back: a cursor the service may have given, past every row.
    const last = Number((await t.pool.query("SELECT nextval('clienti_id_seq') AS n")).rows[0].n);
    const r = await rest("GET", `/clienti?dopo=${last}`, { key: reader });
    expect(r.body).toEqual({ clienti: [], altri: false, cursore: last });
  });

  test("clients page by id with altri and cursore; da/a filter on the creation date", async () => {
    const today = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 5; i++)
      await t.prisma.cliente.create({ data: { codice: `C${i}`, ragione_sociale: `Cliente ${i}`, data: new Date(`${today}T00:00:00Z`) } });
    const p1 = await rest("GET", "/clienti?limite=2", { key: reader });
    expect(p1.body.clienti).toHaveLength(2);
    expect(p1.body.altri).toBe(true);
    expect(p1.body.cursore).toBe(p1.body.clienti[1].id);
    const p2 = await rest("GET", `/clienti?limite=2&dopo=${p1.body.cursore}`, { key: reader });
    const p3 = await rest("GET", `/clienti?limite=2&dopo=${p2.body.cursore}`, { key: reader });
    expect([...p1.body.clienti, ...p2.body.clienti, ...p3.body.clienti].map((c: any) => c.codice)).toEqual(["C0", "C1", "C2", "C3", "C4"]);
    expect(p3.body.altri).toBe(false);
    expect(Object.keys(p1.body.clienti[0]).sort()).toEqual(
      [
        "id",
        "codice",
        "ragione_sociale",
        "partita_iva",
        "codice_fiscale",
        "email",
        "telefono",
        "indirizzo",
        "cap",
        "citta",
        "provincia",
        "nazione",
        "attivo",
        "versione",
        "creato_il",
      ].sort(),
    );
    expect((await rest("GET", "/clienti?a=2000-01-01", { key: reader })).body.clienti).toEqual([]);
    expect((await rest("GET", `/clienti?da=${today}&a=${today}`, { key: reader })).body.clienti).toHaveLength(5);
  });
});

describe("429, 500, 503", () => {
  test("troppe_richieste with Retry-After once the burst is spent; a refusal spends nothing", async () => {
    const k = await seedKey(t.prisma, ["lettura"], { perSecond: 1, burst: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await rest("GET", "/clienti", { key: k.chiave })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const r = await rest("GET", "/clienti", { key: k.chiave });
    expectErrorBody(r, 429, "troppe_richieste");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  test("the rate limit holds across instances (two clients, one database)", async () => {
    const k = await seedKey(t.prisma, ["lettura"], { perSecond: 0.001, burst: 10 });
    const other = createPrisma(t.url, 5);
    const mine = getDb();
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          return rest("GET", "/clienti", { key: k.chiave, headers: { "x-i": String(i) } });
        }),
      );
      setDb(other);
      const more = await Promise.all(Array.from({ length: 5 }, () => rest("GET", "/clienti", { key: k.chiave })));
      const ok = [...results, ...more].filter((r) => r.status === 200).length;
      expect(ok).toBe(10);
    } finally {
      setDb(mine);
      await closePrisma(other);
    }
  });

  test("an instance takes tokens in batches: one database write per 5% of the burst", async () => {
    const k = await seedKey(t.prisma, ["lettura"], { perSecond: 0.001, burst: 200 });
    const tokens = async () => (await t.pool.query("SELECT gettoni FROM chiavi_api WHERE id = $1", [k.id])).rows[0].gettoni;
    expect((await rest("GET", "/clienti", { key: k.chiave })).status).toBe(200);
    expect(await tokens()).toBeCloseTo(190, 1);
    for (let i = 0; i < 9; i++) expect((await rest("GET", "/clienti", { key: k.chiave })).status).toBe(200);
    expect(await tokens()).toBeCloseTo(190, 1);
    await rest("GET", "/clienti", { key: k.chiave });
    expect(await tokens()).toBeCloseTo(180, 1);
  });

  test("errore_interno: no stack, no SQL, the request id to quote; the details go to the server log", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    await t.pool.query("ALTER TABLE giacenze RENAME TO giacenze_rotte");
    try {
      const r = await expectNothingWritten(() => rest("POST", "/movimenti", { key: writer, body: load }));
      expect(log).toHaveBeenCalledWith(`[${r.body.richiesta}] errore interno:`, expect.anything());
      expectErrorBody(r, 500, "errore_interno");
      expect(r.body.richiesta).toBe(r.headers.get("x-request-id"));
      const text = JSON.stringify(r.body);
      expect(text).not.toMatch(/giacenze|SELECT|INSERT|relation|at |\.ts|node_modules|prisma/i);
    } finally {
      await t.pool.query("ALTER TABLE giacenze_rotte RENAME TO giacenze");
      log.mockRestore();
    }
  });

  test("servizio_non_disponibile with Retry-After when the database cannot be reached", async () => {
    const mine = getDb();
    const dead = createPrisma("postgresql://nessuno:x@127.0.0.1:1/nessuno", 1);
    setDb(dead);
    try {
      const r = await rest("GET", "/clienti", { key: reader });
      expectErrorBody(r, 503, "servizio_non_disponibile");
      expect(r.headers.get("retry-after")).toBe("5");
    } finally {
      setDb(mine);
      await closePrisma(dead);
    }
  });
});

test("every response carries X-Request-Id, successes included", async () => {
  const r = await rest("GET", "/clienti", { key: reader });
  expect(r.status).toBe(200);
  expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
});

test("the OpenAPI document is served without a key and lists every endpoint with the contract's errors", async () => {
  const r = await rest("GET", "/openapi.json");
  expect(r.status).toBe(200);
  expect(Object.keys(r.body.paths).sort()).toEqual(
    [
      "/articoli/{id}/lotti",
      "/clienti",
      "/cursori",
      "/movimenti",
      "/arrivi/cerca",
      "/arrivi",
      "/arrivi/{id}/annulla",
      "/giacenze/allinea",
      "/documenti-vendita",
      "/disponibilita",
      "/articoli",
      "/fornitori",
      "/magazzini",
      "/ubicazioni",
      "/giacenze-ubicazioni",
      "/articoli/{id}/ubicazioni",
      "/da-stoccare",
      "/ordini-acquisto",
      "/ordini-acquisto/{id}/chiudi",
      "/avvisi-spedizione",
      "/colli/{sscc}/ricevi",
      "/colli/{sscc}/annulla",
      "/differenze-ricevimento",
      "/differenze-ricevimento/{id}/foto",
      "/differenze-ricevimento/{id}/foto/{n}",
      "/differenze-ricevimento/tasso-riempimento",
      "/resi-fornitore",
      "/prenotazioni",
      "/prenotazioni/{id}/annulla",
      "/eventi",
      "/webhook",
      "/webhook/{id}",
      "/webhook/{id}/riprova",
      "/etichette/lotto",
      "/etichette/collo/{sscc}",
      "/etichette/ubicazione",
      "/ordini-acquisto/{id}/etichette",
      "/stampanti",
      "/stampanti/{id}/stampa",
      "/stampe/{id}",
    ].sort(),
  );
  expect(Object.keys(r.body.paths["/arrivi"].post.responses)).toEqual(expect.arrayContaining(["200", "201", "409", "422"]));
  expect(r.body.paths["/arrivi/cerca"].post.parameters?.some((p: any) => p.name === "Idempotency-Key") ?? false).toBe(false);
  const post = r.body.paths["/movimenti"].post;
  for (const s of ["200", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"]) {
    expect(post.responses[s], s).toBeDefined();
  }
  // The contract's error body, `codice` an enum of what this endpoint can answer with that status.
  const refused = post.responses["422"].content["application/json"].schema;
  expect(refused.required).toEqual(["codice", "messaggio"]);
  expect(refused.properties.codice.enum).toContain("troppe_righe");
  expect(r.body.components.responses.non_autenticato.content["application/json"].schema.properties.codice.enum).toEqual([
    "non_autenticato",
  ]);
  expect(post.parameters.some((p: any) => p.name === "Idempotency-Key" && p.in === "header")).toBe(true);
  // zod's implicit ±(2^53 - 1) bounds are gone; bounds the contract sets are kept.
  expect(JSON.stringify(r.body)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  expect(post.requestBody.content["application/json"].schema.properties.causale).toMatchObject({ type: "string", maxLength: 200 });
  expect(post.responses["200"].content["application/json"].schema.properties.operazione.anyOf[0]).toEqual({ type: "integer" });
});

test("every integer a client sends has a maximum within PostgreSQL's integer: beyond it the database, not the edge, would refuse it (a 500)", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  const unbounded: string[] = [];
  let seen = 0;
  const walk = (s: any, where: string): void => {
    if (!s || typeof s !== "object") return;
    if (s.$ref) {
      walk(doc.components.schemas[s.$ref.split("/").pop()], where);
      return;
    }
    // Versions (`modificati_dopo`) come from a bigint sequence: JSON's exact integers bound them, not int4.
    if (s.type === "integer" && !where.endsWith(" modificati_dopo")) {
      seen++;
      if (!(s.maximum <= 2_147_483_647)) unbounded.push(`${where} (maximum ${s.maximum})`);
    }
    for (const [name, child] of Object.entries(s.properties ?? {})) walk(child, `${where}.${name}`);
    walk(s.items, `${where}[]`);
    for (const k of ["anyOf", "oneOf", "allOf"]) for (const child of s[k] ?? []) walk(child, where);
  };
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      for (const p of op.parameters ?? []) walk(p.schema, `${method.toUpperCase()} ${path} ${p.name}`);
      // A photo's body is the image itself (POST /differenze-ricevimento/{id}/foto): no JSON schema to walk.
      walk(op.requestBody?.content["application/json"]?.schema, `${method.toUpperCase()} ${path} corpo`);
    }
  }
  expect(seen).toBeGreaterThan(10);
  expect(unbounded).toEqual([]);
});

describe("hostile shapes found by the reliability suite", () => {
  test("JSON nested deeper than 64 levels is refused before anything walks it", async () => {
    const r = await rest("POST", "/movimenti", {
      key: writer,
      rawBody: `{"righe":[${'{"a":'.repeat(5000)}1${"}".repeat(5000)}]}`,
      headers: { "content-type": "application/json" },
    });
    expectErrorBody(r, 422, "richiesta_non_valida");
    expect(r.body.messaggio).toContain("64");
  });

  test.each(["__proto__", "constructor", "toString", "hasOwnProperty"])("a query parameter named %s is filtro_non_valido", async (name) => {
    const r = await rest("GET", `/movimenti?${name}=1`, { key: reader });
    expectErrorBody(r, 422, "filtro_non_valido");
    expect(r.body.campo).toBe(name);
  });

  // CI's generator found `GET /disponibilita?cerca='NaNa%00b` answering 500: PostgreSQL text cannot hold U+0000.
  test("U+0000 in any query parameter of any list is filtro_non_valido naming the parameter", async () => {
    const doc = (await rest("GET", "/openapi.json")).body;
    let tried = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const param of (item.get?.parameters ?? []).filter((p: any) => p.in === "query")) {
        const r = await rest("GET", `${path.replace("{id}", "1")}?${param.name}=a%00b`, { key: reader });
        expectErrorBody(r, 422, "filtro_non_valido");
        expect(r.body.campo, `${path} ${param.name}`).toBe(param.name);
        expect(r.body.messaggio).toContain("U+0000");
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(20);
  });

  test("U+0000 in a body's text is richiesta_non_valida naming the field, and writes nothing", async () => {
    const r = await expectNothingWritten(() =>
      rest("POST", "/movimenti", {
        key: writer,
        body: { ...load, causale: "reso", righe: [{ codice: "A1", quantita: 1, lotto: "L1\u0000" }] },
      }),
    );
    expectErrorBody(r, 422, "richiesta_non_valida");
    expect(r.body.campo).toBe("righe[0].lotto");
    expect(r.body.messaggio).toBe(
      "Campo 'righe[0].lotto': contiene il carattere nullo (U+0000), che non è ammesso nel testo: toglierlo e ripetere.",
    );
  });

  test("thousands of unknown fields answer with the first hundred and a count", async () => {
    const body: Record<string, number> = { natura: 1 } as never;
    for (let i = 0; i < 5000; i++) body[`x${i}`] = i;
    const r = await rest("POST", "/movimenti", { key: writer, body });
    expectErrorBody(r, 422, "richiesta_non_valida");
    expect(r.body.dettagli).toHaveLength(101);
    expect(r.body.dettagli[100].messaggio).toMatch(/altri \d+ problemi/);
  });
});

test("a query parameter on a write is refused, not ignored", async () => {
  const before = await countRows(t, "movimenti");
  const r = await rest("POST", "/movimenti?dry_run=1", { key: writer, body: load });
  expectErrorBody(r, 422, "filtro_non_valido");
  expect(r.body.campo).toBe("dry_run");
  expect(await countRows(t, "movimenti")).toBe(before);
});
