import { Prisma } from "../../db/client";
import { limit } from "../../db/sql";

/** Which rows a page reads: by id after `dopo`, or by version after `modificati_dopo`. */
export type Window = { by: "id"; after: number } | { by: "versione"; after: number };

/**
 * The window's condition and order on table alias `t` (which must have `id` and `versione`), ANDed with
 * `conditions`, and the LIMIT (`take`: one row more than the page, to tell `altri`). Shared by every
 * synced list that has a feed (the master data, GET /clienti, the notices).
 */
export function windowed(w: Window, take: number, conditions: Prisma.Sql[]) {
  const all = [w.by === "id" ? Prisma.sql`t.id > ${w.after}::int` : Prisma.sql`t.versione > ${String(w.after)}::bigint`, ...conditions];
  return {
    where: Prisma.join(all, " AND "),
    tail: w.by === "id" ? Prisma.sql`ORDER BY t.id ${limit(take)}` : Prisma.sql`ORDER BY t.versione ${limit(take)}`,
  };
}
