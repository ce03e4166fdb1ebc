import { TRPCClientError } from "@trpc/client";
import { OFFLINE_ERROR, TIMEOUT_ERROR } from "./offline/network";

export interface DescribedError {
  codice: string;
  messaggio: string;
  /** The service's HTTP status; absent when no answer from the service arrived (network, proxy). */
  status?: number;
}

const NO_ANSWER = "Il servizio non risponde: controllare la connessione e riprovare.";

/**
 * The UI's own failures before any answer (src/ui/offline/network.ts): `timeout` (no answer in 8 s) and
 * `offline` (the browser had no network). Matched by name, not class: a TRPCClientError keeps its cause.
 */
function ownFailure(e: unknown): DescribedError | undefined {
  const cause = e instanceof TRPCClientError ? e.cause : e;
  if (!(cause instanceof Error)) return undefined;
  if (cause.name === TIMEOUT_ERROR) return { codice: "timeout", messaggio: cause.message };
  if (cause.name === OFFLINE_ERROR) return { codice: "offline", messaggio: cause.message };
  return undefined;
}

/** The contract's code and Italian message of a failed call, whatever shape the failure took. */
export function describeError(e: unknown): DescribedError {
  const own = ownFailure(e);
  if (own) return own;
  if (e instanceof TRPCClientError) {
    const data = (e.data ?? {}) as { codice?: string; httpStatus?: number };
    // No contract body: the request or its answer was lost on the way (the browser's own English text).
    if (!data.codice) return { codice: "rete", messaggio: NO_ANSWER };
    return { codice: data.codice, messaggio: e.message, status: data.httpStatus };
  }
  if (e instanceof Error) {
    return { codice: "rete", messaggio: /fetch|network/i.test(e.message) ? NO_ANSWER : e.message };
  }
  return { codice: "errore", messaggio: String(e) };
}

const NO_OUTCOME = new Set(["rete", "timeout", "offline", "idempotenza_in_corso"]);

/**
 * A write whose fate the answer does not tell: no answer at all (`rete`, `timeout`; and `offline`, since
 * the link may have dropped while the request was leaving), a 5xx (the service may have lost the
 * database during the commit, and a 5xx is never stored under the key), or the first attempt still
 * running under the same key. Anything else is definitive: done, or a refusal stored under the key.
 */
export function outcomeUnknown(e: DescribedError): boolean {
  return NO_OUTCOME.has(e.codice) || (e.status ?? 0) >= 500;
}

/**
 * The failure of a write, for the operator. When its fate is unknown the message says what to do,
 * in the screen's words instead of the API's: press again with the same data, and the write (kept
 * under the same Idempotency-Key, see write-key.ts) happens once whether or not the first landed.
 */
export function describeWriteError(e: unknown): DescribedError {
  const d = describeError(e);
  if (d.codice === "idempotenza_in_corso") {
    return { ...d, messaggio: "La registrazione precedente è ancora in corso: attendere un momento, poi premere di nuovo." };
  }
  if (!outcomeUnknown(d)) return d;
  const why =
    d.codice === "rete"
      ? "Il servizio non ha risposto."
      : d.codice === "servizio_non_disponibile"
        ? "Il database non ha risposto."
        : d.messaggio;
  return {
    ...d,
    messaggio: `${why} La registrazione potrebbe essere avvenuta oppure no: premere di nuovo senza modificare i dati, non verrà mai registrata due volte.`,
  };
}

/** crypto.randomUUID exists only in secure contexts; a handheld on plain http on the LAN has getRandomValues. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `ui-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
