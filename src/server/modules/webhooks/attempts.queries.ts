import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

export interface AttemptRow {
  id: number;
  consegna_id: number;
  evento_id: number;
  iniziato_il: Date;
  durata_ms: number;
  stato_http: number | null;
  esito: string;
  risposta: string | null;
}

/** The attempts log of an endpoint, newest first, below `prima`. */
export const attempts = (endpoint: number, prima: number | null, take: number) =>
  query<AttemptRow>(Prisma.sql`
    SELECT t.id, t.consegna_id, c.evento_id, t.iniziato_il, t.durata_ms, t.stato_http, t.esito, t.risposta
      FROM webhook_tentativi t JOIN webhook_consegne c ON c.id = t.consegna_id
     WHERE t.endpoint_id = ${endpoint}::int ${prima === null ? Prisma.empty : Prisma.sql`AND t.id < ${prima}::int`}
     ORDER BY t.id DESC
     ${limit(take)}`);

// ---- The delivery workers (worker.ts) ----

export interface AttemptInsert {
  /** The message's deliveries: one attempt each, the same outcome. */
  consegne: number[];
  messaggio: string;
  endpoint: number;
  iniziato_il: Date;
  durata_ms: number;
  stato_http: number | null;
  esito: "consegnato" | "rifiutato" | "timeout" | "errore_rete" | "rete_privata";
  risposta: string | null;
}

/**
 * Logs a message's attempt and moves its deliveries on, in one statement however many they are: delivered;
 * failed (`fallita`: the retry window is over); or pending again after `ritardo_ms`, still in the same
 * message (a message attempted alone stays alone even when the endpoint now takes batches). A delivery
 * dropped meanwhile (its endpoint deleted) is left out.
 */
export type AttemptState = "consegnata" | "fallita" | "in_attesa";

export const recordAttempt = (a: AttemptInsert, esito: { stato: AttemptState; ritardo_ms: number }) =>
  query<{ id: number }>(Prisma.sql`
    WITH tentativo AS (
      INSERT INTO webhook_tentativi (consegna_id, endpoint_id, iniziato_il, durata_ms, stato_http, esito, risposta)
      SELECT c.id, ${a.endpoint}::int, ${a.iniziato_il}::timestamptz, ${a.durata_ms}::int, ${a.stato_http}::int,
             ${a.esito}, ${a.risposta}
        FROM webhook_consegne c WHERE c.id = ANY(${a.consegne}::int[])
    )
    UPDATE webhook_consegne
       SET tentativi = tentativi + 1,
           primo_tentativo = coalesce(primo_tentativo, ${a.iniziato_il}::timestamptz),
           stato = ${esito.stato},
           prossimo_tentativo = now() + make_interval(secs => ${esito.ritardo_ms / 1000}::float8),
           concluso_il = CASE WHEN ${esito.stato} = 'in_attesa' THEN NULL ELSE now() END,
           messaggio = ${a.messaggio}
     WHERE id = ANY(${a.consegne}::int[])
    RETURNING id`);
