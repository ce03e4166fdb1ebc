import { TRPCClientError } from "@trpc/client";

/** The contract's code and Italian message of a failed call, whatever shape the failure took. */
export function describeError(e: unknown): { codice: string; messaggio: string; retryAfter?: number } {
  if (e instanceof TRPCClientError) {
    const data = (e.data ?? {}) as { codice?: string };
    return { codice: data.codice ?? "errore", messaggio: e.message };
  }
  if (e instanceof Error) {
    return { codice: "rete", messaggio: /fetch|network/i.test(e.message) ? "Il servizio non risponde: controllare la connessione e riprovare." : e.message };
  }
  return { codice: "errore", messaggio: String(e) };
}

/** crypto.randomUUID exists only in secure contexts; a handheld on plain http on the LAN has getRandomValues. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `ui-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
