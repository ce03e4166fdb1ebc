import { Prisma } from "../../db/client";
import { DEMO_LOCK } from "../../db/advisory-locks";
import { query } from "../../db/sql";

export const lockDemoSeeding = () => query<never>(Prisma.sql`SELECT pg_advisory_xact_lock(${DEMO_LOCK}::bigint)`);

/** The rows of one purchase order, in position order. */
export const orderRows = (ordine: number) =>
  query<{ id: number; posizione: number }>(Prisma.sql`
    SELECT id, posizione FROM righe_ordine WHERE ordine_id = ${ordine} ORDER BY posizione`);

/** The users among `ids` that wrote an operation: deleting them would lose the author of what they wrote. */
export const usersWithOperations = (ids: number[]) =>
  query<{ utente_id: number }>(Prisma.sql`SELECT DISTINCT utente_id FROM operazioni WHERE utente_id = ANY(${ids}::int[])`);
