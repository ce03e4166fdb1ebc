import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";
import { containsPattern } from "../../lib/sql";
import type { ListAvailabilityInput } from "./availability.schemas";

export interface AvailabilityRow {
  /** False only when `magazzino` names no warehouse: then the query returns this one row and no page. */
  magazzino_trovato: boolean;
  id: number | null;
  codice: string;
  descrizione: string;
  giacenza: string;
  in_arrivo: string;
  /**
   * The breakdown per warehouse, by id, in the contract's shape, built as JSON by PostgreSQL: one JSON.parse
   * in the driver instead of three text arrays parsed character by character in JS (the largest CPU cost of a
   * page in the server's profile). `in_quarantena` only where the warehouse manages locations; null when the
   * catalogue has no warehouse at all (or with `magazzino`).
   */
  magazzini:
    | { magazzino: number; giacenza: string; in_quarantena?: string; prenotata?: string; scaduta?: string; disponibile?: string }[]
    | null;
  /** What lies in quarantena locations; null unless a warehouse of the row manages locations. */
  in_quarantena: string | null;
  /** Available-to-promise (docs/api.md section 14): null with `a` (holds have no history). */
  prenotata: string | null;
  scaduta: string | null;
  disponibile: string | null;
}

/**
 * `arrivi`: the expected quantity per article of the page. Today's is the remainder of the
 * rows of orders not `evaso`. At the end of day `a`, it is what the rows of orders dated up to that day
 * still expected then: today's remainder plus what the ledger shows arriving on the row after that day
 * (arrivals, less their cancellations, each on its business date), since `arrivata` is the ledger's net sum.
 * An order `evaso` today counts only through arrivals after that day. Closed quantities keep no date: they
 * count as closed on every day. `dopo_il_giorno` reads the ledger after that day only, so a recent day
 * costs a few movements, not the history (bounded by the activity since `a`, not by the years before it).
 */
function expected(a: string | undefined, inWarehouse: Prisma.Sql) {
  if (a === undefined) {
    return Prisma.sql`arrivi AS (
      SELECT r.articolo_id, sum(greatest(r.ordinata - r.arrivata - r.chiusa, 0)) AS in_arrivo
        FROM pagina p CROSS JOIN LATERAL (
               SELECT r.articolo_id, r.ordinata, r.arrivata, r.chiusa
                 FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
                WHERE r.articolo_id = p.id AND o.stato <> 'evaso' ${inWarehouse}
               OFFSET 0) r
       GROUP BY r.articolo_id
    )`;
  }
  // MATERIALIZED: the page's movements after the day, found by (articolo_id, data), and only then the
  // arrivals among them. Left to itself the planner ANDs in the index of every order-row movement of the
  // ledger (riferimento_tipo), a bitmap as long as the history: each page would cost more as years go by.
  return Prisma.sql`dopo_il_giorno_movimenti AS MATERIALIZED (
      SELECT m.riferimento_tipo, m.riferimento_id, m.origine, m.quantita
        FROM pagina p CROSS JOIN LATERAL (
               SELECT m.riferimento_tipo, m.riferimento_id, m.origine, m.quantita
                 FROM movimenti m WHERE m.articolo_id = p.id AND m.data > ${a}::date OFFSET 0) m
    ),
    dopo_il_giorno AS (
      SELECT d.riferimento_id AS riga_id, sum(d.quantita) AS arrivata
        FROM dopo_il_giorno_movimenti d
       WHERE d.riferimento_tipo = 'riga_ordine' AND d.origine IN ('arrivo', 'annullamento')
       GROUP BY d.riferimento_id
    ),
    arrivi AS (
      SELECT r.articolo_id, sum(greatest(r.ordinata - r.arrivata - r.chiusa + coalesce(d.arrivata, 0), 0)) AS in_arrivo
        FROM pagina p CROSS JOIN LATERAL (
               SELECT r.id, r.articolo_id, r.ordinata, r.arrivata, r.chiusa, o.stato
                 FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id
                WHERE r.articolo_id = p.id AND o.data <= ${a}::date ${inWarehouse}
               OFFSET 0) r
        LEFT JOIN dopo_il_giorno d ON d.riga_id = r.id
       WHERE r.stato <> 'evaso' OR d.riga_id IS NOT NULL
       GROUP BY r.articolo_id
    )`;
}

/**
 * Stock at the end of day `a` by (article, warehouse) of the page's articles, without reading the history
 * before a's month: the monthly net changes (`movimenti_mensili`, kept by a trigger on the ledger's
 * INSERT) of the months before a's month, plus the movements of a's month up to `a` (by the index on
 * (articolo_id, data)). So its cost is the page's articles × the months with activity, plus one month of
 * their movements, whatever the ledger holds. `quarantena`: only what lies in locations of type quarantena.
 */
function asOf(a: string, inWarehouse: (column: Prisma.Sql) => Prisma.Sql, quarantena: boolean) {
  const monthlyLocation = quarantena ? Prisma.sql`JOIN ubicazioni u ON u.id = mm.ubicazione_id AND u.tipo = 'quarantena'` : Prisma.empty;
  const ledgerLocation = quarantena ? Prisma.sql`JOIN ubicazioni u ON u.id = m.ubicazione_id AND u.tipo = 'quarantena'` : Prisma.empty;
  return Prisma.sql`
    SELECT x.articolo_id, x.magazzino_id, sum(x.quantita) AS quantita
      FROM pagina p CROSS JOIN LATERAL (
             SELECT mm.articolo_id, mm.magazzino_id, mm.quantita
               FROM movimenti_mensili mm ${monthlyLocation}
              WHERE mm.articolo_id = p.id AND mm.mese < date_trunc('month', ${a}::date)::date ${inWarehouse(Prisma.sql`mm.magazzino_id`)}
             UNION ALL
             SELECT m.articolo_id, m.magazzino_id, m.quantita
               FROM movimenti m ${ledgerLocation}
              WHERE m.articolo_id = p.id AND m.data >= date_trunc('month', ${a}::date)::date AND m.data <= ${a}::date
                    ${inWarehouse(Prisma.sql`m.magazzino_id`)}
             OFFSET 0) x
     GROUP BY x.articolo_id, x.magazzino_id`;
}

/**
 * The availability page in one statement (see availability.service.ts listAvailability): `take` articles
 * at most after `dopo` (the page size plus one); `magazzino` null for every warehouse.
 */
export const availabilityPage = (
  dopo: number,
  take: number,
  magazzino: number | null,
  filters: Pick<ListAvailabilityInput, "a" | "cerca" | "articolo" | "codice">,
  /**
   * Today in the service's time zone: lots with an earlier `scadenza` are expired. Unused with `a`. Left out (the
   * benchmark's statements, the CSV export), the database's current date.
   */
  oggiDato?: string,
) => {
  const oggi = Prisma.sql`coalesce(${oggiDato ?? null}::date, current_date)`;
  const inWarehouse = (column: Prisma.Sql) => (magazzino === null ? Prisma.empty : Prisma.sql`AND ${column} = ${magazzino}::int`);
  // Both sources yield one row per (article, warehouse) of the page. Every part reads the page's articles one
  // by one through its index (`CROSS JOIN LATERAL (… WHERE x.articolo_id = p.id OFFSET 0)`: the OFFSET keeps
  // the subquery from being merged into a join the planner may turn into a hash), so a page costs its
  // articles' rows whatever the tables hold. Read as an id range taken from `pagina` (generic plans guess a
  // share of the table for it) the as-of page hashed every order dated up to `a` and ANDed the whole month's
  // movements by date on a large ledger; joined to `pagina`, the planner hashed all of `giacenze` and
  // `righe_ordine` on a small one and probed by index only on a large one: either way a page cost the tables.
  const balances =
    filters.a === undefined
      ? Prisma.sql`
          SELECT g.articolo_id, g.magazzino_id, g.quantita
            FROM pagina p CROSS JOIN LATERAL (
                   SELECT g.articolo_id, g.magazzino_id, g.quantita FROM giacenze g
                    WHERE g.articolo_id = p.id ${inWarehouse(Prisma.sql`g.magazzino_id`)} OFFSET 0) g`
      : asOf(filters.a, inWarehouse, false);
  // Stock in quarantena locations (docs/api.md section 11), by (article, warehouse) as `saldi`; with `a`, from the
  // ledger's movements into and out of them (the locations' type as it is today), read as the balances are.
  const quarantined =
    filters.a === undefined
      ? Prisma.sql`
          SELECT g.articolo_id, g.magazzino_id, sum(g.quantita) AS quantita
            FROM pagina p CROSS JOIN LATERAL (
                   SELECT g.articolo_id, g.magazzino_id, g.quantita
                     FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
                    WHERE g.articolo_id = p.id AND u.tipo = 'quarantena' ${inWarehouse(Prisma.sql`g.magazzino_id`)} OFFSET 0) g
           GROUP BY g.articolo_id, g.magazzino_id`
      : asOf(filters.a, inWarehouse, true);
  // Available-to-promise (docs/api.md section 14), today only: stock in expired lots, what of it lies in quarantena
  // (so that a piece both expired and in quarantena is subtracted once), and the holds of active reservations.
  const today = filters.a === undefined;
  const expiring = today
    ? Prisma.sql`,
    scadute AS (
      SELECT l.articolo_id, l.magazzino_id, sum(l.residua) AS quantita
        FROM pagina p CROSS JOIN LATERAL (
               SELECT l.articolo_id, l.magazzino_id, l.residua FROM lotti l
                WHERE l.articolo_id = p.id AND l.scadenza < ${oggi} AND l.residua > 0 ${inWarehouse(Prisma.sql`l.magazzino_id`)} OFFSET 0) l
       GROUP BY l.articolo_id, l.magazzino_id
    ),
    scadute_in_quarantena AS (
      SELECT g.articolo_id, g.magazzino_id, sum(g.quantita) AS quantita
        FROM pagina p CROSS JOIN LATERAL (
               SELECT g.articolo_id, g.magazzino_id, g.quantita
                 FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id JOIN lotti l ON l.id = g.lotto_id
                WHERE g.articolo_id = p.id AND u.tipo = 'quarantena' AND l.scadenza < ${oggi} ${inWarehouse(Prisma.sql`g.magazzino_id`)}
               OFFSET 0) g
       GROUP BY g.articolo_id, g.magazzino_id
    ),
    tenute AS (
      SELECT r.articolo_id, r.magazzino_id, sum(r.prenotata) AS quantita
        FROM pagina p CROSS JOIN LATERAL (
               SELECT r.articolo_id, r.magazzino_id, r.prenotata
                 FROM righe_prenotazione r JOIN prenotazioni pr ON pr.id = r.prenotazione_id
                WHERE r.articolo_id = p.id AND r.prenotata > 0 AND banchina_prenotazione_tiene(pr.stato, pr.scade_il)
                      ${inWarehouse(Prisma.sql`r.magazzino_id`)} OFFSET 0) r
       GROUP BY r.articolo_id, r.magazzino_id
    )`
    : Prisma.empty;
  const free = Prisma.sql`greatest(coalesce(s.quantita, 0) - coalesce(z.quantita, 0) - coalesce(e.quantita, 0) + coalesce(ez.quantita, 0)
                                   - coalesce(h.quantita, 0), 0)`;
  const promise = today
    ? Prisma.sql`LEFT JOIN scadute e ON e.articolo_id = p.id AND e.magazzino_id = w.id
        LEFT JOIN scadute_in_quarantena ez ON ez.articolo_id = p.id AND ez.magazzino_id = w.id
        LEFT JOIN tenute h ON h.articolo_id = p.id AND h.magazzino_id = w.id`
    : Prisma.empty;
  const promiseColumns = today
    ? Prisma.sql`trim_scale(coalesce(sum(h.quantita), 0))::text AS prenotata, trim_scale(coalesce(sum(e.quantita), 0))::text AS scaduta,
                 trim_scale(coalesce(sum(${free}), 0))::text AS disponibile`
    : Prisma.sql`NULL::text AS prenotata, NULL::text AS scaduta, NULL::text AS disponibile`;
  const promiseJson = today
    ? Prisma.sql` || jsonb_build_object('prenotata', trim_scale(coalesce(h.quantita, 0))::text, 'scaduta', trim_scale(coalesce(e.quantita, 0))::text,
                                       'disponibile', trim_scale(${free})::text)`
    : Prisma.empty;
  // One article (`articolo` or `codice`): it, or a template's variants.
  const oneArticle =
    filters.articolo !== undefined
      ? Prisma.sql`AND (a.id = ${filters.articolo}::int OR a.modello_id = ${filters.articolo}::int)`
      : filters.codice !== undefined
        ? Prisma.sql`AND (a.codice = ${filters.codice} OR a.modello_id = (SELECT m.id FROM articoli m WHERE m.codice = ${filters.codice}))`
        : Prisma.empty;

  // LEFT JOIN, not CROSS JOIN: a catalogue with no warehouse at all still lists its articles.
  const warehouses = magazzino === null ? Prisma.sql`true` : Prisma.sql`w.id = ${magazzino}::int`;
  const breakdown =
    magazzino === null
      ? Prisma.sql`json_agg((CASE WHEN w.gestione_ubicazioni
                     THEN jsonb_build_object('magazzino', w.id, 'giacenza', trim_scale(coalesce(s.quantita, 0))::text,
                                            'in_quarantena', trim_scale(coalesce(z.quantita, 0))::text)
                     ELSE jsonb_build_object('magazzino', w.id, 'giacenza', trim_scale(coalesce(s.quantita, 0))::text) END)${promiseJson}
                     ORDER BY w.id) FILTER (WHERE w.id IS NOT NULL) AS magazzini`
      : Prisma.sql`NULL::json AS magazzini`;

  // `cerca`: a substring of the code or the description; LIKE's wildcards in the text are literal.
  const pattern = filters.cerca === undefined ? null : containsPattern(filters.cerca);
  const matching = pattern === null ? Prisma.empty : Prisma.sql`AND (a.codice ILIKE ${pattern} OR a.descrizione ILIKE ${pattern})`;

  return query<AvailabilityRow>(Prisma.sql`
    WITH pagina AS (
      SELECT a.id, a.codice, a.descrizione
        FROM articoli a
       WHERE a.id > ${dopo} AND NOT a.ha_varianti ${matching} ${oneArticle}
       ORDER BY a.id
       ${limit(take)}
    ),
    saldi AS (${balances}),
    quarantena AS (${quarantined})${expiring},
    giacenze_pagina AS (
      SELECT p.id, p.codice, p.descrizione, coalesce(sum(s.quantita), 0) AS giacenza, ${breakdown},
             CASE WHEN bool_or(w.gestione_ubicazioni) THEN trim_scale(coalesce(sum(z.quantita), 0))::text END AS in_quarantena,
             ${promiseColumns}
        FROM pagina p
        LEFT JOIN magazzini w ON ${warehouses}
        LEFT JOIN saldi s ON s.articolo_id = p.id AND s.magazzino_id = w.id
        LEFT JOIN quarantena z ON z.articolo_id = p.id AND z.magazzino_id = w.id
        ${promise}
       GROUP BY p.id, p.codice, p.descrizione
    ),
    ${expected(filters.a, inWarehouse(Prisma.sql`o.magazzino_id`))}
    SELECT f.magazzino_trovato, g.id, g.codice, g.descrizione, trim_scale(g.giacenza)::text AS giacenza,
           trim_scale(coalesce(r.in_arrivo, 0))::text AS in_arrivo, g.magazzini, g.in_quarantena,
           g.prenotata, g.scaduta, g.disponibile
      FROM (SELECT ${magazzino}::int IS NULL OR EXISTS (SELECT 1 FROM magazzini WHERE id = ${magazzino}::int) AS magazzino_trovato) f
      -- An unknown warehouse must be refused even past the end of the catalogue, hence this outer row.
      LEFT JOIN giacenze_pagina g ON f.magazzino_trovato
      LEFT JOIN arrivi r ON r.articolo_id = g.id
     ORDER BY g.id`);
};

/** Whether the article named by `GET /disponibilita?articolo=` (or `codice=`) exists. */
export const articleExists = (f: { articolo?: number; codice?: string }) =>
  query<{ id: number }>(
    f.articolo !== undefined
      ? Prisma.sql`SELECT id FROM articoli WHERE id = ${f.articolo}::int`
      : Prisma.sql`SELECT id FROM articoli WHERE codice = ${f.codice ?? ""}`,
  );
