import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** The sync gate's bound of one synced table (tag and id sequence: lists.ts SYNC_TABLES). */
export const syncBound = (tag: number, seq: string) =>
  query<{ b: bigint | null }>(Prisma.sql`SELECT banchina_limite_sync(${tag}, ${seq}::regclass) AS b`);
