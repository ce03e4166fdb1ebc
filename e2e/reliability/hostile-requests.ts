import fc from "fast-check";
import type { Endpoint, Known } from "./hostile-endpoints";
import { hostileString, hostileValue, serialise } from "./hostile-values";

// The hostile requests, for one endpoint of the document (hostile-endpoints.ts says what the generators are).

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
