import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * The alignment's statements, set-based: one per step whatever the row count. `articoli` and `codici`
 * are the lot units, in lotLockOrder; a read taken with `lock` holds its rows until commit.
 */

/** Lots that do not exist yet are created, so that they can be locked like the others. */
export const createMissingLots = (magazzino: number, articoli: number[], codici: string[]) =>
  query<never>(Prisma.sql`
    INSERT INTO lotti (articolo_id, magazzino_id, codice, residua)
    SELECT a, ${magazzino}, c, 0 FROM unnest(${articoli}::int[], ${codici}::text[]) AS t(a, c)
    ON CONFLICT DO NOTHING`);

/** The units' lots, in lot lock order (article, then code by code points). */
export const lots = (magazzino: number, articoli: number[], codici: string[], lock: boolean) =>
  query<{ id: number; articolo_id: number; codice: string; residua: Prisma.Decimal }>(Prisma.sql`
    SELECT l.id, l.articolo_id, l.codice, l.residua FROM lotti l
      JOIN unnest(${articoli}::int[], ${codici}::text[]) AS t(a, c)
        ON l.articolo_id = t.a AND l.codice = t.c
     WHERE l.magazzino_id = ${magazzino}
     ORDER BY l.articolo_id, l.codice COLLATE "C"
     ${lock ? Prisma.sql`FOR UPDATE OF l` : Prisma.empty}`);

/** Likewise the balances that do not exist yet. */
export const createMissingBalances = (magazzino: number, articoli: number[]) =>
  query<never>(Prisma.sql`
    INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
    SELECT id, ${magazzino}, 0 FROM unnest(${articoli}::int[]) AS id
    ON CONFLICT DO NOTHING`);

/** The articles' balances in the warehouse, in balance lock order. */
export const balances = (magazzino: number, articoli: number[], lock: boolean) =>
  query<{ articolo_id: number; quantita: Prisma.Decimal }>(Prisma.sql`
    SELECT articolo_id, quantita FROM giacenze
     WHERE magazzino_id = ${magazzino} AND articolo_id = ANY(${articoli}::int[])
     ORDER BY articolo_id
     ${lock ? Prisma.sql`FOR UPDATE` : Prisma.empty}`);

/** Sets counted lots to their count (the lots are locked). */
export const setLotResiduals = (ids: number[], residue: string[]) =>
  query<never>(Prisma.sql`
    UPDATE lotti l SET residua = v.residua
      FROM unnest(${ids}::int[], ${residue}::numeric[]) AS v(id, residua)
     WHERE l.id = v.id`);
