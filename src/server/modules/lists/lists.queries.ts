import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * The sync gate's bound of one synced table (tag and id sequence: advisory-locks.ts SYNC_TABLES), `b`, and the
 * sequence's last value, `s`: the highest id (or version) ever issued, above which a client's cursor
 * cannot come from this service (cursore_non_valido). Read after the bound, so never below it.
 */
export const syncBound = (tag: number, seq: string) =>
  query<{ b: bigint | null; s: bigint }>(
    Prisma.sql`SELECT banchina_limite_sync(${tag}, ${seq}::regclass) AS b, coalesce(pg_sequence_last_value(${seq}::regclass), 0) AS s`,
  );

/**
 * Every list's starting cursor (GET /cursori): the sync bound of each gate, in one statement. Each bound is
 * read as a list reads it, so a client that starts from it misses nothing committed after (docs/api.md section 4).
 */
export const startingCursors = (gates: { name: string; tag: number; seq: string }[]) =>
  query<Record<string, bigint | null>>(
    Prisma.sql`SELECT ${Prisma.join(
      gates.map((g) => Prisma.sql`banchina_limite_sync(${g.tag}, ${g.seq}::regclass) AS ${Prisma.raw(`"${g.name}"`)}`),
      ", ",
    )}`,
  );
