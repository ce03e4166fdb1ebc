import type { OpenAPIObject as Oas31, SchemaObject } from "openapi3-ts/oas31";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import type { z } from "zod";
import { REST_PREFIX } from "../lib/links";
import { operationCodes } from "./procedure-codes";
import { eventSchemas } from "./openapi-events";
import {
  discriminateByTipo,
  dropUnusedComponents,
  limitArrays,
  type Operation,
  SHAPED_PROCEDURES,
  shareListRows,
  strictBody,
  strictRows,
  successByStatus,
  typeParameters,
  typeRowErrors,
} from "./openapi-shape";
import type { Meta } from "./init";
import { appRouter } from "./router";

/**
 * The OpenAPI document as the service really answers. trpc-to-openapi documents every success as 200
 * and every error in tRPC's shape; we replace the error responses with the contract's body and, per
 * status, the codes that procedure can give (procedure-codes.ts), add the other success statuses and the
 * Idempotency-Key header, type the query parameters and the upserts' rows as the contract means them
 * (openapi-shape.ts), and describe the events by type, in GET /eventi and as webhooks (openapi-events.ts).
 */

const DESCRIPTIONS: Record<number, string> = {
  400: "Corpo non JSON o Idempotency-Key non valida",
  401: "Chiave API mancante, malformata, sconosciuta o revocata",
  403: "La chiave non ha il permesso richiesto",
  404: "Risorsa non trovata",
  405: "Metodo non consentito su questo percorso",
  409: "Conflitto",
  413: "Corpo oltre il limite di dimensione",
  415: "Il corpo deve essere application/json",
  422: "Richiesta, filtro o riferimento non valido",
  429: "Limite di richieste superato",
  500: "Errore interno: il corpo porta l'id della richiesta",
  503: "Database non raggiungibile. Su una scrittura, se la connessione si è persa durante la conferma, il messaggio lo dice: l'esito è incerto, ripetere con la stessa Idempotency-Key",
};

const HEADERS: Record<number, Record<string, { description: string; schema: SchemaObject }>> = {
  401: { "WWW-Authenticate": { description: "Bearer", schema: { type: "string" } } },
  405: { Allow: { description: "I metodi del percorso", schema: { type: "string" } } },
  409: { "Retry-After": { description: "Secondi da attendere (idempotenza_in_corso)", schema: { type: "integer" } } },
  429: { "Retry-After": { description: "Secondi da attendere", schema: { type: "integer" } } },
  503: { "Retry-After": { description: "Secondi da attendere", schema: { type: "integer" } } },
};

/** The contract's error body (docs/api.md section 2), `codice` one of `codes`. */
function errorBody(codes: readonly string[]): SchemaObject {
  return {
    type: "object",
    required: ["codice", "messaggio"],
    properties: {
      codice: { type: "string", enum: [...codes], description: "Codice stabile, leggibile da un programma" },
      messaggio: { type: "string", description: "Spiegazione in italiano, per una persona" },
      campo: { type: "string", description: "Il campo o parametro in errore, quando è uno solo" },
      dettagli: { type: "array", items: { $ref: "#/components/schemas/DettaglioErrore" } },
      richiesta: { type: "string", description: "Id della richiesta (errori interni)" },
    },
  };
}

const FIELD_PROBLEM: SchemaObject = {
  type: "object",
  required: ["campo", "messaggio"],
  properties: { campo: { type: "string" }, messaggio: { type: "string" } },
};

/** The answer of a label's GET: the file itself (docs/api.md section 13). */
const LABEL_FILE = {
  description: "Le etichette: PDF (formato=pdf, predefinito) o ZPL (formato=zpl)",
  headers: {
    "X-Avviso": { description: "lotto_non_gs1: il lotto non sta in AI (10) ed è stampato in Code 128 a parte", schema: { type: "string" } },
  },
  content: {
    "application/pdf": { schema: { type: "string", format: "binary" } },
    "text/plain": { schema: { type: "string", description: "ZPL: un formato ^XA…^XZ per etichetta" } },
  },
} as unknown as Operation["responses"][string];

/** A photo of a receiving difference (docs/api.md section 12): the image, as sent and as answered. */
const PHOTO_CONTENT = {
  "image/jpeg": { schema: { type: "string", format: "binary" } },
  "image/png": { schema: { type: "string", format: "binary" } },
};
const PHOTO_FILE = {
  description: "L'immagine, con il Content-Type con cui è stata inviata",
  content: PHOTO_CONTENT,
} as unknown as Operation["responses"][string];
const PHOTO_BODY = { required: true, description: "L'immagine (JPEG o PNG, al massimo 5 MB)", content: PHOTO_CONTENT };

type Procedure = { path: string; meta?: Meta & { openapi?: { method: string; path: string } }; input?: z.ZodType };

/** The procedures of the document's operations, by "method path" as the document lists them. */
function procedures(): Map<string, Procedure> {
  const out = new Map<string, Procedure>();
  const procs = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Procedure["meta"]; inputs?: z.ZodType[] } }>;
  for (const [path, p] of Object.entries(procs)) {
    const meta = p._def.meta;
    if (meta?.openapi) out.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, { path, meta, input: p._def.inputs?.[0] });
  }
  return out;
}

let cached: OpenAPIObject | undefined;

export function openApiDocument(): OpenAPIObject {
  if (cached) return cached;
  const doc = generateOpenApiDocument(appRouter, {
    title: "Banchina API",
    version: "1.0.0",
    description:
      "Magazzino e ricevimento merci. Contratto: errori con `codice` e `messaggio` in italiano; decimali come stringhe canoniche; liste con `limite`, `dopo`, `altri`, `cursore`, complete anche con scritture concorrenti.",
    baseUrl: REST_PREFIX,
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Chiave API: `Authorization: Bearer <chiave>`" } },
  });
  const { components: eventComponents, webhooks } = eventSchemas();
  const components: Record<string, SchemaObject> = { ...eventComponents, DettaglioErrore: FIELD_PROBLEM };
  const errorResponses: Record<string, unknown> = {};
  const procs = procedures();
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  const byProcedure = new Map<string, Operation>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const proc = procs.get(`${method} ${path}`);
      const meta = proc?.meta;
      if (proc) byProcedure.set(proc.path, op);
      typeParameters(op, proc?.input);
      strictRows(proc?.path, op, components);
      strictBody(op, proc?.input);
      const { byStatus, rows, maxItems } = operationCodes({
        procedure: proc?.path,
        method,
        path,
        idempotent: meta?.idempotent === true,
        query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name as string),
      });
      limitArrays(op, maxItems, components);
      if (meta?.binaryBody === "image") (op as { requestBody?: unknown }).requestBody = PHOTO_BODY;
      const binary = meta?.binary === "image" ? PHOTO_FILE : meta?.binary ? LABEL_FILE : undefined;
      const success = binary ?? op.responses["200"];
      typeRowErrors(success, rows);
      const responses: Record<string, unknown> = successByStatus(success, meta?.successStatuses ?? [200]);
      for (const [s, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
        const response = {
          description: `${DESCRIPTIONS[s]} — codici: ${codes.join(", ")}`,
          ...(HEADERS[s] && { headers: HEADERS[s] }),
          content: { "application/json": { schema: errorBody(codes) } },
        };
        // A status with one code (401, 403, 429, 500…) answers alike everywhere: named once, by its code.
        const [only] = codes;
        if (codes.length === 1 && only) {
          errorResponses[only] = response;
          responses[String(s)] = { $ref: `#/components/responses/${only}` };
        } else responses[String(s)] = response;
      }
      op.responses = responses;
      if (meta?.idempotent) {
        op.parameters = [
          ...(op.parameters ?? []),
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description:
              "Chiave di idempotenza (1..255 caratteri ASCII stampabili): un nuovo invio con la stessa chiave e lo stesso corpo restituisce la risposta salvata",
            schema: { type: "string", minLength: 1, maxLength: 255 },
          },
        ];
      }
    }
  }
  // A procedure renamed or gone would leave its rows loose without a word: the document is refused instead.
  for (const name of [...SHAPED_PROCEDURES, "events.list"])
    if (!byProcedure.has(name)) throw new Error(`openapi-shape: procedura sconosciuta ${name}`);
  // GET /eventi (events.list): each event typed by `tipo`.
  const eventi = (
    byProcedure.get("events.list")?.responses["200"] as {
      content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }>;
    }
  )?.content["application/json"]?.schema.properties.eventi;
  if (eventi) eventi.items = { $ref: "#/components/schemas/Evento" };
  doc.components = {
    ...doc.components,
    schemas: { ...(doc.components?.schemas ?? {}), ...components },
    responses: errorResponses as NonNullable<OpenAPIObject["components"]>["responses"],
  };
  (doc as Oas31).webhooks = webhooks as Oas31["webhooks"];
  dropSafeIntegerBounds(doc);
  discriminateByTipo(doc.paths);
  shareListRows(byProcedure, doc.components.schemas ?? {});
  dropUnusedComponents(doc);
  cached = doc;
  return doc;
}

/**
 * zod writes every `int()` with JavaScript's safe-integer range as bounds (±9007199254740991): not a
 * rule of the contract, and client generators read it as a 64-bit field. Bounds we set ourselves stay.
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) dropSafeIntegerBounds(child);
  } else if (node !== null && typeof node === "object") {
    const o = node as Record<string, unknown>;
    if (o.minimum === Number.MIN_SAFE_INTEGER) delete o.minimum;
    if (o.maximum === Number.MAX_SAFE_INTEGER) delete o.maximum;
    for (const child of Object.values(o)) dropSafeIntegerBounds(child);
  }
}
