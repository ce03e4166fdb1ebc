import { ENDPOINT_LOCK_CLASS, SYNC_TABLES } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

// The endpoints' statements; their deliveries' are in deliveries.queries.ts, the attempts' in attempts.queries.ts.

/** The events' sync gate: a worker copies events into deliveries up to its bound only. */
const EVENTS_GATE = SYNC_TABLES.eventi;

/** An endpoint with what the screen and REST show of its deliveries (the answer's body: the screen only). */
export interface EndpointRow {
  id: number;
  url: string;
  descrizione: string | null;
  eventi: string[];
  attivo: boolean;
  creato_il: Date;
  eventi_per_richiesta: number;
  consegna: "ordinata" | "parallela";
  disattivato_il: Date | null;
  salto_da: number | null;
  salto_a: number | null;
  in_attesa: number;
  fallite: number;
  /** Seconds since the oldest event not yet delivered was recorded (null: none waits). */
  ritardo_s: number | null;
  /** Events delivered over the last minute. */
  consegnate_minuto: number;
  ultimo_successo: Date | null;
  ultimo_errore_il: Date | null;
  ultimo_errore_stato: number | null;
  ultimo_errore_esito: string | null;
  ultimo_errore_risposta: string | null;
  creato_da_tipo: "utente" | "chiave" | "riga_di_comando" | null;
  creato_da_nome: string | null;
}

/**
 * Events of the endpoint's types past its cursor: committed, not yet copied into deliveries by a worker
 * (which copies them only while the endpoint is active). They wait as much as its pending deliveries do.
 */
const notCollected = Prisma.sql`
  (SELECT coalesce(sum(p.n), 0)::int FROM unnest(e.eventi) AS t(tipo)
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM eventi x WHERE x.tipo = t.tipo AND x.id > e.cursore) p)`;

/**
 * `in_attesa` and the lag count the events the workers have not yet copied into deliveries (past the
 * cursor, of the endpoint's types) as well as the pending deliveries: an endpoint that falls behind, or a
 * disabled one, shows what waits before its deliveries do. Such events are found per type on the (tipo, id)
 * index, so a long backlog of other types is not walked. The rate reads the partial index of delivered rows
 * by time.
 */
const endpointColumns = Prisma.sql`
  e.id, e.url, e.descrizione, e.eventi, e.attivo, e.creato_il, e.eventi_per_richiesta, e.consegna, e.disattivato_il,
  e.salto_da, e.salto_a,
  (SELECT count(*)::int FROM webhook_consegne c WHERE c.endpoint_id = e.id AND c.stato = 'in_attesa') + ${notCollected} AS in_attesa,
  (SELECT count(*)::int FROM webhook_consegne c WHERE c.endpoint_id = e.id AND c.stato = 'fallita') AS fallite,
  extract(epoch FROM now() - least(
    (SELECT ev.creato_il FROM webhook_consegne c JOIN eventi ev ON ev.id = c.evento_id
      WHERE c.endpoint_id = e.id AND c.stato = 'in_attesa' ORDER BY c.evento_id LIMIT 1),
    (SELECT ev.creato_il FROM eventi ev WHERE ev.id = (
      SELECT min(p.id) FROM unnest(e.eventi) AS t(tipo)
      CROSS JOIN LATERAL (SELECT x.id FROM eventi x WHERE x.tipo = t.tipo AND x.id > e.cursore ORDER BY x.id LIMIT 1) p))
  ))::float8 AS ritardo_s,
  (SELECT count(*)::int FROM webhook_consegne c
    WHERE c.endpoint_id = e.id AND c.stato = 'consegnata' AND c.concluso_il > now() - interval '1 minute') AS consegnate_minuto,
  (SELECT max(t.iniziato_il) FROM webhook_tentativi t WHERE t.endpoint_id = e.id AND t.esito = 'consegnato') AS ultimo_successo,
  f.iniziato_il AS ultimo_errore_il, f.stato_http AS ultimo_errore_stato, f.esito AS ultimo_errore_esito,
  f.risposta AS ultimo_errore_risposta,
  coalesce(a.autore_tipo, CASE WHEN k.id IS NOT NULL THEN 'chiave' END) AS creato_da_tipo,
  coalesce(a.autore_nome, k.nome) AS creato_da_nome`;

const joins = Prisma.sql`
  LEFT JOIN LATERAL (SELECT t.iniziato_il, t.stato_http, t.esito, t.risposta FROM webhook_tentativi t
                      WHERE t.endpoint_id = e.id AND t.esito <> 'consegnato' ORDER BY t.id DESC LIMIT 1) f ON true
  LEFT JOIN LATERAL (SELECT r.autore_tipo, r.autore_nome FROM registro_amministrativo r
                      WHERE r.azione = 'webhook.creato' AND r.oggetto_tipo = 'webhook' AND r.oggetto_id = e.id
                      ORDER BY r.id LIMIT 1) a ON true
  LEFT JOIN chiavi_api k ON k.id = e.chiave_id`;

/** `owner`: the API key whose endpoints these are (REST), or null for every endpoint (the screen, the CLI). */
const ownedBy = (owner: number | null) => (owner === null ? Prisma.empty : Prisma.sql`AND e.chiave_id = ${owner}::int`);

/** The endpoints not deleted. */
export const endpoints = (owner: number | null) =>
  query<EndpointRow>(Prisma.sql`
    SELECT ${endpointColumns} FROM webhook_endpoint e ${joins} WHERE e.eliminato_il IS NULL ${ownedBy(owner)} ORDER BY e.id`);

export const endpointById = (id: number, owner: number | null) =>
  query<EndpointRow>(Prisma.sql`
    SELECT ${endpointColumns} FROM webhook_endpoint e ${joins}
     WHERE e.id = ${id}::int AND e.eliminato_il IS NULL ${ownedBy(owner)}`);

/** A new endpoint; it receives the events after the gate's bound at its creation (nothing older is sent). */
export const insertEndpoint = (e: {
  url: string;
  descrizione: string | null;
  eventi: string[];
  segreto: string;
  chiave: number | null;
  eventi_per_richiesta: number;
  consegna: string;
}) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO webhook_endpoint (url, descrizione, eventi, segreto, cursore, chiave_id, eventi_per_richiesta, consegna)
    VALUES (${e.url}, ${e.descrizione}, ${e.eventi}::text[], ${e.segreto},
            banchina_limite_sync(${EVENTS_GATE.tag}::int, ${EVENTS_GATE.seq}::regclass)::int, ${e.chiave}::int, ${e.eventi_per_richiesta}::int, ${e.consegna})
    RETURNING id`);

export interface EndpointChanges {
  eventi: string[] | null;
  eventi_per_richiesta: number | null;
  consegna: string | null;
  attivo: boolean | null;
}

/**
 * Changes an endpoint's settings (null: unchanged), in one statement on the locked row. Disabling stamps
 * `disattivato_il` (kept when already disabled); enabling clears it, and after more than 7 days disabled
 * (docs/api.md section 10) the endpoint resumes from now: its cursor jumps to the events' gate, and the range
 * it skipped is kept in `salto_da`..`salto_a` for a replay to fill. Answers the state before and after.
 */
export const updateEndpoint = (id: number, owner: number | null, c: EndpointChanges) => {
  // On the row as it was (`old`): in RETURNING, `e` is the row as it became.
  const skips = Prisma.sql`(${c.attivo}::boolean AND NOT old.attivo AND old.disattivato_il < now() - interval '7 days' AND b.bound > old.cursore)`;
  return query<{
    id: number;
    url: string;
    era_attivo: boolean;
    attivo: boolean;
    salto_da: number | null;
    salto_a: number | null;
    saltato: boolean;
  }>(
    Prisma.sql`
    WITH b AS (SELECT banchina_limite_sync(${EVENTS_GATE.tag}::int, ${EVENTS_GATE.seq}::regclass)::int AS bound),
         old AS (SELECT e.id, e.attivo, e.disattivato_il, e.cursore FROM webhook_endpoint e
                  WHERE e.id = ${id}::int AND e.eliminato_il IS NULL ${ownedBy(owner)} FOR UPDATE)
    UPDATE webhook_endpoint e SET
      eventi = coalesce(${c.eventi}::text[], e.eventi),
      eventi_per_richiesta = coalesce(${c.eventi_per_richiesta}::int, e.eventi_per_richiesta),
      consegna = coalesce(${c.consegna}::text, e.consegna),
      attivo = coalesce(${c.attivo}::boolean, e.attivo),
      disattivato_il = CASE WHEN ${c.attivo}::boolean IS NULL THEN e.disattivato_il
                            WHEN ${c.attivo}::boolean THEN NULL
                            ELSE coalesce(e.disattivato_il, now()) END,
      salto_da = CASE WHEN ${skips} THEN old.cursore + 1 ELSE e.salto_da END,
      salto_a = CASE WHEN ${skips} THEN b.bound ELSE e.salto_a END,
      cursore = CASE WHEN ${skips} THEN b.bound ELSE e.cursore END
      FROM old, b
     WHERE e.id = old.id
    RETURNING e.id, e.url, old.attivo AS era_attivo, e.attivo, e.salto_da, e.salto_a, ${skips} AS saltato`,
  );
};

/**
 * The first statement of a deletion: takes the endpoint's lock (ENDPOINT_LOCK_CLASS) for the transaction,
 * which waits for the worker that holds it, on any instance, to finish the attempts it has in flight, log
 * them and let go (it lets go as soon as it sees this request waiting). Nothing locked when the endpoint is
 * not there for this owner, so a 404 waits for no one.
 */
export const lockEndpointForDelete = (id: number, owner: number | null) =>
  query<{ id: number }>(Prisma.sql`
    SELECT e.id, pg_advisory_xact_lock(${ENDPOINT_LOCK_CLASS}::int, e.id)::text AS bloccato FROM webhook_endpoint e
     WHERE e.id = ${id}::int AND e.eliminato_il IS NULL ${ownedBy(owner)}`);

/**
 * DELETE /webhook/{id}, after lockEndpointForDelete (a statement of its own, so that its snapshot sees
 * every attempt logged before the lock was granted): the row stays (deliveries and attempts refer to it)
 * but leaves every list, the workers (not active) and the screen; its pending deliveries go, with their
 * attempts. Discarded are those and the events of its types not yet collected: what GET showed waiting.
 */
export const deleteEndpoint = (id: number, owner: number | null) =>
  query<{ id: number; url: string; scartate: number }>(Prisma.sql`
    WITH e AS (
      UPDATE webhook_endpoint e SET eliminato_il = now(), attivo = false, disattivato_il = coalesce(e.disattivato_il, now())
       WHERE e.id = ${id}::int AND e.eliminato_il IS NULL ${ownedBy(owner)}
      RETURNING e.id, e.url, e.eventi, e.cursore
    ), pendenti AS (
      SELECT c.id FROM webhook_consegne c JOIN e ON c.endpoint_id = e.id WHERE c.stato = 'in_attesa'
    ), tentativi AS (
      DELETE FROM webhook_tentativi t USING pendenti p WHERE t.consegna_id = p.id
    ), consegne AS (
      DELETE FROM webhook_consegne c USING pendenti p WHERE c.id = p.id RETURNING 1
    )
    SELECT e.id, e.url, (SELECT count(*)::int FROM consegne) + ${notCollected} AS scartate FROM e`);

/**
 * The endpoint a replay works on, its row held until the replay commits, so a deletion waits for it (and a
 * replay that comes after a deletion finds the endpoint gone: the lock re-reads the row), with the highest
 * event sequence ever issued.
 */
export const endpointForReplay = (id: number, owner: number | null) =>
  query<{ id: number; url: string; emessa: number }>(Prisma.sql`
    SELECT e.id, e.url, coalesce(pg_sequence_last_value('eventi_id_seq'::regclass), 0)::int AS emessa
      FROM webhook_endpoint e
     WHERE e.id = ${id}::int AND e.eliminato_il IS NULL ${ownedBy(owner)}
       FOR SHARE OF e`);

/** The skipped range is filled once a replay starts at or before its first sequence. */
export const clearSkipFrom = (id: number, da: number) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE webhook_endpoint SET salto_da = NULL, salto_a = NULL WHERE id = ${id}::int AND salto_da >= ${da}::int RETURNING id`);

// ---- The delivery workers (worker.ts) ----

/**
 * Active endpoints that have something to do now, leaving out those this instance is working or resting
 * (`skip`) and those a worker anywhere holds or a deletion waits for (their advisory lock): the LIMIT then counts
 * only endpoints free to take. Something to do: new events past the cursor (for an ordered endpoint only
 * while nothing pending waits for a retry, as its order holds them back anyway), or a due pending delivery
 * (an ordered endpoint's oldest; any, for a parallel one).
 */
export const endpointsWithWork = (take: number, skip: number[]) =>
  query<{ id: number }>(Prisma.sql`
    SELECT e.id
      FROM webhook_endpoint e
      LEFT JOIN LATERAL (SELECT c.prossimo_tentativo FROM webhook_consegne c
                          WHERE c.endpoint_id = e.id AND c.stato = 'in_attesa' ORDER BY c.evento_id LIMIT 1) h ON true
     WHERE e.attivo
       AND e.id <> ALL(${skip}::int[])
       AND (h.prossimo_tentativo <= now()
            OR ((h.prossimo_tentativo IS NULL OR e.consegna = 'parallela')
                AND e.cursore < coalesce(pg_sequence_last_value('eventi_id_seq'::regclass), 0))
            OR (e.consegna = 'parallela'
                AND EXISTS (SELECT 1 FROM webhook_consegne c WHERE c.endpoint_id = e.id AND c.stato = 'in_attesa'
                                                              AND c.prossimo_tentativo <= now())))
       AND NOT EXISTS (SELECT 1 FROM pg_locks l
                        WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid = ${ENDPOINT_LOCK_CLASS}::int
                          AND l.objid = e.id AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
     ORDER BY h.prossimo_tentativo NULLS LAST, e.id
     ${limit(take)}`);

export interface WorkEndpoint {
  id: number;
  url: string;
  segreto: string;
  attivo: boolean;
  eventi_per_richiesta: number;
  consegna: "ordinata" | "parallela";
}

export const workEndpoint = (id: number) =>
  query<WorkEndpoint>(Prisma.sql`
    SELECT id, url, segreto, attivo, eventi_per_richiesta, consegna FROM webhook_endpoint WHERE id = ${id}::int`);
