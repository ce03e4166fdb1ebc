import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** Held to commit: instances starting together seed the demo once. */
export const lockDemoSeeding = (lockKey: number) => query<never>(Prisma.sql`SELECT pg_advisory_xact_lock(${lockKey}::bigint)`);

/** An order's rows in their order. */
export const orderRows = (ordine: number) =>
  query<{ id: number; posizione: number }>(Prisma.sql`
    SELECT id, posizione FROM righe_ordine WHERE ordine_id = ${ordine} ORDER BY posizione`);
