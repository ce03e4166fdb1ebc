import fc from "fast-check";
import net from "node:net";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { handleRestRequest } from "../../src/server/http/rest-handler";
import { ERROR_STATUS } from "../../src/server/lib/errors";
import { openApiDocument } from "../../src/server/trpc/openapi";
import type { TestDb } from "../../src/server/testing/db";
import { seedLocations, switchLocations } from "../../src/server/testing/locations";
import { test } from "../../src/server/testing/test";
import { cleanup, ensureBuild, launch, snapshot, type Service, type Snapshot } from "./harness";
import { endpointsOf, type Endpoint, type Known } from "./hostile-endpoints";
import { requestArb, type GeneratedRequest } from "./hostile-requests";
import { BARCODES, serialise } from "./hostile-values";
import { createKey, seedArticles, seedOrder, seedSupplier, seedWarehouse } from "./seed";

/**
 * Hostile input, property-based (fast-check): generated bodies, query strings, path segments and
 * headers sent to every endpoint of the OpenAPI document, in-process through handleRestRequest on a
 * real test database, then a sample over real HTTP. Whatever comes in: never a 5xx, an error is the
 * contract's body (`codice` and `messaggio` strings, JSON, the status of its code, X-Request-Id), and
 * a refusal writes nothing (movimenti, operazioni, lotti, giacenze, idempotenza and the balances,
 * lots and arrived quantities compared before and after each request; a refusal with a valid
 * Idempotency-Key may store its record, as docs/api.md section 3 says, and nothing else).
 *
 * Runs per property are fixed (RUNS_PER_ENDPOINT etc.); the seed is random unless RELIABILITY_SEED
 * is set, and is printed, so any failure can be replayed.
 */

const RUNS_PER_ENDPOINT = Number(process.env.RELIABILITY_RUNS ?? 150);
const HTTP_RUNS_PER_ENDPOINT = 12;
const BIG_BODY_RUNS = 6;
const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

let t: TestDb;
let writer: string;
let reader: string;
let endpoints: Endpoint[];
let known: Known;
let examples: Record<string, Record<string, unknown>>;
/**
 * Every code an answer carried, by operation and status (`POST /movimenti 422`), and every row code, by
 * operation and status (`POST /movimenti 200 righe`): the last test checks each against the document.
 */
const observed = new Map<string, { ep: Endpoint; status: number; rows: boolean; codes: Set<string> }>();
function observe(ep: Endpoint, status: number, rows: boolean, codice: string) {
  const key = `${ep.method} ${ep.path} ${status}${rows ? " righe" : ""}`;
  const entry = observed.get(key) ?? { ep, status, rows, codes: new Set<string>() };
  entry.codes.add(codice);
  observed.set(key, entry);
}
const stats = {
  tried: 0,
  skipped: 0,
  transport431: 0,
  byProperty: {} as Record<string, number>,
  status: {} as Record<string, number>,
  codice: {} as Record<string, number>,
};

let m3: number;

test.beforeAll(async ({ db, actor }) => {
  t = db;
  const pool = t.pool;
  const m1 = await seedWarehouse(pool, "M1");
  const m2 = await seedWarehouse(pool, "M2");
  // A warehouse that manages locations: the row codes of its locations (docs/api.md section 11).
  m3 = await seedWarehouse(pool, "M3");
  const m3Locations = await seedLocations(t, m3, [{ codice: "RIC", tipo: "ricevimento" }, { codice: "A-01" }]);
  await switchLocations(t, actor, m3, true, m3Locations.RIC);
  const f1 = await seedSupplier(pool, "F1");
  const plain = await seedArticles(pool, "HP", 3, { costo: "1.25" });
  const lotted = await seedArticles(pool, "HL", 1, { lotti: true });
  await pool.query("UPDATE articoli SET ean = '8001234567897' WHERE id = $1", [plain[0]]);
  const tpl = (
    await pool.query(
      "INSERT INTO articoli (codice, descrizione, ha_varianti, ean) VALUES ('TPL', 'Modello', true, '8000000000026') RETURNING id",
    )
  ).rows[0].id;
  const variant = (
    await pool.query(
      "INSERT INTO articoli (codice, descrizione, modello_id, ean) VALUES ('TPL-M', 'Variante', $1, '8000000000033') RETURNING id",
      [tpl],
    )
  ).rows[0].id;
  const order = await seedOrder(pool, {
    numero: "H-1",
    fornitore: f1,
    magazzino: m1,
    righe: [
      { articolo: plain[0]!, quantita: 1000 },
      { articolo: lotted[0]!, quantita: 1000 },
      { articolo: variant, quantita: 1000 },
    ],
  });
  const client = (
    await pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date) RETURNING id")
  ).rows[0].id;
  // Every scope, so that the generated requests reach the /webhook endpoints too.
  ({ chiave: writer } = await createKey(pool, ["scrittura", "webhook"]));
  ({ chiave: reader } = await createKey(pool, ["lettura"]));

  // Some history: stock, a lot, arrivals (one to cancel), an operation to append to.
  const post = (path: string, body: unknown) =>
    rawRest("POST", path, { authorization: `Bearer ${writer}`, "content-type": "application/json" }, JSON.stringify(body));
  const load = await post("/movimenti", {
    natura: "carico",
    magazzino: m1,
    righe: [
      { codice: "HP00001", quantita: 50 },
      { codice: "HL00001", quantita: 40, lotto: "L1", scadenza: "2027-06-30" },
    ],
  });
  const loaded = JSON.parse(await load.text());
  const operazione = loaded.operazione;
  const arrivals = [];
  for (let i = 0; i < 5; i++) {
    const r = await post("/arrivi", { magazzino: m1, ddt: `DDT-${i}`, riga: order.righe[0], quantita: 1 });
    arrivals.push(JSON.parse(await r.text()).movimento);
  }
  const notArrival = loaded.righe[0].movimento;

  known = {
    magazzino: [m1, m2, 999],
    magazzino_origine: [m1, m2],
    articolo: [...plain, ...lotted, tpl, variant, 999_999],
    fornitore: [f1, 999],
    ordine: [order.id, 999],
    riga: [...order.righe, 999_999],
    operazione: [operazione, 999_999],
    movimento: [...arrivals, notArrival, 999_999],
    cliente: [client, 999],
    limite: [1, 5, 100],
    dopo: [0, 1],
    quantita: [1, 2, 0.5, 0.001],
    contato: [0, 1, 3.5, 60],
    codice: ["HP00001", "HP00002", "HL00001", "TPL", "TPL-M", "NOPE"],
    ean: ["8001234567897", "8000000000033", "8000000000026", "0000000000000"],
    natura: ["carico", "scarico", "trasferimento", "rettifica"],
    lotto: ["L1", "NUOVO"],
    scadenza: ["2027-01-01"],
    prezzo: ["1.5", "0.1234", "0.12345", "-1", "abc"],
    ddt: ["DDT-H"],
    causale: ["prova"],
    barcode: [...BARCODES, "8001234567897", `R${order.righe[0]}`],
    da: ["2026-01-01"],
    a: ["2030-12-31"],
    includi_evase: [true, false],
    simula: [true, false],
    origine: ["api", "arrivo", "fax"],
    cerca: ["HP", "%", "'"],
  };
  const ex = (ep: Endpoint): Record<string, unknown> => {
    switch (`${ep.method} ${ep.path}`) {
      case "POST /movimenti":
        return { natura: "carico", magazzino: m1, righe: [{ codice: "HP00002", quantita: 1 }] };
      case "POST /arrivi":
        return { magazzino: m1, ddt: "DDT-H", righe: [{ riga: order.righe[0], quantita: 1 }] };
      case "POST /giacenze/allinea":
        return { magazzino: m1, righe: [{ codice: "HP00003", contato: 2 }] };
      case "POST /arrivi/cerca":
        return { ordine: order.id };
      default: {
        // An endpoint added later: its required fields with known values, so it is exercised too.
        const body: Record<string, unknown> = {};
        for (const k of ep.required) body[k] = Object.hasOwn(known, k) ? known[k]![0] : "x";
        return body;
      }
    }
  };
  endpoints = endpointsOf(openApiDocument() as never);
  examples = Object.fromEntries(endpoints.map((ep) => [`${ep.method} ${ep.path}`, ex(ep)]));
}, 120_000);

afterAll(async () => {
  report("input generati", { seed: SEED, ...stats });
  await cleanup();
}, 120_000);

const isWriteEndpoint = (ep: Endpoint) => ep.method !== "GET" && ep.path !== "/arrivi/cerca";

function decodeLoosely(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function rawRest(method: string, path: string, headers: Record<string, string>, body?: string | Uint8Array): Promise<Response> {
  return handleRestRequest(new Request(`http://localhost/api/v1${path}`, { method, headers, body: body as BodyInit | undefined }));
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** What a response must never show (stack frames, paths, SQL, driver errors), unless the request itself carried it (messages may echo a value). */
const LEAKS = [
  /\bat [\w.<>$]+ \(/,
  /node_modules/,
  /\.tsx?:\d/,
  /\/work\//,
  /\bSELECT\s/i,
  /\bINSERT\s+INTO\b/i,
  /\bUPDATE\s+\w+\s+SET\b/i,
  /prisma/i,
  /ECONNREFUSED/,
  /\bstack\b/i,
  /violates .* constraint/i,
];

function validIdempotencyKey(value: string | undefined): boolean {
  if (value === undefined) return false;
  let seen: string | null;
  try {
    seen = new Headers({ "idempotency-key": value }).get("idempotency-key");
  } catch {
    return false;
  }
  return seen !== null && /^[\x20-\x7E]{1,255}$/.test(seen) && seen.trim() !== "";
}

function requestJson(req: GeneratedRequest): any {
  try {
    return JSON.parse(typeof req.body === "string" ? req.body : new TextDecoder().decode(req.body));
  } catch {
    return undefined;
  }
}

/** The codes the OpenAPI document lists for this endpoint and status (docs/api.md section 2: it enumerates every code of every endpoint). */
function documentedCodes(ep: Endpoint, status: number): string[] {
  const doc: any = openApiDocument();
  let response = doc.paths[ep.path]?.[ep.method.toLowerCase()]?.responses?.[String(status)];
  if (response?.$ref) response = doc.components.responses[response.$ref.split("/").pop()];
  return response?.content?.["application/json"]?.schema?.properties?.codice?.enum ?? [];
}

/** The row codes the document lists in this endpoint's per-row outcomes (`errore.codice`). */
function documentedRowCodes(ep: Endpoint, status: number): string[] {
  const found = new Set<string>();
  const walk = (node: any): void => {
    if (!node || typeof node !== "object") return;
    for (const c of node.properties?.errore?.properties?.codice?.enum ?? []) found.add(c);
    for (const child of Object.values(node)) walk(child);
  };
  walk(openApiDocument().paths?.[ep.path]?.[ep.method.toLowerCase() as "get"]?.responses?.[String(status)]);
  return [...found];
}

/** The properties every answer must have, and what it may have written. */
function check(ep: Endpoint, req: GeneratedRequest, res: Answer, before: Snapshot, after: Snapshot) {
  const where = `${req.method} ${req.path}${req.query ? `?${req.query}` : ""} → ${res.status} ${res.text.slice(0, 300)}`;
  const sameEndpoint = req.method === ep.method && new RegExp(`^${ep.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(req.path);
  stats.status[res.status] = (stats.status[res.status] ?? 0) + 1;
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers.get("x-request-id"), where).toMatch(/^[0-9a-f-]{36}$/);
  let body: any;
  if (res.status >= 400) {
    expect(res.headers.get("content-type"), where).toMatch(/^application\/json/);
    body = JSON.parse(res.text);
    expect(body && typeof body === "object" && !Array.isArray(body), where).toBe(true);
    expect(typeof body.codice, where).toBe("string");
    expect(typeof body.messaggio, where).toBe("string");
    expect(body.messaggio.length, where).toBeGreaterThan(0);
    expect(ERROR_STATUS[body.codice as keyof typeof ERROR_STATUS], `status of ${body.codice}: ${where}`).toBe(res.status);
    const sent = `${req.path}?${req.query}\n${typeof req.body === "string" ? req.body : req.body ? new TextDecoder().decode(req.body) : ""}\n${JSON.stringify(req.headers)}`;
    for (const leak of LEAKS)
      if (leak.test(res.text) && !leak.test(sent) && !leak.test(decodeLoosely(sent))) expect.fail(`${leak} in the answer: ${where}`);
    stats.codice[body.codice] = (stats.codice[body.codice] ?? 0) + 1;
    if (sameEndpoint) observe(ep, res.status, false, body.codice);
    if (sameEndpoint) expect(documentedCodes(ep, res.status), `${body.codice} is not in the document: ${where}`).toContain(body.codice);
    if (res.status === 401) expect(res.headers.get("www-authenticate"), where).toMatch(/^Bearer/);
    if (res.status === 405) expect(res.headers.get("allow"), where).toBeTruthy();
  } else if (res.text && /^application\/json/.test(res.headers.get("content-type") ?? "")) {
    // A label's GET answers its PDF or ZPL (docs/api.md section 13): only JSON bodies carry rows.
    body = JSON.parse(res.text);
    for (const row of Array.isArray(body?.righe) && sameEndpoint ? body.righe : []) {
      if (row?.errore) observe(ep, res.status, true, row.errore.codice);
      if (row?.errore)
        expect(documentedRowCodes(ep, res.status), `row ${row.errore.codice} is not in the document: ${where}`).toContain(
          row.errore.codice,
        );
    }
  }

  // What may have changed.
  const isWrite = sameEndpoint && isWriteEndpoint(ep);
  const noEffect =
    res.status >= 400 ||
    !isWrite ||
    (body && body.scritte === 0 && (body.invariate === undefined || body.invariate === 0)) ||
    (body && body.registrate === 0) ||
    (body && ep.path === "/giacenze/allinea" && requestJson(req)?.simula === true);
  if (!noEffect) return;
  const stored =
    isWrite && ep.idempotent && validIdempotencyKey(req.idempotencyKey) && [200, 201, 404, 409, 422].includes(res.status) ? [0, 1] : [0];
  const { idempotenza: ib, ...restBefore } = before;
  const { idempotenza: ia, ...restAfter } = after;
  expect(restAfter, `nothing written: ${where}`).toEqual(restBefore);
  expect(stored, `idempotenza ${ib} → ${ia}: ${where}`).toContain(ia - ib);
}

async function sendInProcess(req: GeneratedRequest): Promise<Answer | undefined> {
  let request: Request;
  try {
    request = new Request(`http://localhost/api/v1${req.path}${req.query ? `?${req.query}` : ""}`, {
      method: req.method,
      headers: req.headers,
      body: req.body as BodyInit | undefined,
    });
  } catch {
    stats.skipped++; // a header value no HTTP client can send (fetch refuses it too)
    return undefined;
  }
  const res = await handleRestRequest(request);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("in process, generated requests to every endpoint of the OpenAPI document", () => {
  test("the document lists the endpoints of the contract", () => {
    expect(endpoints.map((e) => `${e.method} ${e.path}`).sort()).toEqual(
      expect.arrayContaining([
        "POST /movimenti",
        "GET /movimenti",
        "GET /articoli/{id}/lotti",
        "GET /clienti",
        "POST /arrivi/cerca",
        "POST /arrivi",
        "POST /arrivi/{id}/annulla",
        "POST /giacenze/allinea",
        "GET /documenti-vendita",
        "GET /disponibilita",
      ]),
    );
  });

  test("every endpoint: never a 5xx, always the contract's error body, nothing written by a refusal", async () => {
    for (const ep of endpoints) {
      const name = `${ep.method} ${ep.path}`;
      await fc.assert(
        fc.asyncProperty(
          requestArb(ep, known, { writer, reader }, (e) => examples[`${e.method} ${e.path}`]!),
          async (req) => {
            const before = await snapshot(t.pool);
            const res = await sendInProcess(req);
            if (!res) return;
            stats.tried++;
            stats.byProperty[name] = (stats.byProperty[name] ?? 0) + 1;
            check(ep, req, res, before, await snapshot(t.pool));
          },
        ),
        { numRuns: RUNS_PER_ENDPOINT, seed: SEED, endOnFailure: false },
      );
    }
  }, 900_000);

  test("bodies over the size limit (5 to 12 MB, streamed or declared) are 413 on every POST, nothing written", async () => {
    const posts = endpoints.filter((e) => e.method === "POST");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...posts),
        fc.integer({ min: 5 * 1024 * 1024 + 1, max: 12 * 1024 * 1024 }),
        fc.constantFrom("spazi", "stringa", "righe", "chiavi"),
        fc.boolean(),
        async (ep, size, filler, declare) => {
          const path = ep.path.replace(/\{\w+\}/g, String(known.movimento![0]));
          let text: string;
          if (filler === "spazi") text = `${" ".repeat(size)}{}`;
          else if (filler === "stringa") text = serialise({ ...examples[`${ep.method} ${ep.path}`], causale: "x".repeat(size) });
          else if (filler === "righe")
            text = JSON.stringify({
              magazzino: 1,
              righe: Array.from({ length: Math.ceil(size / 30) }, () => ({ codice: "HP00001", quantita: 1 })),
            });
          else text = JSON.stringify(Object.fromEntries(Array.from({ length: Math.ceil(size / 20) }, (_, i) => [`k${i}`, "valore"])));
          // Whitespace after the value is still JSON: every filler reaches the drawn size.
          const bytes = new TextEncoder().encode(text.length < size ? text + " ".repeat(size - text.length) : text);
          const headers: Record<string, string> = {
            authorization: `Bearer ${writer}`,
            "content-type": "application/json",
            "idempotency-key": `big-${size}`,
          };
          if (declare) headers["content-length"] = String(bytes.byteLength);
          const before = await snapshot(t.pool);
          const res = await rawRest("POST", path, headers, bytes);
          const answer = { status: res.status, headers: res.headers, text: await res.text() };
          stats.tried++;
          stats.byProperty["corpi oltre il limite"] = (stats.byProperty["corpi oltre il limite"] ?? 0) + 1;
          expect(answer.status, answer.text).toBe(413);
          check(ep, { method: "POST", path, query: "", headers, body: bytes }, answer, before, await snapshot(t.pool));
        },
      ),
      { numRuns: BIG_BODY_RUNS, seed: SEED },
    );
  }, 300_000);

  // The hostile cases the brief names, each sent once to every POST endpoint, whatever the generator draws.
  const DEEP: [string, () => string | Uint8Array][] = [
    ["deeply nested object in a field (100,000 levels)", () => `{"magazzino":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`],
    ["deeply nested array in a field (100,000 levels)", () => `{"righe":${"[".repeat(100_000)}${"]".repeat(100_000)}}`],
    ["nested 5,000 levels", () => `{"righe":[${'{"a":'.repeat(5000)}1${"}".repeat(5000)}]}`],
  ];
  const FIXED: [string, () => string | Uint8Array][] = [
    ["nested 1,000 levels", () => `{"righe":[${'{"a":'.repeat(1000)}1${"}".repeat(1000)}]}`],
    ["a whole body 100,000 levels deep (an array: not an object)", () => `${"[".repeat(100_000)}${"]".repeat(100_000)}`],
    ["invalid UTF-8", () => new Uint8Array([0x7b, 0x22, 0x64, 0x64, 0x74, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])],
    ["lone surrogate escape", () => '{"ddt":"\\ud800","causale":"\\udfff","barcode":"\\ud83d"}'],
    ["NUL escapes", () => '{"ddt":"a\\u0000b","causale":"\\u0000","barcode":"\\u0000","codice":"\\u0000"}'],
    ["1e308 and beyond", () => '{"magazzino":1e308,"quantita":1e999,"righe":[{"codice":"HP00001","quantita":1e308,"contato":-1e999}]}'],
    [
      "-0 and 2**53+1",
      () => '{"magazzino":-0,"riga":9007199254740993,"righe":[{"riga":-0,"codice":"HP00001","quantita":9007199254740993,"contato":-0}]}',
    ],
    [
      "NaN-like strings",
      () =>
        '{"magazzino":"NaN","quantita":"Infinity","righe":[{"codice":"HP00001","quantita":"NaN","contato":"-Infinity","prezzo":"NaN"}]}',
    ],
    [
      "SQL in every string",
      () =>
        JSON.stringify({
          natura: "carico'; DROP TABLE movimenti; --",
          magazzino: 1,
          ddt: "' OR '1'='1",
          barcode: "1' OR 1=1 --",
          codice: "%",
          righe: [{ codice: "' OR 1=1 --", lotto: "'; DELETE FROM lotti; --", quantita: 1 }],
        }),
    ],
    ["duplicate keys", () => '{"magazzino":1,"magazzino":2,"righe":[{"codice":"HP00001","quantita":1,"quantita":2}]}'],
    [
      "__proto__ keys",
      () => '{"__proto__":{"magazzino":1},"constructor":{"prototype":{}},"righe":[{"__proto__":{"quantita":1},"codice":"HP00001"}]}',
    ],
    ["BOM before the object", () => new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
    [
      "10,001 rows",
      () =>
        JSON.stringify({
          magazzino: 1,
          ddt: "X",
          natura: "carico",
          righe: Array.from({ length: 10_001 }, (_, i) => ({ codice: `HP0000${1 + (i % 3)}`, quantita: 1, contato: 1, riga: 1 })),
        }),
    ],
  ];
  const fixedCase = async (_name: string, make: () => string | Uint8Array) => {
    for (const ep of endpoints.filter((e) => e.method === "POST")) {
      const path = ep.path.replace(/\{\w+\}/g, String(known.movimento![0]));
      const body = make();
      const headers = { authorization: `Bearer ${writer}`, "content-type": "application/json" };
      const before = await snapshot(t.pool);
      const res = await rawRest("POST", path, headers, body);
      const answer = { status: res.status, headers: res.headers, text: await res.text() };
      stats.tried++;
      stats.byProperty["casi fissi"] = (stats.byProperty["casi fissi"] ?? 0) + 1;
      check(ep, { method: "POST", path, query: "", headers, body }, answer, before, await snapshot(t.pool));
    }
  };
  test.each(FIXED)("fixed case on every POST: %s", fixedCase);

  // Codes the generator reaches rarely or never: a warehouse with locations, a malformed row of each call with rows.
  test("row codes of a warehouse with locations and of malformed rows, on every call with rows", async () => {
    const headers = { authorization: `Bearer ${writer}`, "content-type": "application/json" };
    const send = async (method: string, path: string, body: unknown) => {
      const ep = endpoints.find((e) => e.method === method && e.path === path)!;
      const text = JSON.stringify(body);
      const before = await snapshot(t.pool);
      const res = await rawRest(method, path, headers, text);
      const answer = { status: res.status, headers: res.headers, text: await res.text() };
      stats.tried++;
      check(ep, { method, path, query: "", headers, body: text }, answer, before, await snapshot(t.pool));
      return JSON.parse(answer.text);
    };
    const m1 = known.magazzino![0];
    const stocked = await rawRest(
      "POST",
      "/movimenti",
      headers,
      JSON.stringify({ natura: "carico", magazzino: m3, righe: [{ codice: "HP00001", quantita: 5, ubicazione: "A-01" }] }),
    );
    expect(stocked.status).toBe(200);
    const located = [
      { codice: "HP00001", quantita: 1, motivo: "x" },
      { codice: "HP00001", quantita: 1, ubicazione: "NOPE", motivo: "x" },
      { codice: "HP00001", quantita: 500, ubicazione: "A-01", motivo: "x" },
    ];
    const malformed = [
      { codice: "HP00001", quantita: "1", ubicazione: "A-01", motivo: "x" },
      { codice: "HP00001", colore: "blu" },
    ];
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ motivo: _, ...r }) => r);
    const codesOf = (body: { righe: { errore?: { codice: string } }[] }) => body.righe.map((r) => r.errore?.codice);
    const twice = ["campo_non_valido", "campo_non_valido"];
    const expected = ["ubicazione_obbligatoria", "ubicazione_non_trovata", "quantita_insufficiente_ubicazione"];
    expect(codesOf(await send("POST", "/resi-fornitore", { fornitore: "F1", magazzino: m3, righe: located }))).toEqual(expected);
    expect(codesOf(await send("POST", "/movimenti", { natura: "scarico", magazzino: m3, righe: strip(located) }))).toEqual(expected);
    const unexpected = [{ codice: "HP00001", quantita: 1, ubicazione: "A-01", motivo: "x" }];
    expect(codesOf(await send("POST", "/resi-fornitore", { fornitore: "F1", magazzino: m1, righe: unexpected }))).toEqual([
      "ubicazione_non_prevista",
    ]);
    expect(codesOf(await send("POST", "/movimenti", { natura: "carico", magazzino: m1, righe: strip(unexpected) }))).toEqual([
      "ubicazione_non_prevista",
    ]);
    const counts = [
      { codice: "HP00001", contato: 1 },
      { codice: "HP00001", contato: 1, ubicazione: "NOPE" },
    ];
    expect(codesOf(await send("POST", "/giacenze/allinea", { magazzino: m3, righe: counts }))).toEqual([
      "ubicazione_obbligatoria",
      "ubicazione_non_trovata",
    ]);
    const badCounts = [{ codice: "HP00001", contato: "1" }, { contato: 1 }];
    expect(codesOf(await send("POST", "/giacenze/allinea", { magazzino: m3, righe: badCounts }))).toEqual(twice);
    expect(codesOf(await send("POST", "/resi-fornitore", { fornitore: "F1", magazzino: m3, righe: malformed }))).toEqual(twice);
    expect(codesOf(await send("POST", "/movimenti", { natura: "scarico", magazzino: m3, righe: strip(malformed) }))).toEqual(twice);
    const arrivals = [{ riga: known.riga![0], quantita: "1" }, { quantita: 1 }];
    expect(codesOf(await send("POST", "/arrivi", { magazzino: m1, ddt: "DDT-H", righe: arrivals }))).toEqual([
      "campo_non_valido",
      "campo_non_valido",
    ]);
  });

  // BUG (open): trpc-to-openapi collects query parameters into a plain object ({}), so a parameter named
  // like an Object.prototype member finds a non-array there and throws.
  test("a query parameter named __proto__, constructor or toString is filtro_non_valido on every endpoint", async () => {
    for (const ep of endpoints) {
      for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        const path = `${ep.path.replace(/\{\w+\}/g, String(known.movimento![0]))}?${name}=1`;
        const headers: Record<string, string> = { authorization: `Bearer ${writer}` };
        if (ep.method === "POST") headers["content-type"] = "application/json";
        const before = await snapshot(t.pool);
        const res = await rawRest(
          ep.method,
          path,
          headers,
          ep.method === "POST" ? JSON.stringify(examples[`${ep.method} ${ep.path}`]) : undefined,
        );
        const answer = { status: res.status, headers: res.headers, text: await res.text() };
        stats.tried++;
        stats.byProperty["parametri come Object.prototype"] = (stats.byProperty["parametri come Object.prototype"] ?? 0) + 1;
        check(ep, { method: ep.method, path, query: "", headers }, answer, before, await snapshot(t.pool));
      }
    }
  });
  // BUG (open): rest-handler.ts re-serialises the parsed body with JSON.stringify, which overflows the stack.
  test.each(DEEP)("fixed case on every POST: %s", fixedCase);
});

/**
 * Reads whose required parameters name what the walk below does not supply (labels, print jobs, a difference's
 * photo, the fill rate's period).
 */
const NAMES_WHAT_THE_WALK_LACKS =
  /^\/(etichette\/|stampe\/|ordini-acquisto\/\{id\}\/etichette$|differenze-ricevimento\/\{id\}\/foto\/|differenze-ricevimento\/tasso-riempimento$)/;

describe("the document walked: authentication and scopes", () => {
  const concrete = (ep: Endpoint) =>
    `${ep.path.replace(/\{\w+\}/g, String(known.movimento![0]))}${ep.method === "GET" && ep.query.includes("magazzino") ? `?magazzino=${known.magazzino![0]}` : ""}`;
  const withBody = (ep: Endpoint) => ep.method === "POST" || ep.method === "PATCH";
  // A difference's photo takes the image as its body (docs/api.md section 12): sent as such, the walk reaches the
  // key's check, as with the JSON of every other write (a wrong body type is refused first, as everywhere).
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
  const send = (ep: Endpoint, headers: Record<string, string>) =>
    ep.method === "POST" && ep.path.endsWith("/foto")
      ? rawRest(ep.method, concrete(ep), { ...headers, "content-type": "image/png" }, PNG)
      : rawRest(
          ep.method,
          concrete(ep),
          withBody(ep) ? { ...headers, "content-type": "application/json" } : headers,
          withBody(ep) ? JSON.stringify(examples[`${ep.method} ${ep.path}`]) : undefined,
        );

  test("without a key every endpoint is 401 with WWW-Authenticate: Bearer; with a lettura key every write and /webhook is 403; reads pass", async () => {
    const rows: string[] = [];
    for (const ep of endpoints) {
      for (const [label, headers] of [
        ["senza chiave", {}],
        ["chiave malformata", { authorization: "Bearer x" }],
        ["chiave sconosciuta", { authorization: "Bearer bnc_00000000_sconosciutasconosciutasconosciuta" }],
      ] as const) {
        const before = await snapshot(t.pool);
        const res = await send(ep, headers);
        const text = await res.text();
        expect(res.status, `${ep.method} ${ep.path} ${label}: ${text}`).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        expect(JSON.parse(text)).toMatchObject({ codice: "non_autenticato", messaggio: expect.any(String) });
        expect(await snapshot(t.pool)).toEqual(before);
      }
      const before = await snapshot(t.pool);
      const res = await send(ep, { authorization: `Bearer ${reader}`, "idempotency-key": `lettura-${ep.path}` });
      const text = await res.text();
      // docs/api.md section 3: lettura covers the GET endpoints and POST /arrivi/cerca; everything else is a write;
      // /webhook, reads included, needs the webhook scope besides.
      if (isWriteEndpoint(ep) || ep.path.startsWith("/webhook")) {
        expect(res.status, `${ep.method} ${ep.path} with lettura: ${text}`).toBe(403);
        expect(JSON.parse(text)).toMatchObject({ codice: "permesso_negato", messaggio: expect.any(String) });
        expect(await snapshot(t.pool)).toEqual(before);
      } else if (NAMES_WHAT_THE_WALK_LACKS.test(ep.path)) {
        // Past the scope check, a label of an article, location or pallet the walk does not name, a print job it
        // never queued or a photo it never sent, is that thing's refusal (docs/api.md sections 12 and 13).
        expect([200, 404, 422], `${ep.method} ${ep.path} with lettura: ${text}`).toContain(res.status);
        if (res.status >= 400) expect(JSON.parse(text).codice, `${ep.method} ${ep.path} with lettura`).not.toBe("permesso_negato");
      } else {
        expect([200, 201], `${ep.method} ${ep.path} with lettura: ${text}`).toContain(res.status);
      }
      rows.push(`${ep.method} ${ep.path}: lettura → ${res.status}`);
    }
    report("tabella permessi", rows);
    // The contract's four writes are among them, and the document marks them with Idempotency-Key.
    expect(endpoints.filter(isWriteEndpoint).map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining(["POST /arrivi", "POST /arrivi/{id}/annulla", "POST /giacenze/allinea", "POST /movimenti"]),
    );
    for (const e of endpoints.filter(
      (x) => ["/movimenti", "/arrivi", "/arrivi/{id}/annulla", "/giacenze/allinea"].includes(x.path) && x.method === "POST",
    )) {
      expect(e.idempotent, `${e.method} ${e.path} documents Idempotency-Key`).toBe(true);
    }
  });
});

describe("over real HTTP (a sample)", () => {
  let s: Service;
  beforeAll(async () => {
    await ensureBuild((m) => console.log(`[affidabilità] ${m}`));
    s = await launch({ databaseUrl: t.url });
  }, 600_000);

  async function sendHttp(req: GeneratedRequest, rawPath?: string): Promise<Answer | undefined> {
    let res: Response;
    try {
      res = await fetch(`${s.base}${rawPath ?? `/api/v1${req.path}${req.query ? `?${req.query}` : ""}`}`, {
        method: req.method,
        headers: req.headers,
        body: req.body as BodyInit | undefined,
        redirect: "manual",
      });
    } catch (e) {
      if (e instanceof TypeError && !String((e as Error).cause ?? "").includes("ECONN")) {
        stats.skipped++;
        return undefined;
      }
      throw e;
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  test("generated requests to every endpoint, through Next and the network", async () => {
    for (const ep of endpoints) {
      await fc.assert(
        fc.asyncProperty(
          requestArb(ep, known, { writer, reader }, (e) => examples[`${e.method} ${e.path}`]!),
          async (req) => {
            const before = await snapshot(t.pool);
            const res = await sendHttp(req);
            if (!res) return;
            stats.tried++;
            if (res.status === 431) {
              // Node's HTTP parser refuses a request line + headers over 16 KB before the service sees it:
              // no contract body, no X-Request-Id (reported as an oddity). Nothing can have been written.
              stats.transport431++;
              expect(await snapshot(t.pool)).toEqual(before);
              return;
            }
            stats.byProperty[`HTTP ${ep.method} ${ep.path}`] = (stats.byProperty[`HTTP ${ep.method} ${ep.path}`] ?? 0) + 1;
            check(ep, req, res, before, await snapshot(t.pool));
          },
        ),
        { numRuns: HTTP_RUNS_PER_ENDPOINT, seed: SEED },
      );
    }
  }, 600_000);

  test("odd paths under /api/v1 get the contract's body", async () => {
    const paths = [
      "/api/v1/arrivi/..%2f..%2f/annulla",
      "/api/v1/%00",
      "/api/v1/movimenti%00",
      "/api/v1/movimenti/",
      "/api/v1//movimenti",
      "/api/v1/movimenti;x=1",
      "/api/v1/articoli/1/lotti?magazzino=%ZZ",
      "/api/v1/movimenti?limite=%FF",
      "/api/v1/movimenti?%ZZ=1",
      `/api/v1/${"x".repeat(5000)}`,
      "/api/v1/arrivi/1e3/annulla",
      "/api/v1/arrivi/١/annulla",
      "/api/v1/arrivi/%31/annulla",
      "/api/v1/Movimenti",
    ];
    await oddPaths(paths);
  }, 120_000);

  // BUG (open): Next decodes the catch-all segment itself and answers a malformed escape with its own 500.
  test("a malformed %-escape in a path segment gets the contract's body", async () => {
    await oddPaths(["/api/v1/arrivi/%ZZ/annulla", "/api/v1/articoli/%E0%A4%A/lotti?magazzino=1", "/api/v1/%ZZ"]);
  }, 120_000);

  async function oddPaths(paths: string[]) {
    const out: Record<string, string> = {};
    const wrong: string[] = [];
    for (const p of paths) {
      for (const method of ["GET", "POST"]) {
        const headers: Record<string, string> = { authorization: `Bearer ${writer}` };
        if (method === "POST") headers["content-type"] = "application/json";
        const req: GeneratedRequest = { method, path: p, query: "", headers, body: method === "POST" ? "{}" : undefined };
        const res = await sendHttp(req, p);
        if (!res) continue;
        stats.tried++;
        stats.byProperty["HTTP percorsi strani"] = (stats.byProperty["HTTP percorsi strani"] ?? 0) + 1;
        const line = `${res.status} ${res.headers.get("x-request-id") ? "" : "(senza X-Request-Id) "}${res.text.slice(0, 60)}`;
        out[`${method} ${p.slice(0, 60)}`] = line;
        let body: any;
        try {
          body = JSON.parse(res.text);
        } catch {
          body = undefined;
        }
        // Next's own 308 for a doubled slash carries no X-Request-Id: reported, not failed (a redirect has no contract body).
        const redirect = res.status === 308;
        const ok =
          redirect ||
          (res.status < 500 &&
            !!res.headers.get("x-request-id") &&
            (res.status < 400 || (typeof body?.codice === "string" && typeof body?.messaggio === "string")));
        if (!ok) wrong.push(`${method} ${p} → ${line}`);
      }
    }
    report("percorsi strani su HTTP", out);
    expect(wrong).toEqual([]);
  }

  test("a body refused before it is read: the client always gets the 413, never a broken pipe", async () => {
    // The service answers from the declared length; it must read and drop the rest instead of
    // closing under the client: closing gave a good share of large uploads a broken pipe.
    const body = JSON.stringify({ natura: "carico", magazzino: 1, causale: "x".repeat(10 * 1024 * 1024), righe: [] });
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 20; i++) {
      const got = await fetch(`${s.base}/api/v1/movimenti`, {
        method: "POST",
        headers: { authorization: `Bearer ${writer}`, "content-type": "application/json" },
        body,
      }).then(
        async (r) => `${r.status} ${(JSON.parse(await r.text()) as { codice?: string }).codice}`,
        (e: Error) => `errore ${String(e.cause ?? e).slice(0, 60)}`,
      );
      outcomes[got] = (outcomes[got] ?? 0) + 1;
    }
    expect(outcomes).toEqual({ "413 richiesta_troppo_grande": 20 });
  }, 120_000);

  test("after a refused body is drained, the same connection serves the next request", async () => {
    // A raw socket: Node's own client never reuses a socket whose upload outlived the answer, so it
    // cannot show what the server does. Here: a 10 MB upload, its 413, then a GET on the same socket.
    const { hostname, port } = new URL(s.base);
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let closed = false;
    socket.on("data", (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.on("close", () => (closed = true));
    socket.on("error", () => {});
    /** The next whole response on the socket: its status line and body (by Content-Length). */
    const nextResponse = async () => {
      for (let waited = 0; waited < 30_000; waited += 10) {
        const end = received.indexOf("\r\n\r\n");
        if (end >= 0) {
          const head = received.subarray(0, end).toString("latin1");
          const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (received.length >= end + 4 + length) {
            const body = received.subarray(end + 4, end + 4 + length).toString("utf8");
            received = received.subarray(end + 4 + length);
            return { status: Number(head.split(" ")[1]), body };
          }
        }
        if (closed) throw new Error("connessione chiusa dal servizio");
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error("nessuna risposta in 30 s");
    };
    const auth = `Authorization: Bearer ${writer}\r\nHost: ${hostname}:${port}\r\n`;
    try {
      const body = Buffer.from(JSON.stringify({ natura: "carico", causale: "x".repeat(10 * 1024 * 1024) }));
      socket.write(`POST /api/v1/movimenti HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body);
      const refused = await nextResponse();
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body)).toMatchObject({ codice: "richiesta_troppo_grande" });
      socket.write(`GET /api/v1/movimenti?limite=1 HTTP/1.1\r\n${auth}\r\n`);
      const next = await nextResponse();
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body)).toHaveProperty("movimenti");
    } finally {
      socket.destroy();
    }
  }, 60_000);

  test("10 MB, invalid UTF-8 and deep nesting over HTTP", async () => {
    const headers = { authorization: `Bearer ${writer}`, "content-type": "application/json" };
    const cases: [string, string | Uint8Array, number][] = [
      ["10 MB", JSON.stringify({ natura: "carico", magazzino: 1, causale: "x".repeat(10 * 1024 * 1024), righe: [] }), 413],
      ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 400],
      ["nested 1,000 levels", `{"magazzino":${'{"a":'.repeat(1000)}1${"}".repeat(1000)}}`, 422],
      ["deeply nested", `{"magazzino":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`, 422],
    ];
    const ep = endpoints.find((e) => e.method === "POST" && e.path === "/movimenti")!;
    for (const [name, body, status] of cases) {
      const before = await snapshot(t.pool);
      const res = await sendHttp({ method: "POST", path: "/movimenti", query: "", headers, body });
      stats.tried++;
      stats.byProperty["HTTP casi fissi"] = (stats.byProperty["HTTP casi fissi"] ?? 0) + 1;
      check(ep, { method: "POST", path: "/movimenti", query: "", headers, body }, res!, before, await snapshot(t.pool));
      expect(res!.status, `${name}: ${res!.text.slice(0, 200)}`).toBe(status);
    }
  }, 120_000);
});

describe("the codes observed", () => {
  // After every test above: what the suite saw, against what the document promises a client.
  test("every code an answer carried is in the document's enum of that operation and status", () => {
    const missing: string[] = [];
    for (const [key, { ep, status, rows, codes }] of observed) {
      const documented = rows ? documentedRowCodes(ep, status) : documentedCodes(ep, status);
      for (const codice of codes) if (!documented.includes(codice)) missing.push(`${key}: ${codice}`);
    }
    expect(observed.size).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });
});
