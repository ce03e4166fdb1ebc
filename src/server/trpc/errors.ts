import { TRPCError } from "@trpc/server";
import type { $ZodIssue } from "zod/v4/core";
import { isUnavailable } from "../db/pg-errors";
import { DomainError, type ErrorBody, type FieldProblem } from "../lib/errors";
import { NUL_MESSAGE, nulPaths } from "../lib/nul";
import { MISSING } from "../lib/zod";

/**
 * The one place that turns any failure into the contract's error body and status (docs/api.md section 2).
 * Stack traces, SQL and paths never leave the server: an unexpected error becomes `errore_interno`
 * with the request id, and the details go to the server log under that id.
 */

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

function describeIssue(issue: $ZodIssue, isQuery: boolean): FieldProblem[] {
  const what = isQuery ? "Parametro" : "Campo";
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => {
      const campo = formatPath([...issue.path, k]);
      return {
        campo,
        messaggio: isQuery
          ? `Parametro sconosciuto '${campo}': i parametri ammessi sono elencati nella documentazione.`
          : `Campo sconosciuto '${campo}': non fa parte di questa richiesta.`,
      };
    });
  }
  const campo = formatPath(issue.path);
  if (issue.code === "invalid_type" && (issue.message === MISSING || /ricevuto undefined/.test(issue.message))) {
    return [{ campo, messaggio: `${what} obbligatorio '${campo}' mancante.` }];
  }
  const msg = issue.message.replace(/\.$/, "");
  return [{ campo, messaggio: campo ? `${what} '${campo}': ${msg}.` : `${msg}.` }];
}

/** Input validation failures: `filtro_non_valido` for list parameters, `richiesta_non_valida` for bodies. */
/** A body with thousands of problems answers with the first ones and how many there were. */
const MAX_DETAILS = 100;

export function validationError(issues: readonly $ZodIssue[], isQuery: boolean): DomainError {
  const all = issues.flatMap((i) => describeIssue(i, isQuery));
  const problems =
    all.length > MAX_DETAILS
      ? [...all.slice(0, MAX_DETAILS), { campo: "", messaggio: `… e altri ${all.length - MAX_DETAILS} problemi non elencati.` }]
      : all;
  const codice = isQuery ? "filtro_non_valido" : "richiesta_non_valida";
  const first = problems[0] ?? { campo: "", messaggio: "Richiesta non valida." };
  if (problems.length === 1) return new DomainError(codice, first.messaggio, first.campo ? { campo: first.campo } : {});
  return new DomainError(codice, `${first.messaggio} (e altri ${all.length - 1} problemi: vedere 'dettagli')`, {
    dettagli: problems,
  });
}

/** Refuses an input (body or list parameters) with a string holding U+0000, naming each such field. */
export function assertNoNul(input: unknown, isQuery: boolean): void {
  const paths = nulPaths(input);
  if (paths.length === 0) return;
  throw validationError(
    paths.map((path) => ({ code: "custom", path, message: NUL_MESSAGE, input: undefined }) as $ZodIssue),
    isQuery,
  );
}

export function isZodError(e: unknown): e is { issues: $ZodIssue[] } {
  return !!e && typeof e === "object" && (e as { name?: string }).name === "ZodError" && Array.isArray((e as { issues?: unknown }).issues);
}

const invalidJson = () => new DomainError("json_non_valido", "Il corpo della richiesta non è JSON valido.");

export function toDomainError(error: unknown, opts: { isQuery: boolean }, depth = 0): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (isZodError(error)) return validationError(error.issues, opts.isQuery);
  if (error instanceof TRPCError) {
    const inner = error.cause && depth < 5 ? toDomainError(error.cause, opts, depth + 1) : undefined;
    if (inner) return inner;
    const own = fromTrpcCode(error);
    if (own) return own;
  }
  if (isUnavailable(error)) {
    return new DomainError(
      "servizio_non_disponibile",
      "Il database non è raggiungibile in questo momento: riprovare tra qualche secondo.",
      { retryAfterSeconds: 5 },
    );
  }
  return undefined;
}

/** tRPC's own refusals of a request it cannot route or read (most reach only its channel, the UI's). */
function fromTrpcCode(error: TRPCError): DomainError | undefined {
  switch (error.code) {
    case "BAD_REQUEST":
      // A body or `input` that JSON.parse refused, or a call of the wrong shape (a batch whose input is
      // not an object, queries and mutations mixed in one batch).
      return error.cause instanceof SyntaxError
        ? invalidJson()
        : new DomainError("richiesta_non_valida", "Richiesta non valida: la chiamata non ha la forma attesa dal servizio.");
    case "NOT_FOUND":
      return new DomainError("non_trovato", "Risorsa non trovata.");
    case "PARSE_ERROR":
      return invalidJson();
    case "UNSUPPORTED_MEDIA_TYPE":
      return new DomainError("tipo_contenuto_non_supportato", "Il corpo deve essere JSON: usare 'Content-Type: application/json'.");
    case "METHOD_NOT_SUPPORTED":
      return new DomainError("metodo_non_consentito", "Metodo non consentito per questa procedura.");
    case "PAYLOAD_TOO_LARGE":
      return new DomainError("richiesta_troppo_grande", "Corpo della richiesta troppo grande.");
    default:
      return undefined;
  }
}

/**
 * The response headers of a refusal, from what the domain error says (lib/errors.ts `RefusalHints`): the one
 * place that names them, for REST, the UI's endpoint and the service's own routes alike.
 */
export function responseHeaders(error: DomainError): Record<string, string> {
  const { retryAfterSeconds, authChallenge, allow, replayed } = error.hints;
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers["Retry-After"] = String(retryAfterSeconds);
  if (authChallenge) headers["WWW-Authenticate"] = 'Bearer realm="banchina"';
  if (allow) headers.Allow = allow.join(", ");
  if (replayed) headers["Idempotency-Replayed"] = "true";
  return headers;
}

export function toErrorResponse(error: unknown, opts: { requestId: string; isQuery: boolean; log?: boolean }): ErrorResponse {
  const domain = toDomainError(error, opts);
  if (domain) return { status: domain.status, body: domain.toBody(), headers: responseHeaders(domain) };
  if (opts.log !== false) console.error(`[${opts.requestId}] errore interno:`, error);
  return {
    status: 500,
    body: {
      codice: "errore_interno",
      messaggio: `Errore interno del servizio. Se si ripete, comunicare il riferimento ${opts.requestId}.`,
      richiesta: opts.requestId,
    },
    headers: {},
  };
}
