import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import type { EventType } from "../../../lib/domain-lists";

/** An event as stored: `dati` holds rows in the shape the lists read them (migration 20261125000000_eventi). */
export interface EventRow {
  id: number;
  uid: string;
  tipo: EventType;
  creato_ms: number;
  dati: Record<string, unknown>;
}

const columns = Prisma.sql`e.id, e.uid, e.tipo, floor(extract(epoch FROM e.creato_il) * 1000)::float8 AS creato_ms, e.dati`;

/** A window of events after `dopo`, in sequence order, of the given types (all when null): `take` at most. */
export const eventsPage = (dopo: number, tipi: EventType[] | null, take: number) =>
  query<EventRow>(Prisma.sql`
    SELECT ${columns}
      FROM eventi e
     WHERE e.id > ${dopo}::int ${tipi === null ? Prisma.empty : Prisma.sql`AND e.tipo = ANY(${tipi}::text[])`}
     ORDER BY e.id
     ${limit(take)}`);

/** Events by sequence number (the webhook workers' deliveries). */
export const eventsByIds = (ids: number[]) =>
  query<EventRow>(Prisma.sql`SELECT ${columns} FROM eventi e WHERE e.id = ANY(${ids}::int[]) ORDER BY e.id`);

/** The delivery note and supplier of arrival operations (what arrivo.registrato adds to its movements). */
export const deliveryNotes = (operazioni: number[]) =>
  query<{ id: number; ddt: string | null; fornitore_id: number | null }>(Prisma.sql`
    SELECT id, ddt, fornitore_id FROM operazioni WHERE id = ANY(${operazioni}::int[])`);
