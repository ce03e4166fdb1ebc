import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import { SUGGESTED_PRICE } from "../catalogue/articles";
import type { ListMovementsInput, MovementOutput, RIFERIMENTO_TIPI } from "./movements.schemas";

/** Suggested purchase prices (SUGGESTED_PRICE) of the given articles. */
export const suggestedPrices = (articleIds: number[]) =>
  query<{ id: number; prezzo: Prisma.Decimal | null }>(Prisma.sql`
    SELECT a.id, ${SUGGESTED_PRICE} AS prezzo FROM articoli a WHERE a.id = ANY(${articleIds}::int[])`);

/** A movement as the list reads it: decimals and the date leave the database in the contract's form. */
export interface MovementRow {
  id: number;
  operazione_id: number;
  /** YYYY-MM-DD. */
  data: string;
  /** Milliseconds since the epoch: formatted in the service zone without a Date per row. */
  registrato_ms: number;
  origine: MovementOutput["origine"];
  natura: MovementOutput["natura"];
  causale: string | null;
  magazzino_id: number;
  articolo_id: number;
  articolo_codice: string;
  /** Canonical decimals (`trim_scale(…)::text`, as in availability.queries.ts). */
  quantita: string;
  prezzo: string | null;
  lotto: string | null;
  /** The location's code; null outside warehouses that manage locations. */
  ubicazione: string | null;
  riferimento_tipo: (typeof RIFERIMENTO_TIPI)[number] | null;
  riferimento_id: number | null;
  annulla_id: number | null;
  /** Who wrote it: an API key or a user (its name or username). */
  chiave_api_id: number | null;
  utente_id: number | null;
  autore_nome: string | null;
}

/** The screen's row: an arrival also says which movement cancelled it (null: standing, or not an arrival). */
export interface ScreenMovementRow extends MovementRow {
  annullato_da: number | null;
}

export type MovementFilters = Pick<ListMovementsInput, "da" | "a" | "articolo" | "magazzino" | "origine" | "operazione">;

/** A window of movements after `dopo`, in id order: `take` rows at most (the page size plus one). */
export const movementsPage = (dopo: number, f: MovementFilters, take: number) =>
  movements(Prisma.join([Prisma.sql`m.id > ${dopo}`, ...filterConditions(f)], " AND "), take, "asc");

/**
 * The screen's order: the movements below `prima`, newest first, `take` rows at most (the page size plus
 * one). Plans: the primary key read backwards from `prima` (with `articolo`, its (articolo_id, id) index;
 * with `operazione`, its own), so a page costs the rows it passes over: cheap for the recent past, the
 * screen's usual question, and a walk over every newer row for a period far back (`a` long ago).
 */
export const movementsBefore = (prima: number, f: MovementFilters, take: number) =>
  query<ScreenMovementRow>(
    movementsSql(Prisma.join([Prisma.sql`m.id < ${prima}`, ...filterConditions(f)], " AND "), take, "desc", {
      // The reversal points at its arrival (annulla_id, unique): one index probe per row of the page.
      column: Prisma.sql`, c.id AS annullato_da`,
      join: Prisma.sql`LEFT JOIN movimenti c ON c.annulla_id = m.id`,
    }),
  );

/** The list's filters as conditions on `m` (movimenti). */
function filterConditions(f: MovementFilters): Prisma.Sql[] {
  const filters: Prisma.Sql[] = [];
  if (f.da) filters.push(Prisma.sql`m.data >= ${f.da}::date`);
  if (f.a) filters.push(Prisma.sql`m.data <= ${f.a}::date`);
  if (f.articolo !== undefined) filters.push(Prisma.sql`m.articolo_id = ${f.articolo}`);
  if (f.magazzino !== undefined) filters.push(Prisma.sql`m.magazzino_id = ${f.magazzino}`);
  if (f.origine !== undefined) filters.push(Prisma.sql`m.origine = ${f.origine}`);
  if (f.operazione !== undefined) filters.push(Prisma.sql`m.operazione_id = ${f.operazione}`);
  return filters;
}

/** Movements by id, in id order (the movements an event names). */
export const movementsByIds = (ids: number[]) => movements(Prisma.sql`m.id = ANY(${ids}::int[])`, ids.length, "asc");

const movements = (where: Prisma.Sql, take: number, order: "asc" | "desc") => query<MovementRow>(movementsSql(where, take, order));

/**
 * The list's statement; `extra` adds a column and its join (the screen's cancellation of an arrival). The
 * page's movements are chosen first, in a subquery with its LIMIT, and only its rows are joined: the
 * generic plan guesses a third of the ledger for `m.id > $1`, and with the joins outside the LIMIT it
 * sized Memoize caches for that many articles and lots, set up on every call, so the first page cost
 * several times what it does with the subquery (EXPLAIN ANALYZE shows it). The article's, lot's and
 * location's codes are scalar subqueries, one index probe per row whatever the estimates: joined, the
 * movements of a full events page (planned for its actual array) were hashed against a sequential scan of
 * every article and lot, a cost that grows with the catalogue rather than with the page.
 */
const movementsSql = (
  where: Prisma.Sql,
  take: number,
  order: "asc" | "desc",
  extra: { column: Prisma.Sql; join: Prisma.Sql } = { column: Prisma.empty, join: Prisma.empty },
) =>
  Prisma.sql`
    SELECT m.id, m.operazione_id, to_char(m.data, 'YYYY-MM-DD') AS data,
           floor(extract(epoch FROM m.registrato_il) * 1000)::float8 AS registrato_ms, m.origine, m.natura, m.causale,
           m.magazzino_id, m.articolo_id, (SELECT a.codice FROM articoli a WHERE a.id = m.articolo_id) AS articolo_codice,
           trim_scale(m.quantita)::text AS quantita, trim_scale(m.prezzo)::text AS prezzo,
           (SELECT l.codice FROM lotti l WHERE l.id = m.lotto_id) AS lotto,
           (SELECT ub.codice FROM ubicazioni ub WHERE ub.id = m.ubicazione_id) AS ubicazione, m.riferimento_tipo, m.riferimento_id, m.annulla_id,
           m.chiave_api_id, m.utente_id, COALESCE(k.nome, u.username) AS autore_nome${extra.column}
      FROM (SELECT * FROM movimenti m
             WHERE ${where}
             ORDER BY m.id ${order === "asc" ? Prisma.empty : Prisma.raw("DESC")}
             ${limit(take)}) m
      LEFT JOIN chiavi_api k ON k.id = m.chiave_api_id
      LEFT JOIN utenti u ON u.id = m.utente_id
      ${extra.join}
     ORDER BY m.id ${order === "asc" ? Prisma.empty : Prisma.raw("DESC")}`;
