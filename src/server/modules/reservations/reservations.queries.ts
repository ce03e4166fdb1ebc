import { RESERVATION_KEY_LOCK } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import { type Window, windowed } from "../lists/window";

/** Every statement of reservations (docs/api.md section 14). */

/** Lock order 0e: the reservations' keys (author, riferimento), sorted: two writes of one reference queue. */
export const lockReservationKeys = (autori: string[], riferimenti: string[]) =>
  query<{ n: number }>(Prisma.sql`
    SELECT count(*)::int AS n FROM (
      SELECT pg_advisory_xact_lock(${RESERVATION_KEY_LOCK}::int, k)
        FROM (SELECT DISTINCT hashtext(a || '/' || r) AS k FROM unnest(${autori}::text[], ${riferimenti}::text[]) AS u(a, r)) h
       ORDER BY k) s`);

export const warehousesByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM magazzini WHERE codice = ANY(${codici}::text[])`);

export const clientsByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM clienti WHERE codice = ANY(${codici}::text[])`);

export interface LockedReservation {
  id: number;
  riferimento: string;
  magazzino_id: number;
  cliente_id: number;
  stato: string;
  scade_ms: number | null;
  parziale: boolean;
  /** Whether its rows count as held now (banchina_prenotazione_tiene: the database's clock). */
  tiene: boolean;
}

const owner = (chiave: number | null, utente: number | null) =>
  Prisma.sql`p.chiave_api_id IS NOT DISTINCT FROM ${chiave}::int AND p.utente_id IS NOT DISTINCT FROM ${utente}::int`;

/** Lock order 2b: the author's reservations of these references, by id. */
export const lockReservationsByReference = (chiave: number | null, utente: number | null, riferimenti: string[]) =>
  query<LockedReservation>(Prisma.sql`
    SELECT p.id, p.riferimento, p.magazzino_id, p.cliente_id, p.stato, floor(extract(epoch FROM p.scade_il) * 1000)::float8 AS scade_ms,
           p.parziale, banchina_prenotazione_tiene(p.stato, p.scade_il) AS tiene
      FROM prenotazioni p
     WHERE ${owner(chiave, utente)} AND p.riferimento = ANY(${riferimenti}::text[])
     ORDER BY p.id
       FOR UPDATE OF p`);

/** Lock order 2b: one reservation by id. */
export const lockReservation = (id: number) =>
  query<LockedReservation>(Prisma.sql`
    SELECT p.id, p.riferimento, p.magazzino_id, p.cliente_id, p.stato, floor(extract(epoch FROM p.scade_il) * 1000)::float8 AS scade_ms,
           p.parziale, banchina_prenotazione_tiene(p.stato, p.scade_il) AS tiene
      FROM prenotazioni p WHERE p.id = ${id}::int
       FOR UPDATE OF p`);

/**
 * Lock order 2b for an unload naming reservations (docs/api.md section 14): the reservations by id, FOR UPDATE in id
 * order, the lock POST /prenotazioni and the cancel take. Send rowsToConsume after it, as a statement of its own: a
 * lock that waited re-reads the reservation, but only a later statement's snapshot sees the rows its holder wrote.
 */
export const lockReservationsById = (ids: number[]) =>
  query<LockedReservation>(Prisma.sql`
    SELECT p.id, p.riferimento, p.magazzino_id, p.cliente_id, p.stato, floor(extract(epoch FROM p.scade_il) * 1000)::float8 AS scade_ms,
           p.parziale, banchina_prenotazione_tiene(p.stato, p.scade_il) AS tiene
      FROM prenotazioni p WHERE p.id = ANY(${ids}::int[])
     ORDER BY p.id
       FOR UPDATE OF p`);

export interface RowToConsume {
  id: number;
  prenotazione_id: number;
  numero_riga: number;
  articolo_id: number;
  /** The lot's code, or null: a row without lot holds the article. */
  lotto: string | null;
  /** What the row holds and is not picked (picked goods leave through shipping, section 15): text. */
  consumabile: string;
}

/** The rows of these (locked) reservations an unload may consume, by reservation and numero_riga. */
export const rowsToConsume = (ids: number[]) =>
  query<RowToConsume>(Prisma.sql`
    SELECT r.id, r.prenotazione_id, r.numero_riga, r.articolo_id, l.codice AS lotto, (r.prenotata - r.prelevata)::text AS consumabile
      FROM righe_prenotazione r LEFT JOIN lotti l ON l.id = r.lotto_id
     WHERE r.prenotazione_id = ANY(${ids}::int[])
     ORDER BY r.prenotazione_id, r.numero_riga`);

/**
 * Goods shipped by unloads naming the reservation: each row's hold goes down and its `spedita` up by the same
 * quantity, so `prenotata + spedita` stays within `richiesta`; what is uncovered cannot stay above what is held.
 * One entry per row id.
 */
export const consumeRows = (ids: number[], quantita: string[]) =>
  query<never>(Prisma.sql`
    UPDATE righe_prenotazione r
       SET prenotata = r.prenotata - u.q, spedita = r.spedita + u.q, scoperta = least(r.scoperta, r.prenotata - u.q)
      FROM unnest(${ids}::int[], ${quantita}::numeric[]) AS u(id, q)
     WHERE r.id = u.id`);

/**
 * The headers after consumeRows, by id (the UPDATE takes the new version and the event follows at commit): `evasa`
 * when none of its rows holds anything any more, else as it is.
 */
export const settleConsumed = (ids: number[]) =>
  query<never>(Prisma.sql`
    UPDATE prenotazioni p
       SET stato = CASE WHEN EXISTS (SELECT 1 FROM righe_prenotazione r WHERE r.prenotazione_id = p.id AND r.prenotata > 0)
                        THEN p.stato ELSE 'evasa' END
     WHERE p.id = ANY(${ids}::int[])`);

/**
 * The transaction's `now()` in milliseconds: the instant banchina_prenotazione_tiene compares `scade_il` with in
 * this transaction, so a `scade_il` refused as past here is one that would hold nothing.
 */
export const transactionNowMs = () => query<{ ora_ms: number }>(Prisma.sql`SELECT (extract(epoch FROM now()) * 1000)::float8 AS ora_ms`);

export interface ReservationRowRow {
  id: number;
  prenotazione_id: number;
  numero_riga: number;
  articolo_id: number;
  magazzino_id: number;
  lotto_id: number | null;
  /** Numerics as PostgreSQL text. */
  richiesta: string;
  prenotata: string;
  prelevata: string;
  spedita: string;
  prezzo: string | null;
}

/** The rows of these reservations (their reservation is locked: nothing else writes them meanwhile). */
export const rowsOfReservations = (ids: number[]) =>
  query<ReservationRowRow>(Prisma.sql`
    SELECT r.id, r.prenotazione_id, r.numero_riga, r.articolo_id, r.magazzino_id, r.lotto_id, r.richiesta::text AS richiesta,
           r.prenotata::text AS prenotata, r.prelevata::text AS prelevata, r.spedita::text AS spedita, r.prezzo::text AS prezzo
      FROM righe_prenotazione r WHERE r.prenotazione_id = ANY(${ids}::int[])
     ORDER BY r.prenotazione_id, r.numero_riga`);

export interface LotRow {
  id: number;
  articolo_id: number;
  magazzino_id: number;
  codice: string;
  scaduto: boolean;
  /** Residual outside quarantena locations, less every active hold on the lot: numerics as text. */
  fuori_quarantena: string;
  tenuta: string;
}

/**
 * The lots named, by (article, warehouse, code), with what of each lies outside quarantena locations and what
 * active reservations hold of it. Read after the balances' lock (lockBalancesForHolds), in its own statement, so
 * its snapshot sees every hold committed before the lock was granted.
 */
export const lotsToHold = (articoli: number[], magazzini: number[], codici: string[], oggi: string) =>
  query<LotRow>(Prisma.sql`
    SELECT l.id, l.articolo_id, l.magazzino_id, l.codice, coalesce(l.scadenza < ${oggi}::date, false) AS scaduto,
           (l.residua - coalesce((SELECT sum(g.quantita) FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
                                   WHERE g.lotto_id = l.id AND u.tipo = 'quarantena'), 0))::text AS fuori_quarantena,
           coalesce((SELECT sum(r.prenotata) FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
                      WHERE r.lotto_id = l.id AND r.prenotata > 0 AND banchina_prenotazione_tiene(p.stato, p.scade_il)), 0)::text AS tenuta
      FROM lotti l
     WHERE (l.articolo_id, l.magazzino_id, l.codice) IN (SELECT * FROM unnest(${articoli}::int[], ${magazzini}::int[], ${codici}::text[]))`);

export interface FreeRow {
  articolo_id: number;
  magazzino_id: number;
  /** giacenza − (quarantena ∪ expired lots) − active holds, signed (the caller clamps it at zero): text. */
  libera: string;
}

/**
 * What is free to promise per (article, warehouse), before clamping: the balance, less what lies in quarantena
 * locations or in lots past their expiry (a piece that is both counted once: the expired lots' stock in
 * quarantena is given back), less what active, unexpired reservations hold. Read after the balances' lock.
 */
export const freeToHold = (articoli: number[], magazzini: number[], oggi: string) =>
  query<FreeRow>(Prisma.sql`
    SELECT k.articolo_id, k.magazzino_id,
           (banchina_copribile(k.articolo_id, k.magazzino_id, ${oggi}::date)
            - coalesce((SELECT sum(r.prenotata) FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
                        WHERE r.articolo_id = k.articolo_id AND r.magazzino_id = k.magazzino_id AND r.prenotata > 0
                          AND banchina_prenotazione_tiene(p.stato, p.scade_il)), 0))::text AS libera
      FROM (SELECT DISTINCT * FROM unnest(${articoli}::int[], ${magazzini}::int[]) AS k(articolo_id, magazzino_id)) k`);

export const insertReservations = (v: {
  chiave: number | null;
  utente: number | null;
  riferimento: string[];
  magazzino: number[];
  cliente: number[];
  scade_il: (string | null)[];
  parziale: boolean[];
}) =>
  query<{ id: number; riferimento: string }>(Prisma.sql`
    INSERT INTO prenotazioni (chiave_api_id, utente_id, riferimento, magazzino_id, cliente_id, scade_il, parziale)
    SELECT ${v.chiave}::int, ${v.utente}::int, u.riferimento, u.magazzino, u.cliente, u.scade_il, u.parziale
      FROM unnest(${v.riferimento}::text[], ${v.magazzino}::int[], ${v.cliente}::int[], ${v.scade_il}::timestamptz[], ${v.parziale}::boolean[])
           AS u(riferimento, magazzino, cliente, scade_il, parziale)
    RETURNING id, riferimento`);

export interface RowWrite {
  prenotazione: number[];
  numero_riga: number[];
  articolo: number[];
  magazzino: number[];
  lotto: (number | null)[];
  richiesta: string[];
  prenotata: string[];
  prezzo: (string | null)[];
}

/**
 * Inserts or replaces rows by (reservation, numero_riga). A replaced row keeps its `scoperta` within its new
 * `prenotata` (the CHECK); the upsert then recomputes it under the balances' lock (ledger/uncover.ts).
 */
export const upsertRows = (v: RowWrite) =>
  query<never>(Prisma.sql`
    INSERT INTO righe_prenotazione (prenotazione_id, numero_riga, articolo_id, magazzino_id, lotto_id, richiesta, prenotata, prezzo)
    SELECT * FROM unnest(${v.prenotazione}::int[], ${v.numero_riga}::int[], ${v.articolo}::int[], ${v.magazzino}::int[],
                         ${v.lotto}::int[], ${v.richiesta}::numeric[], ${v.prenotata}::numeric[], ${v.prezzo}::numeric[])
    ON CONFLICT (prenotazione_id, numero_riga) DO UPDATE
       SET articolo_id = EXCLUDED.articolo_id, magazzino_id = EXCLUDED.magazzino_id, lotto_id = EXCLUDED.lotto_id,
           richiesta = EXCLUDED.richiesta, prenotata = EXCLUDED.prenotata, prezzo = EXCLUDED.prezzo,
           scoperta = least(righe_prenotazione.scoperta, EXCLUDED.prenotata)`);

export const deleteRows = (ids: number[]) => query<never>(Prisma.sql`DELETE FROM righe_prenotazione WHERE id = ANY(${ids}::int[])`);

/** The headers last (the UPDATE takes the new version, and the event follows it at commit). */
export const updateReservations = (v: {
  id: number[];
  magazzino: number[];
  cliente: number[];
  scade_il: (string | null)[];
  parziale: boolean[];
  stato: string[];
}) =>
  query<never>(Prisma.sql`
    UPDATE prenotazioni p
       SET magazzino_id = u.magazzino, cliente_id = u.cliente, scade_il = u.scade_il, parziale = u.parziale, stato = u.stato
      FROM unnest(${v.id}::int[], ${v.magazzino}::int[], ${v.cliente}::int[], ${v.scade_il}::timestamptz[], ${v.parziale}::boolean[],
                  ${v.stato}::text[]) AS u(id, magazzino, cliente, scade_il, parziale, stato)
     WHERE p.id = u.id`);

/** Releases rows: what is picked stays held (docs/api.md section 15). */
export const releaseRows = (ids: number[]) =>
  query<never>(Prisma.sql`UPDATE righe_prenotazione SET prenotata = prelevata, scoperta = 0 WHERE id = ANY(${ids}::int[])`);

export const setState = (id: number, stato: string) =>
  query<never>(Prisma.sql`UPDATE prenotazioni SET stato = ${stato} WHERE id = ${id}::int`);

export interface ReservationJsonRow {
  id: number;
  versione: bigint;
  prenotazione: StoredReservation;
}

/** A reservation as banchina_prenotazione_json builds it (the list's and the event's). */
export interface StoredReservation {
  id: number;
  riferimento: string;
  magazzino: number;
  cliente: number;
  stato: string;
  scade_ms: number | null;
  versione: number;
  righe: {
    numero_riga: number;
    articolo: { id: number; codice: string };
    lotto: string | null;
    richiesta: string;
    prenotata: string;
    prelevata: string;
    spedita: string;
    scoperta: string;
  }[];
}

export const reservationsByIds = (ids: number[]) =>
  query<ReservationJsonRow>(Prisma.sql`
    SELECT t.id, t.versione, banchina_prenotazione_json(t.id) AS prenotazione FROM prenotazioni t WHERE t.id = ANY(${ids}::int[]) ORDER BY t.id`);

export const reservationsPage = (
  w: Window,
  take: number,
  f: { magazzino?: number; cliente?: number; stato?: string; riferimento?: string },
) => {
  const conditions = [
    ...(f.magazzino === undefined ? [] : [Prisma.sql`t.magazzino_id = ${f.magazzino}::int`]),
    ...(f.cliente === undefined ? [] : [Prisma.sql`t.cliente_id = ${f.cliente}::int`]),
    ...(f.stato === undefined ? [] : [Prisma.sql`t.stato = ${f.stato}`]),
    ...(f.riferimento === undefined ? [] : [Prisma.sql`t.riferimento = ${f.riferimento}`]),
  ];
  const { where, tail } = windowed(w, take, conditions);
  return query<ReservationJsonRow>(Prisma.sql`
    SELECT t.id, t.versione, banchina_prenotazione_json(t.id) AS prenotazione FROM prenotazioni t WHERE ${where} ${tail}`);
};
