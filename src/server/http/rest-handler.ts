import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { DomainError } from "../lib/errors";
import type { HeaderReader } from "../lib/headers";
import { REST_PREFIX } from "../lib/links";
import { createContextInner } from "../trpc/context";
import { openApiDocument } from "../trpc/openapi";
import { binaryBody } from "./binary-body";
import { toErrorResponse, type ErrorResponse } from "../trpc/errors";
import { callRestProcedure, matchRoute } from "./rest-routes";
import type { RestRequest } from "./rest.types";

/**
 * The REST facade (/api/v1): the contract's transport rules around the procedures that trpc-to-openapi
 * documents. Here: request ids, 404 versus 405, content type, body size, JSON shape, repeated query
 * parameters, and the contract's error body for every failure; rest-routes.ts finds the procedure and calls
 * it as the library's handler would. Procedures do the rest.
 *
 * The core (`serveRest`) reads a transport-neutral request: the custom server hands it Node's request
 * as is (`serveNodeRest`), the Next route and the tests a Fetch `Request` (`handleRestRequest`).
 */

export interface RestResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

function json(status: number, body: unknown, headers: Record<string, string>, requestId: string): RestResponse {
  return {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "X-Request-Id": requestId, ...headers },
    body: JSON.stringify(body),
  };
}

function errorResponse(e: ErrorResponse, requestId: string): RestResponse {
  return json(e.status, e.body, e.headers, requestId);
}

/** The refusal of a body over the limit, declared or found while reading. */
export function bodyTooLarge(limit: number): DomainError {
  return new DomainError(
    "richiesta_troppo_grande",
    `Il corpo supera il limite di ${Math.round(limit / 1024 / 1024)} MB: dividere la richiesta.`,
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const MAX_JSON_DEPTH = 64;

function depthExceeds(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth > max) return true;
    for (const child of Object.values(value as object)) stack.push([child, depth + 1]);
  }
  return false;
}

function parseJsonObject(bytes: Uint8Array, emptyOk: boolean): Record<string, unknown> {
  const bad = (m: string) => new DomainError("json_non_valido", m);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw bad("Il corpo non è testo UTF-8 valido.");
  }
  if (text.trim() === "") {
    if (emptyOk) return {};
    throw bad("Corpo vuoto: atteso un oggetto JSON.");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    if (e instanceof RangeError) throw bad("JSON annidato troppo in profondità.");
    throw bad(`Il corpo non è JSON valido: ${(e as Error).message.replace(/\s+/g, " ").slice(0, 120)}.`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw bad("Il corpo deve essere un oggetto JSON ({ … }).");
  }
  // Measured without recursion: nothing legitimate nests this deep, and what does would exhaust the
  // stack of every recursive walk after this one (validation, canonical JSON, JSON.stringify).
  if (depthExceeds(parsed, MAX_JSON_DEPTH)) {
    throw new DomainError(
      "richiesta_non_valida",
      `JSON annidato troppo in profondità (oltre ${MAX_JSON_DEPTH} livelli): nessun campo di questa API lo richiede.`,
    );
  }
  return parsed as Record<string, unknown>;
}

export async function serveRest(req: RestRequest): Promise<RestResponse> {
  const requestId = randomUUID();
  const config = getConfig();
  const queryAt = req.url.indexOf("?");
  const pathname = queryAt < 0 ? req.url : req.url.slice(0, queryAt);
  const search = queryAt < 0 ? "" : req.url.slice(queryAt);
  const path = pathname.startsWith(REST_PREFIX) ? pathname.slice(REST_PREFIX.length) || "/" : pathname;
  const method = req.method.toUpperCase();
  try {
    if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) {
      return json(200, openApiDocument(), { "Cache-Control": "no-cache" }, requestId);
    }
    const matched = matchRoute(path);
    if (!matched) throw new DomainError("non_trovato", `Percorso sconosciuto: ${pathname}. I percorsi sono in /api/v1/openapi.json.`);
    const { route } = matched;
    const entry = route.methods.get(method);
    if (!entry) {
      throw new DomainError("metodo_non_consentito", `Metodo ${method} non consentito su ${pathname}: usare ${route.allow.join(" o ")}.`, {
        allow: route.allow,
      });
    }

    const params = new URLSearchParams(search);
    const query: Record<string, string> = {};
    let body: Record<string, unknown> | undefined;
    if (method === "GET") {
      for (const [key, value] of params) {
        // The parameters become a plain object: a prototype member would break it.
        if (key in Object.prototype) throw new DomainError("filtro_non_valido", `Parametro sconosciuto '${key}'.`, { campo: key });
        if (key in query)
          throw new DomainError("filtro_non_valido", `Il parametro '${key}' è ripetuto: indicarlo una volta sola.`, { campo: key });
        query[key] = value;
      }
    } else if (entry.meta.binaryBody === "image") {
      body = await binaryBody(req, params);
    } else {
      // A write takes its data from the body only: a query parameter is never silently ignored.
      for (const key of params.keys()) {
        throw new DomainError("filtro_non_valido", `Parametro '${key}' non previsto: questa richiesta prende i dati dal corpo JSON.`, {
          campo: key,
        });
      }
      const contentType = req.headers.get("content-type");
      const declared = Number(req.headers.get("content-length") ?? "NaN");
      if (Number.isFinite(declared) && declared > config.BODY_LIMIT_BYTES) throw bodyTooLarge(config.BODY_LIMIT_BYTES);
      const bytes = await req.readBody(config.BODY_LIMIT_BYTES);
      const isJson = contentType !== null && /^application\/json\s*(;|$)/i.test(contentType);
      if ((contentType !== null && !isJson) || (contentType === null && bytes.byteLength > 0)) {
        throw new DomainError("tipo_contenuto_non_supportato", "Il corpo deve essere JSON: usare 'Content-Type: application/json'.");
      }
      body = parseJsonObject(bytes, method === "DELETE" || entry.bodiless);
      if (method === "DELETE") {
        // A DELETE names its target in the path; `{}` (what some clients send) is no body either.
        const [field] = Object.keys(body);
        if (field !== undefined)
          throw new DomainError("richiesta_non_valida", `Campo sconosciuto '${field}': questa richiesta non ha corpo.`, { campo: field });
        body = undefined;
      }
    }

    const ctx = createContextInner({ db: getDb(), config, headers: req.headers, channel: "rest", requestId });
    const data = await callRestProcedure(entry, ctx, matched.params, body, query);
    const headers = { ...ctx.response.headers, "X-Request-Id": requestId };
    const binary = ctx.response.binary;
    if (binary !== undefined) return { status: ctx.response.status ?? 200, headers, body: binary };
    return {
      status: ctx.response.status ?? 200,
      headers: { ...headers, "Content-Type": "application/json; charset=utf-8" },
      body: JSON.stringify(data),
    };
  } catch (e) {
    return errorResponse(toErrorResponse(e, { requestId, isQuery: method === "GET" }), requestId);
  }
}

/** Reads a Fetch body, stopping past the limit. */
async function readFetchBody(req: Request, limit: number): Promise<Uint8Array> {
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading, but do not cancel: cancelling destroys the socket before the 413 is written.
      reader.releaseLock();
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** The REST facade for a Fetch `Request`: the Next route file and in-process tests. */
export async function handleRestRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const out = await serveRest({
    method: req.method,
    url: url.pathname + url.search,
    headers: req.headers,
    readBody: (limit) => readFetchBody(req, limit),
  });
  return new Response(out.body as BodyInit, { status: out.status, headers: out.headers });
}

/** Reads a Node request's body, stopping past the limit (the socket stays usable for the 413). */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        done();
        reject(bodyTooLarge(limit));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (e: Error) => {
      done();
      reject(e);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** Node's header object read as a HeaderReader, without copying it into a `Headers`. */
function nodeHeaders(req: IncomingMessage): HeaderReader {
  return {
    get(name) {
      const v = req.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
  };
}

/**
 * The REST facade for Node's server: the custom server sends /api/v1 here directly, skipping Next's
 * routing and the Fetch conversions (bench/layers.ts measures what they cost).
 */
export async function serveNodeRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const out = await serveRest({
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: nodeHeaders(req),
    readBody: (limit) => readNodeBody(req, limit),
  });
  writeNodeResponse(req, res, out);
}

/** Writes an answer of the REST core's shape on Node's response (also /api/health's, http/health.ts). */
export function writeNodeResponse(req: IncomingMessage, res: ServerResponse, out: RestResponse): void {
  // The JSON text is encoded once: its bytes give the length and are what is written.
  const bytes = Buffer.from(out.body);
  const headers: Record<string, string> = { ...out.headers, "Content-Length": String(bytes.byteLength) };
  if (!req.complete) drainRest(req);
  res.writeHead(out.status, headers);
  res.end(req.method === "HEAD" ? undefined : bytes);
}

/** The most of a refused body read and dropped before the connection is cut. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Answered before the whole body was read (413, 415, 401 …): the rest is read and dropped. Closing
 * instead would reset the connection under a client still sending, which then sees a broken pipe
 * rather than the answer (large uploads often did, e2e/reliability/hostile.test.ts); drained, the connection stays
 * usable. A client that keeps sending past DRAIN_LIMIT_BYTES is cut off.
 */
export function drainRest(req: IncomingMessage): void {
  let drained = 0;
  req.on("data", (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.on("error", () => {});
  req.resume();
}

export function isRestPath(url: string | undefined): boolean {
  return url !== undefined && /^\/api\/v1(\/|\?|$)/.test(url);
}
