import fc from "fast-check";
/**
 * Generators of hostile requests for every endpoint of the OpenAPI document. Nothing here knows the
 * endpoints by name: names and types come from the document; `known` supplies values that exist in
 * the test database for the names the document uses (so that generated requests also get past
 * validation and reach the services and the database).
 */

export interface Endpoint {
  method: string;
  path: string;
  query: string[];
  pathParams: string[];
  idempotent: boolean;
  bodyProps: string[];
  rowProps: string[];
  required: string[];
}

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; required?: string[]; $ref?: string };

export function endpointsOf(doc: {
  paths?: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
}): Endpoint[] {
  const out: Endpoint[] = [];
  // The rows of a call are a named schema (`RigaMovimentoIngresso`): their fields are read there.
  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? doc.components?.schemas?.[s.$ref.replace("#/components/schemas/", "")] : s;
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as { in: string; name: string }[];
      const schema = op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
      const rows = resolve(schema?.properties?.righe?.items);
      out.push({
        method: method.toUpperCase(),
        path,
        query: params.filter((p) => p.in === "query").map((p) => p.name),
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        idempotent: params.some((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key"),
        bodyProps: Object.keys(schema?.properties ?? {}),
        rowProps: Object.keys(rows?.properties ?? {}),
        required: schema?.required ?? [],
      });
    }
  }
  return out;
}

/** Values that exist in the test database (or plausibly could), by the field or parameter names of the document. */
export type Known = Record<string, unknown[]>;

export const SQL_METACHARACTERS = [
  "'",
  "''",
  "' OR '1'='1",
  "1' OR 1=1 --",
  "'; DROP TABLE movimenti; --",
  '"; DELETE FROM giacenze; --',
  "1; SELECT pg_sleep(5); --",
  "$1",
  "$$",
  "\\",
  "\\'",
  "%",
  "_%",
  "E'\\x00'",
  "/*",
  "*/",
  ";",
  "--",
  "\u0000",
  "a\u0000b",
  "NULL",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "[object Object]",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant as plain text.
  "${7*7}",
  "{{7*7}}",
  "<script>alert(1)</script>",
  "../../../etc/passwd",
  "%00",
  "%27",
  "%ZZ",
];
export const NUMERIC_STRINGS = [
  "NaN",
  "Infinity",
  "-Infinity",
  "1e308",
  "1e309",
  "-0",
  "0",
  "-1",
  "9007199254740993",
  "2147483648",
  "0x10",
  "0b1",
  "1_000",
  " 1",
  "1 ",
  "+1",
  "1.",
  ".5",
  "1e-7",
  "12,5",
  "١٢",
  "１２",
  "00000000001",
  "1".repeat(40),
  "0.0001",
  "1.23456",
];
export const DATE_STRINGS = [
  "2026-02-30",
  "2026-13-01",
  "0000-00-00",
  "9999-12-31",
  "2026-1-1",
  "2026-01-01T00:00:00Z",
  "20260101",
  "2026/01/01",
  "-2026-01-01",
  "+012026-01-01",
  "2024-02-29",
  "2026-11-22",
];
export const UNICODE = [
  "è",
  "ñ",
  "😀",
  "👨‍👩‍👧",
  "\u202e",
  "\ufeff",
  "\u200b",
  "ﬃ",
  "İ",
  "Ω",
  "\ud800",
  "\udfff",
  "a\u0301",
  "日本語",
  "\u00a0",
  "\r\n",
  "\t",
  "\u2028",
  "\u{10ffff}",
];
export const BARCODES = [
  "R1",
  "R0",
  "R-1",
  "R99999999999",
  "(01)08001234567897(10)L1(17)271231",
  "\u001d0108001234567897",
  "]C1010800123456789710L1",
  "(01)(10)(17)",
  "(17)991399",
  "8001234567897",
];

/** Raw JSON number literals JSON.stringify cannot produce: spliced into the text after serialisation. */
export const RAW_NUMBERS = [
  "-0",
  "1e999",
  "-1e999",
  "1E400",
  "9007199254740993",
  "-9007199254740993",
  "123456789012345678901234567890",
  "0.1e1",
  "1.0",
  "1e-400",
  "0.00000000000000000000001",
  "2.0000000000000001",
  "4.0000",
  "1e2",
  "-0.0",
];

export const NESTING_DEPTHS = [10, 1000, 20_000, 100_000];

const RAW = "\u0001RAW:";
const rawToken = (t: string) => `${RAW}${t}\u0001`;

/** JSON text with the raw tokens spliced in. */
export function serialise(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001RAW:([^"\\]*)\\u0001"/g, "$1");
}

const nested = (depth: number, kind: "obj" | "arr") =>
  kind === "obj" ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`;

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SQL_METACHARACTERS, ...NUMERIC_STRINGS, ...DATE_STRINGS, ...UNICODE, ...BARCODES) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "x".repeat(64),
      "x".repeat(65),
      "x".repeat(200),
      "x".repeat(201),
      "x".repeat(256),
      "é".repeat(10_000),
      "",
      " ",
      "   ",
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...SQL_METACHARACTERS, ...UNICODE, ""),
        fc.constantFrom(...NUMERIC_STRINGS, ...BARCODES, "A", ""),
        fc.constantFrom(...SQL_METACHARACTERS, ...UNICODE, ""),
      )
      .map(([a, b, c]) => `${a}${b}${c}`),
  },
);

const numberValue: fc.Arbitrary<number> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      2 ** 53 + 1,
      2 ** 53,
      -(2 ** 53),
      0,
      1,
      -1,
      0.1,
      0.0001,
      0.001,
      1.0005,
      2.5,
      10,
      2_147_483_647,
      2_147_483_648,
      4_294_967_296,
      1e21,
      5e-324,
      -5,
      10_001,
      99_999_999,
    ),
  },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 50 }) },
);

/** A value that may appear anywhere in a body: scalars, raw literals, nesting (shallow or very deep). */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    numberValue,
    fc.constantFrom(...RAW_NUMBERS).map(rawToken),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...NESTING_DEPTHS).chain((d) => fc.constantFrom("obj" as const, "arr" as const).map((k) => rawToken(nested(d, k)))),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(
      fc.oneof(fc.constantFrom("a", "righe", "__proto__", "constructor", "codice", "'; --"), fc.string({ maxLength: 6 })),
      tie("value"),
      { maxKeys: 3 },
    ),
  ),
})).value;

const JUNK_KEYS = ["__proto__", "constructor", "prototype", "zzz", "'; DROP TABLE x; --", "", "righe[0]", "MAGAZZINO", "magazzino ", "è"];

/** A value for a named field: usually plausible (an existing id or code), often hostile. */
function fieldValue(name: string, known: Known): fc.Arbitrary<unknown> {
  const values = Object.hasOwn(known, name) ? known[name]! : [];
  if (!values.length) return hostileValue;
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...values) }, { weight: 3, arbitrary: hostileValue });
}

export interface GeneratedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
  /** Set when the body is a parsed-able JSON object built from the endpoint's fields. */
  structured?: boolean;
  idempotencyKey?: string;
}

const enc = new TextEncoder();

/** encodeURIComponent, except that a lone surrogate (which it refuses) goes out as its raw UTF-16 unit's %-escapes. */
export function encodeLoosely(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s]
      .map((ch) => {
        try {
          return encodeURIComponent(ch);
        } catch {
          return `%${ch.charCodeAt(0).toString(16).toUpperCase().slice(0, 2)}%${ch.charCodeAt(0).toString(16).toUpperCase().slice(2)}`;
        }
      })
      .join("");
  }
}

/** An own property even for "__proto__", so that it reaches the JSON text. */
function put(o: Record<string, unknown>, k: string, v: unknown) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

function withBytes(text: string, at: number, bytes: number[]): Uint8Array {
  const t = enc.encode(text);
  const i = Math.min(at, t.length);
  const out = new Uint8Array(t.length + bytes.length);
  out.set(t.subarray(0, i), 0);
  out.set(bytes, i);
  out.set(t.subarray(i), i + bytes.length);
  return out;
}

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "application/json ; x=y",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonp",
  "application/json-patch+json",
  "application/vnd.api+json",
  "text/json",
  "*/*",
  "application/xml",
  "",
];

const printable = fc.constantFrom(...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)));
/** Idempotency-Key values, valid and not (Latin-1 only: fetch refuses other header bytes). */
export const idempotencyKeyArb: fc.Arbitrary<string | undefined> = fc.option(
  fc.oneof(
    fc.string({ unit: printable, minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== ""),
    fc.constantFrom(
      "",
      " ",
      "x".repeat(255),
      "x".repeat(256),
      "y".repeat(5000),
      "è",
      "ÿÿ",
      "\x7f",
      "a\tb",
      "'; DROP TABLE idempotenza; --",
      "%00",
      "null",
      "0",
      "-1",
      "../../x",
      "chiave ripetuta",
      "\u00e9t\u00e9",
    ),
  ),
  { freq: 2 },
);

export function requestArb(
  ep: Endpoint,
  known: Known,
  keys: { writer: string; reader: string },
  example: (ep: Endpoint) => Record<string, unknown>,
): fc.Arbitrary<GeneratedRequest> {
  const auth = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${keys.writer}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${keys.reader}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        "",
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        `bearer ${keys.writer}`,
        `Bearer ${keys.writer}x`,
        `Bearer ${keys.writer} ${keys.writer}`,
        "Bearer ' OR '1'='1",
        "Bearer bnc_00000000_' OR 1=1 --",
        `Bearer ${"a".repeat(5000)}`,
        "Bearer bnc_%00",
      ),
    },
  );

  const pathArb = fc
    .tuple(
      ...ep.pathParams.map((p) =>
        fc.oneof(
          {
            weight: 3,
            arbitrary: fc
              .constantFrom(...(known[p === "id" && ep.path.includes("annulla") ? "movimento" : p === "id" ? "articolo" : p] ?? [1]))
              .map(String),
          },
          { weight: 2, arbitrary: hostileString.map(encodeLoosely) },
          {
            weight: 1,
            arbitrary: fc.constantFrom("..", "%2e%2e", "0", "-1", "99999999999", "1e3", "%ZZ", "1%2F2", "1;2", "+1", " 1", "01"),
          },
        ),
      ),
    )
    .map((vals) => {
      let i = 0;
      return ep.path.replace(/\{\w+\}/g, () => String(vals[i++]));
    });

  const queryArb = fc
    .array(
      fc.tuple(
        fc.oneof(
          { weight: 5, arbitrary: ep.query.length ? fc.constantFrom(...ep.query) : fc.constant("x") },
          { weight: 1, arbitrary: fc.constantFrom(...JUNK_KEYS, "pagina", "LIMITE", "limite[]", "toString", "hasOwnProperty") },
        ),
        fc.oneof(
          { weight: 2, arbitrary: fc.constantFrom("1", "5", "100", "101", "500", "501", "0", "2026-11-22", "api", "true") },
          { weight: 1, arbitrary: hostileString },
        ),
        fc.constantFrom("encoded", "encoded", "encoded", "raw"),
      ),
      { maxLength: 5 },
    )
    .map((pairs) =>
      pairs.map(([k, v, how]) => (how === "raw" ? `${k}=${v.replace(/[#\s]/g, "")}` : `${encodeLoosely(k)}=${encodeLoosely(v)}`)).join("&"),
    );

  const rowArb = fc
    .record({
      base: fc.boolean(),
      keys: fc.subarray(ep.rowProps.length ? [...ep.rowProps, ...JUNK_KEYS.slice(0, 3)] : ["x"], { maxLength: ep.rowProps.length ? 3 : 1 }),
    })
    .chain(({ base, keys }) =>
      fc.tuple(...keys.map((k) => fieldValue(k, known))).map((vals) => {
        const ex = ((example(ep).righe as Record<string, unknown>[] | undefined) ?? [{}])[0] ?? {};
        const row: Record<string, unknown> = base ? { ...ex } : {};
        keys.forEach((k, i) => put(row, k, vals[i]));
        return row;
      }),
    );

  const structuredBody = fc
    .record({
      base: fc.boolean(),
      keys: fc.subarray([...ep.bodyProps, ...JUNK_KEYS.slice(0, 5)], { maxLength: 4 }),
      drop: fc.subarray(ep.bodyProps, { maxLength: Math.min(2, ep.bodyProps.length) }),
      rows: fc.option(fc.array(rowArb, { maxLength: 6 }), { freq: 2 }),
    })
    .chain(({ base, keys, drop, rows }) =>
      fc.tuple(...keys.map((k) => fieldValue(k, known))).map((vals) => {
        const body: Record<string, unknown> = base ? { ...example(ep) } : {};
        keys.forEach((k, i) => put(body, k, vals[i]));
        for (const k of drop) delete body[k];
        if (rows !== null && ep.rowProps.length) body.righe = rows;
        return serialise(body);
      }),
    );

  const bodyArb: fc.Arbitrary<{ text?: string; bytes?: Uint8Array; structured: boolean }> = fc.oneof(
    { weight: 8, arbitrary: structuredBody.map((text) => ({ text, structured: true })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v), structured: false })) },
    { weight: 1, arbitrary: hostileValue.map((v) => ({ text: serialise(v), structured: false })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(structuredBody, fc.nat(), fc.constantFrom(...INVALID_UTF8))
        .map(([text, at, bytes]) => ({ bytes: withBytes(text, at % (text.length + 1), bytes), structured: false })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes, structured: false })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("", " ", "{", "}", "{}", "[]", "null", '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', "\ufeff{}")
        .map((text) => ({ text, structured: false })),
    },
  );

  const otherMethods = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
  return fc
    .record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant(ep.method) }, { weight: 1, arbitrary: otherMethods }),
      path: pathArb,
      query: fc.oneof({ weight: ep.method === "GET" ? 4 : 1, arbitrary: queryArb }, { weight: 2, arbitrary: fc.constant("") }),
      auth,
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant("application/json") },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      idem: ep.idempotent
        ? idempotencyKeyArb
        : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: idempotencyKeyArb }),
      body: bodyArb,
      extra: fc.option(
        fc.constantFrom<[string, string]>(
          ["x-forwarded-for", "' OR 1=1"],
          ["accept", "text/html"],
          ["content-encoding", "gzip"],
          ["transfer-encoding", "chunked"],
          ["x-request-id", "'; --"],
          ["expect", "100-continue"],
        ),
        { freq: 4 },
      ),
    })
    .map(({ method, path, query, auth, contentType, idem, body, extra }) => {
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers.authorization = auth;
      if (idem !== undefined) headers["idempotency-key"] = idem;
      if (extra && !["transfer-encoding", "expect", "content-encoding"].includes(extra[0])) headers[extra[0]] = extra[1];
      const hasBody = method !== "GET" && method !== "HEAD";
      if (hasBody && contentType !== undefined) headers["content-type"] = contentType;
      return {
        method,
        path,
        query,
        headers,
        body: hasBody ? (body.bytes ?? body.text) : undefined,
        structured: body.structured,
        idempotencyKey: idem,
      };
    });
}
