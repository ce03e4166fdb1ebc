import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

/** The screens' statements of reservations (reservations-screens.service.ts): the names a person reads beside the quantities. */

/**
 * The state in force: an `attiva` past its `scade_il` holds nothing (banchina_prenotazione_tiene, the database's
 * clock) and is shown `scaduta` before the worker stores it so (docs/api.md section 14).
 */
const STATE_IN_FORCE = Prisma.sql`CASE WHEN p.stato = 'attiva' AND NOT banchina_prenotazione_tiene(p.stato, p.scade_il) THEN 'scaduta' ELSE p.stato END`;

export interface ScreenReservationRow {
  id: number;
  riferimento: string;
  stato: string;
  scade_ms: number | null;
  magazzino: { id: number; codice: string; nome: string };
  cliente: { id: number; codice: string; nome: string };
  autore: { tipo: "chiave" | "utente"; nome: string } | null;
  righe: {
    numero_riga: number;
    articolo: { id: number; codice: string; descrizione: string };
    lotto: string | null;
    richiesta: string;
    prenotata: string;
    prelevata: string;
    spedita: string;
    scoperta: string;
  }[];
}

/** A page newest first: the reservations below `prima` (ids), with the state in force filtered as shown. */
export const reservationsBefore = (prima: number, take: number, f: { magazzino?: number; stato?: string }) => {
  const conditions = [
    Prisma.sql`p.id < ${prima}::int`,
    ...(f.magazzino === undefined ? [] : [Prisma.sql`p.magazzino_id = ${f.magazzino}::int`]),
    ...(f.stato === undefined ? [] : [Prisma.sql`${STATE_IN_FORCE} = ${f.stato}`]),
  ];
  return query<ScreenReservationRow>(Prisma.sql`
    SELECT p.id, p.riferimento, ${STATE_IN_FORCE} AS stato, floor(extract(epoch FROM p.scade_il) * 1000)::float8 AS scade_ms,
           jsonb_build_object('id', m.id, 'codice', m.codice, 'nome', m.nome) AS magazzino,
           jsonb_build_object('id', c.id, 'codice', c.codice, 'nome', c.ragione_sociale) AS cliente,
           CASE WHEN k.id IS NOT NULL THEN jsonb_build_object('tipo', 'chiave', 'nome', k.nome)
                WHEN u.id IS NOT NULL THEN jsonb_build_object('tipo', 'utente', 'nome', u.username) END AS autore,
           (SELECT coalesce(jsonb_agg(jsonb_build_object('numero_riga', r.numero_riga,
                       'articolo', jsonb_build_object('id', a.id, 'codice', a.codice, 'descrizione', a.descrizione), 'lotto', l.codice,
                       'richiesta', trim_scale(r.richiesta)::text, 'prenotata', trim_scale(r.prenotata)::text,
                       'prelevata', trim_scale(r.prelevata)::text, 'spedita', trim_scale(r.spedita)::text,
                       'scoperta', trim_scale(r.scoperta)::text) ORDER BY r.numero_riga), '[]'::jsonb)
              FROM righe_prenotazione r JOIN articoli a ON a.id = r.articolo_id LEFT JOIN lotti l ON l.id = r.lotto_id
             WHERE r.prenotazione_id = p.id) AS righe
      FROM prenotazioni p
      JOIN magazzini m ON m.id = p.magazzino_id
      JOIN clienti c ON c.id = p.cliente_id
      LEFT JOIN chiavi_api k ON k.id = p.chiave_api_id
      LEFT JOIN utenti u ON u.id = p.utente_id
     WHERE ${Prisma.join(conditions, " AND ")}
     ORDER BY p.id DESC ${limit(take)}`);
};

export interface HolderRow {
  prenotazione: number;
  riferimento: string;
  numero_riga: number;
  cliente: { id: number; codice: string; nome: string };
  magazzino: { id: number; codice: string; nome: string };
  lotto: string | null;
  prenotata: string;
}

/** Rows that hold the article now (`prenotata` > 0 of a reservation that holds), oldest reservation first. */
export const holdersOfArticle = (articolo: number, take: number) =>
  query<HolderRow>(Prisma.sql`
    SELECT p.id AS prenotazione, p.riferimento, r.numero_riga,
           jsonb_build_object('id', c.id, 'codice', c.codice, 'nome', c.ragione_sociale) AS cliente,
           jsonb_build_object('id', m.id, 'codice', m.codice, 'nome', m.nome) AS magazzino,
           l.codice AS lotto, trim_scale(r.prenotata)::text AS prenotata
      FROM righe_prenotazione r
      JOIN prenotazioni p ON p.id = r.prenotazione_id
      JOIN magazzini m ON m.id = r.magazzino_id
      JOIN clienti c ON c.id = p.cliente_id
      LEFT JOIN lotti l ON l.id = r.lotto_id
     WHERE r.articolo_id = ${articolo}::int AND r.prenotata > 0 AND banchina_prenotazione_tiene(p.stato, p.scade_il)
     ORDER BY p.id, r.numero_riga ${limit(take)}`);

/** How many rows hold the article now and how much, all of them (the screen shows the first ones). */
export const heldOfArticle = (articolo: number) =>
  query<{ righe: number; prenotata: string }>(Prisma.sql`
    SELECT count(*)::int AS righe, trim_scale(coalesce(sum(r.prenotata), 0))::text AS prenotata
      FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
     WHERE r.articolo_id = ${articolo}::int AND r.prenotata > 0 AND banchina_prenotazione_tiene(p.stato, p.scade_il)`);
