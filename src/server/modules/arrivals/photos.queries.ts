import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** The statements of receiving differences' photos (docs/api.md section 12: kept in PostgreSQL, at most 5 each). */

/**
 * The difference, locked: two concurrent uploads to one difference queue here. The count is not read in this
 * statement (its snapshot predates the wait) but by the INSERT after it, which sees what the first committed.
 */
export const lockDifference = (id: number) =>
  query<{ id: number }>(Prisma.sql`SELECT id FROM differenze_ricevimento WHERE id = ${id}::int FOR UPDATE`);

/** The next photo, numbered after the last, unless the difference already has `max`: no row then. */
export const insertPhoto = (id: number, max: number, tipo: string, dati: Uint8Array) =>
  query<{ n: number }>(Prisma.sql`
    INSERT INTO foto_differenze (differenza_id, n, tipo, dati)
    SELECT ${id}::int, coalesce(max(n), 0) + 1, ${tipo}, ${Buffer.from(dati.buffer, dati.byteOffset, dati.byteLength)}::bytea
      FROM foto_differenze WHERE differenza_id = ${id}::int
    HAVING count(*) < ${max}::int
    RETURNING n`);

export const photo = (id: number, n: number) =>
  query<{ tipo: string; dati: Uint8Array }>(Prisma.sql`
    SELECT tipo, dati FROM foto_differenze WHERE differenza_id = ${id}::int AND n = ${n}::int`);

/** Whether the difference exists (a missing photo of an unknown difference says which is unknown). */
export const differenceExists = (id: number) =>
  query<{ id: number }>(Prisma.sql`SELECT id FROM differenze_ricevimento WHERE id = ${id}::int`);
