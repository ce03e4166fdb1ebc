import { randomUUID } from "node:crypto";
import { createOpenApiFetchHandler } from "trpc-to-openapi";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { DomainError } from "../lib/errors";
import { createContextInner, type Context } from "../trpc/context";
import { openApiDocument, routeTable } from "../trpc/openapi";
import { appRouter } from "../trpc/router";
import { toErrorResponse, type ErrorResponse } from "./errors";

/**
 * The REST facade (/api/v1): the contract's transport rules around trpc-to-openapi. Here: request ids,
 * 404 versus 405, content type, body size, JSON shape, repeated query parameters, and the contract's
 * error body for every failure. Procedures do the rest.
 */

const PREFIX = "/api/v1";
/** Endpoints that accept an empty body (POST /arrivi/{id}/annulla: "no body"). */
const EMPTY_BODY_OK = /^\/arrivi\/[^/]+\/annulla$/;

function json(status: number, body: unknown, headers: Record<string, string>, requestId: string): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "X-Request-Id": requestId, ...headers },
  });
}

function errorResponse(e: ErrorResponse, requestId: string): Response {
  return json(e.status, e.body, e.headers, requestId);
}

function fail(error: DomainError, requestId: string): Response {
  return errorResponse({ status: error.status, body: error.toBody(), headers: error.headers }, requestId);
}

async function readBody(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  const tooLarge = () =>
    new DomainError("richiesta_troppo_grande", `Il corpo supera il limite di ${Math.round(limit / 1024 / 1024)} MB: dividere la richiesta.`);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
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
      // The server answers with Connection: close (see node-adapter.ts), so the rest is never read.
      reader.releaseLock();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
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
    throw new DomainError("richiesta_non_valida", `JSON annidato troppo in profondità (oltre ${MAX_JSON_DEPTH} livelli): nessun campo di questa API lo richiede.`);
  }
  return parsed as Record<string, unknown>;
}

export async function handleRestRequest(req: Request): Promise<Response> {
  const requestId = randomUUID();
  const config = getConfig();
  const url = new URL(req.url);
  const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) || "/" : url.pathname;
  const method = req.method.toUpperCase();
  try {
    if (path === "/openapi.json" && (method === "GET" || method === "HEAD")) {
      return json(200, openApiDocument(), { "Cache-Control": "no-cache" }, requestId);
    }
    const route = routeTable().find((r) => r.pattern.test(path));
    if (!route) throw new DomainError("non_trovato", `Percorso sconosciuto: ${url.pathname}. I percorsi sono in /api/v1/openapi.json.`);
    if (!route.methods.includes(method)) {
      throw new DomainError("metodo_non_consentito", `Metodo ${method} non consentito su ${url.pathname}: usare ${route.methods.join(" o ")}.`, {
        headers: { Allow: route.methods.join(", ") },
      });
    }

    let forward: Request;
    if (method === "GET") {
      const seen = new Set<string>();
      for (const key of url.searchParams.keys()) {
        // trpc-to-openapi collects parameters into a plain object: a prototype member would break it.
        if (key in Object.prototype) throw new DomainError("filtro_non_valido", `Parametro sconosciuto '${key}'.`, { campo: key });
        if (seen.has(key)) throw new DomainError("filtro_non_valido", `Il parametro '${key}' è ripetuto: indicarlo una volta sola.`, { campo: key });
        seen.add(key);
      }
      forward = new Request(url, { method, headers: req.headers });
    } else {
      // A write takes its data from the body only: a query parameter is never silently ignored.
      for (const key of url.searchParams.keys()) {
        throw new DomainError("filtro_non_valido", `Parametro '${key}' non previsto: questa richiesta prende i dati dal corpo JSON.`, { campo: key });
      }
      const contentType = req.headers.get("content-type");
      const bytes = await readBody(req, config.BODY_LIMIT_BYTES);
      const isJson = contentType !== null && /^application\/json\s*(;|$)/i.test(contentType);
      if ((contentType !== null && !isJson) || (contentType === null && bytes.byteLength > 0)) {
        throw new DomainError("tipo_contenuto_non_supportato", "Il corpo deve essere JSON: usare 'Content-Type: application/json'.");
      }
      const body = parseJsonObject(bytes, EMPTY_BODY_OK.test(path));
      const headers = new Headers(req.headers);
      headers.set("content-type", "application/json");
      headers.delete("content-length");
      forward = new Request(url, { method, headers, body: JSON.stringify(body) });
    }

    let captured: unknown;
    let ctx: Context | undefined;
    const res = await createOpenApiFetchHandler({
      req: forward,
      endpoint: PREFIX,
      router: appRouter,
      createContext: () => {
        ctx = createContextInner({ db: getDb(), config, headers: req.headers, channel: "rest", requestId });
        return ctx;
      },
      onError: ({ error }) => {
        captured = error;
      },
      responseMeta: () => ({ status: ctx?.response.status ?? 200, headers: ctx?.response.headers ?? {} }),
    });
    if (captured !== undefined) return errorResponse(toErrorResponse(captured, { requestId, isQuery: method === "GET" }), requestId);
    const headers = new Headers(res.headers);
    headers.set("Content-Type", "application/json; charset=utf-8");
    headers.set("X-Request-Id", requestId);
    return new Response(res.body, { status: res.status, headers });
  } catch (e) {
    if (e instanceof DomainError) return fail(e, requestId);
    return errorResponse(toErrorResponse(e, { requestId, isQuery: method === "GET" }), requestId);
  }
}
