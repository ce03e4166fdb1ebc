import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

/**
 * Replay from sequence `da`: every event of the endpoint's types from `da` up to what its workers already
 * took becomes pending again (delivered or failed alike, attempts reset); later events come in as usual.
 */
export const replayFrom = (id: number, da: number) =>
  query<{ n: number }>(Prisma.sql`
    WITH scelti AS (
      INSERT INTO webhook_consegne (endpoint_id, evento_id)
      SELECT w.id, ev.id FROM webhook_endpoint w JOIN eventi ev ON ev.id >= ${da}::int AND ev.id <= w.cursore AND ev.tipo = ANY(w.eventi)
       WHERE w.id = ${id}::int
      ON CONFLICT (endpoint_id, evento_id) DO UPDATE
        SET stato = 'in_attesa', tentativi = 0, prossimo_tentativo = now(), primo_tentativo = NULL, concluso_il = NULL,
            messaggio = NULL
      RETURNING 1
    ) SELECT count(*)::int AS n FROM scelti`);

/**
 * One delivery pending again (the screen's replay of a failed one), on an endpoint not deleted: its row held
 * as endpointForReplay holds it, so no delivery becomes pending behind a deletion's back.
 */
export const replayDelivery = (endpoint: number, consegna: number) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE webhook_consegne
       SET stato = 'in_attesa', tentativi = 0, prossimo_tentativo = now(), primo_tentativo = NULL, concluso_il = NULL,
           messaggio = NULL
     WHERE id = ${consegna}::int AND endpoint_id = ${endpoint}::int AND stato <> 'in_attesa'
       AND endpoint_id IN (SELECT w.id FROM webhook_endpoint w WHERE w.id = ${endpoint}::int AND w.eliminato_il IS NULL FOR SHARE)
    RETURNING id`);

export interface DeliveryRow {
  id: number;
  evento_id: number;
  evento_uid: string;
  tipo: string;
  stato: "in_attesa" | "consegnata" | "fallita";
  tentativi: number;
  prossimo_tentativo: Date;
  concluso_il: Date | null;
}

/** An endpoint's deliveries, newest event first, below `prima` (all when null), optionally of one state. */
export const deliveries = (endpoint: number, stato: string | null, prima: number | null, take: number) =>
  query<DeliveryRow>(Prisma.sql`
    SELECT c.id, c.evento_id, ev.uid AS evento_uid, ev.tipo, c.stato, c.tentativi, c.prossimo_tentativo, c.concluso_il
      FROM webhook_consegne c JOIN eventi ev ON ev.id = c.evento_id
     WHERE c.endpoint_id = ${endpoint}::int
       ${stato === null ? Prisma.empty : Prisma.sql`AND c.stato = ${stato}`}
       ${prima === null ? Prisma.empty : Prisma.sql`AND c.evento_id < ${prima}::int`}
     ORDER BY c.evento_id DESC
     ${limit(take)}`);

// ---- The delivery workers (worker.ts) ----

/**
 * Copies the endpoint's new events into pending deliveries, up to `bound` (the events' gate: every id at or
 * below it is committed or never will be, so the cursor never passes an event that could still appear), at
 * most `batch` events at a time.
 */
export const fanOut = (id: number, bound: number, batch: number) =>
  query<{ cursore: number }>(Prisma.sql`
    WITH w AS (
      SELECT id, eventi, cursore, least(${bound}::int, cursore + ${batch}::int) AS fino
        FROM webhook_endpoint WHERE id = ${id}::int
    ), nuove AS (
      INSERT INTO webhook_consegne (endpoint_id, evento_id)
      SELECT w.id, ev.id FROM w JOIN eventi ev ON ev.id > w.cursore AND ev.id <= w.fino AND ev.tipo = ANY(w.eventi)
      ON CONFLICT (endpoint_id, evento_id) DO NOTHING
    )
    UPDATE webhook_endpoint e SET cursore = w.fino FROM w WHERE e.id = w.id AND w.fino > w.cursore
    RETURNING e.cursore`);

export interface HeadRow {
  id: number;
  evento_id: number;
  /** The event's public id: the webhook-id of a message of this event alone. */
  evento_uid: string;
  /** The message it was formed into (null: not yet formed). */
  messaggio: string | null;
  tentativi: number;
  dovuta: boolean;
  /** Seconds since the first attempt (null before it). */
  da_primo_s: number | null;
}

const headColumns = Prisma.sql`
  c.id, c.evento_id, ev.uid AS evento_uid, c.messaggio, c.tentativi, c.prossimo_tentativo <= now() AS dovuta,
  extract(epoch FROM now() - c.primo_tentativo)::float8 AS da_primo_s`;

/**
 * The endpoint's oldest pending deliveries (its order is the events' sequence), each with whether it is
 * due; `dueOnly` leaves out those waiting for a retry, `skip` those already in flight or queued.
 */
export const pendingDeliveries = (endpoint: number, take: number, o: { dueOnly: boolean; skip: number[] }) =>
  query<HeadRow>(Prisma.sql`
    SELECT ${headColumns}
      FROM webhook_consegne c JOIN eventi ev ON ev.id = c.evento_id
     WHERE c.endpoint_id = ${endpoint}::int AND c.stato = 'in_attesa'
       ${o.dueOnly ? Prisma.sql`AND c.prossimo_tentativo <= now()` : Prisma.empty}
       ${o.skip.length > 0 ? Prisma.sql`AND c.id <> ALL(${o.skip}::int[])` : Prisma.empty}
     ORDER BY c.evento_id
     ${limit(take)}`);

/** The pending deliveries of one formed message, all of them (a retry resends exactly the same events). */
export const messageDeliveries = (endpoint: number, messaggio: string) =>
  query<HeadRow>(Prisma.sql`
    SELECT ${headColumns}
      FROM webhook_consegne c JOIN eventi ev ON ev.id = c.evento_id
     WHERE c.endpoint_id = ${endpoint}::int AND c.stato = 'in_attesa' AND c.messaggio = ${messaggio}
     ORDER BY c.evento_id`);

/**
 * Forms a batch just before its first attempt: its id written on its deliveries. Only the endpoint's
 * lock holder forms, and only deliveries not yet formed: fewer rows than asked means it cannot go as
 * planned.
 */
export const formMessage = (ids: number[], messaggio: string) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE webhook_consegne SET messaggio = ${messaggio}
     WHERE id = ANY(${ids}::int[]) AND messaggio IS NULL AND stato = 'in_attesa'
    RETURNING id`);
