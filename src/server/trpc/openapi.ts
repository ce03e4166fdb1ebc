import type { SchemaObject } from "openapi3-ts/oas31";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { ERROR_STATUS, type ErrorCode } from "../lib/errors";
import type { Meta } from "./init";
import { appRouter } from "./router";

/**
 * The OpenAPI document as the service really answers. trpc-to-openapi documents every success as 200
 * and every error in tRPC's shape; we replace the error responses with the contract's body and the
 * statuses each endpoint can give, and add the other success statuses and the Idempotency-Key header.
 */

type Operation = {
  responses: Record<string, unknown>;
  parameters?: unknown[];
  security?: unknown[];
  description?: string;
};

const ERROR_BODY_SCHEMA: SchemaObject = {
  type: "object",
  required: ["codice", "messaggio"],
  properties: {
    codice: { type: "string", description: "Codice stabile, leggibile da un programma" },
    messaggio: { type: "string", description: "Spiegazione in italiano, per una persona" },
    campo: { type: "string", description: "Il campo o parametro in errore, quando è uno solo" },
    dettagli: {
      type: "array",
      items: {
        type: "object",
        required: ["campo", "messaggio"],
        properties: { campo: { type: "string" }, messaggio: { type: "string" } },
      },
    },
    richiesta: { type: "string", description: "Id della richiesta (errori interni)" },
  },
};

const DESCRIPTIONS: Record<number, string> = {
  400: "Corpo non JSON o Idempotency-Key non valida",
  401: "Chiave API mancante, malformata, sconosciuta o revocata (intestazione WWW-Authenticate: Bearer)",
  403: "La chiave non ha il permesso richiesto",
  404: "Risorsa non trovata",
  405: "Metodo non consentito su questo percorso",
  409: "Conflitto",
  413: "Corpo oltre il limite di dimensione",
  415: "Il corpo deve essere application/json",
  422: "Richiesta, filtro o riferimento non valido",
  429: "Limite di richieste superato (intestazione Retry-After)",
  500: "Errore interno: il corpo porta l'id della richiesta",
  503: "Database non raggiungibile (intestazione Retry-After). Su una scrittura, se la connessione si è persa durante la conferma, il messaggio lo dice: l'esito è incerto, ripetere con la stessa Idempotency-Key",
};

function codesFor(status: number, extra: ErrorCode[]): string[] {
  return (Object.entries(ERROR_STATUS) as [ErrorCode, number][])
    .filter(([code, s]) => s === status && (extra.includes(code) || !EXTRA_ONLY.has(code)))
    .map(([code]) => code);
}
// Codes listed only where they can happen (the users' ones never reach /api/v1).
const EXTRA_ONLY = new Set<ErrorCode>([
  "idempotenza_in_corso",
  "chiave_idempotenza_abbandonata",
  "arrivo_gia_annullato",
  "lotto_consumato",
  "chiave_idempotenza_riutilizzata",
  "utente_esistente",
  "ultimo_amministratore",
]);

function procedureMetas(): Map<string, Meta & { openapi?: { method: string; path: string } }> {
  const out = new Map<string, Meta & { openapi?: { method: string; path: string } }>();
  const procs = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { meta?: Meta & { openapi?: { method: string; path: string } } } }
  >;
  for (const p of Object.values(procs)) {
    const meta = p._def.meta;
    if (meta?.openapi) out.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta);
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
    baseUrl: "/api/v1",
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Chiave API: `Authorization: Bearer <chiave>`" } },
  });
  const metas = procedureMetas();
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const meta = metas.get(`${method} ${path.replace(/\{(\w+)\}/g, "{$1}")}`);
      const isPost = method === "post";
      const statuses = [401, 403, 405, 422, 429, 500, 503];
      if (isPost) statuses.push(400, 413, 415);
      if (path.includes("{")) statuses.push(404);
      if (meta?.idempotent) statuses.push(409);
      const extra: ErrorCode[] = meta?.idempotent
        ? ["idempotenza_in_corso", "chiave_idempotenza_abbandonata", "chiave_idempotenza_riutilizzata"]
        : [];
      const success = op.responses["200"];
      const responses: Record<string, unknown> = {};
      for (const s of meta?.successStatuses ?? [200]) responses[String(s)] = success;
      for (const s of statuses.sort()) {
        const codes = codesFor(s, extra);
        responses[String(s)] = {
          description: `${DESCRIPTIONS[s]}${codes.length ? ` — codici: ${codes.join(", ")}` : ""}`,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Errore" } } },
        };
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
            schema: { type: "string", maxLength: 255 },
          },
        ];
      }
    }
  }
  doc.components = { ...doc.components, schemas: { ...(doc.components?.schemas ?? {}), Errore: ERROR_BODY_SCHEMA } };
  dropSafeIntegerBounds(doc);
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

let routes: { pattern: RegExp; methods: string[] }[] | undefined;

/** Known paths and their methods, for 404 versus 405; built once, on the first request. */
export function routeTable(): { pattern: RegExp; methods: string[] }[] {
  routes ??= Object.entries(openApiDocument().paths ?? {}).map(([path, item]) => ({
    pattern: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`),
    methods: Object.keys(item as object).map((m) => m.toUpperCase()),
  }));
  return routes;
}
