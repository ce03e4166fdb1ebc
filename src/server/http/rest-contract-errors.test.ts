import { describe, expect } from "vitest";
import { revokeApiKey } from "../modules/auth/api-keys.service";
import { countRows, rest, seedKey } from "../testing/fixtures";
import { test } from "../testing/test";
import { handleRestRequest } from "./rest-handler";
import { expectErrorBody, expectNothingWritten, load, reader, seedRestContractBeforeAll, t, writer } from "./rest-contract-testing";

/** docs/api.md sections 1–3: every whole-request error code the transport rules can produce (400 to 422), hostile shapes included. */

seedRestContractBeforeAll();

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
