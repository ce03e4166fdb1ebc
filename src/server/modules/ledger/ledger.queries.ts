import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import type { EventType, Origine } from "../../../lib/domain-lists";
import type { AuthorColumns } from "../auth/actor";

export type { Origine };
export type Natura = "carico" | "scarico" | "trasferimento";
/** What a movement points at (movements.schemas.ts RIFERIMENTO_TIPI, the contract's `riferimento.tipo`). */
export type RiferimentoTipo = "riga_ordine" | "documento_vendita" | "movimento" | "prenotazione";

/** The columns of the movements appended by one statement, one array per column, in row order. */
export interface LedgerColumns {
  natura: Natura[];
  magazzino: number[];
  articolo: number[];
  quantita: string[];
  prezzo: (string | null)[];
  lotto: (number | null)[];
  /** The location (`ubicazioni.id`): null outside warehouses that manage locations. */
  ubicazione: (number | null)[];
  rif_tipo: (RiferimentoTipo | null)[];
  rif_id: (number | null)[];
  annulla: (number | null)[];
}

/** Balance deltas, one array per column, sorted by (article, warehouse): the lock order of balances. */
export interface BalanceDeltas {
  articolo: number[];
  magazzino: number[];
  delta: string[];
}

/**
 * The balance upsert, the operation (when new), the movements and their event in ONE statement, as
 * data-modifying CTEs. The movements and the event are inserted last: their sync gates (see the
 * migrations) are held only from here to commit.
 */
export const appendLedger = (
  balances: BalanceDeltas,
  op: { nuova: boolean; id: number | null; origine: Origine; causale: string | null; data: string; author: AuthorColumns },
  m: LedgerColumns,
) =>
  query<{ id: number; operazione_id: number }>(Prisma.sql`
    WITH saldi AS (
      INSERT INTO giacenze (articolo_id, magazzino_id, quantita)
      SELECT * FROM unnest(${balances.articolo}::int[], ${balances.magazzino}::int[], ${balances.delta}::numeric[])
      ON CONFLICT (articolo_id, magazzino_id) DO UPDATE
        SET quantita = giacenze.quantita + EXCLUDED.quantita, aggiornata_il = now()
    ), op AS (
      INSERT INTO operazioni (origine, chiave_api_id, utente_id)
      SELECT ${op.origine}, ${op.author.chiave_api_id}::int, ${op.author.utente_id}::int WHERE ${op.nuova}
      RETURNING id
    ), mov AS (
      INSERT INTO movimenti (operazione_id, data, origine, natura, causale, magazzino_id, articolo_id, quantita,
                             prezzo, lotto_id, ubicazione_id, riferimento_tipo, riferimento_id, annulla_id, chiave_api_id, utente_id)
      SELECT COALESCE((SELECT id FROM op), ${op.id}::int), ${op.data}::date, ${op.origine}, natura,
             ${op.causale}, magazzino, articolo, quantita, prezzo, lotto, ubicazione, rif_tipo, rif_id, annulla,
             ${op.author.chiave_api_id}::int, ${op.author.utente_id}::int
        FROM unnest(${m.natura}::text[], ${m.magazzino}::int[], ${m.articolo}::int[], ${m.quantita}::numeric[],
                    ${m.prezzo}::numeric[], ${m.lotto}::int[], ${m.ubicazione}::int[], ${m.rif_tipo}::text[], ${m.rif_id}::int[],
                    ${m.annulla}::int[])
             WITH ORDINALITY AS t(natura, magazzino, articolo, quantita, prezzo, lotto, ubicazione, rif_tipo, rif_id, annulla, ord)
       ORDER BY ord
      RETURNING id, operazione_id
    ), evento AS (
      INSERT INTO eventi (tipo, dati)
      SELECT ${EVENT_OF_ORIGIN[op.origine]}, jsonb_build_object('operazione', operazione_id, 'movimenti', jsonb_agg(id ORDER BY id))
        FROM mov GROUP BY operazione_id
    )
    SELECT id, operazione_id FROM mov`);

/**
 * The event a ledger append records, by the movements' origin (docs/api.md section 10): one per call, in the
 * append's own statement, so it commits if and only if the movements do.
 */
export const EVENT_OF_ORIGIN = {
  api: "movimenti.registrati",
  schermo: "movimenti.registrati",
  arrivo: "arrivo.registrato",
  annullamento: "arrivo.annullato",
  correzione: "giacenze.allineate",
  vendita: "documento_vendita.emesso",
  stoccaggio: "movimenti.registrati",
  reso_fornitore: "reso_fornitore.registrato",
} as const satisfies Record<Origine, EventType>;

export const insertOperation = (origine: Origine, author: AuthorColumns) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO operazioni (origine, chiave_api_id, utente_id)
    VALUES (${origine}, ${author.chiave_api_id}::int, ${author.utente_id}::int) RETURNING id`);

/** One delivery note of one supplier is one operation, however many calls register its rows. */
export const deliveryNoteOperation = (fornitore: number, ddt: string, author: AuthorColumns) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO operazioni (origine, ddt, fornitore_id, chiave_api_id, utente_id)
    VALUES ('arrivo', ${ddt}, ${fornitore}, ${author.chiave_api_id}::int, ${author.utente_id}::int)
    ON CONFLICT (fornitore_id, ddt) DO UPDATE SET ddt = EXCLUDED.ddt
    RETURNING id`);

/** An operation a caller may append to: it exists and was written through the same channel, by the same author. */
export const operationOfOrigin = (id: number, origine: Origine, author: AuthorColumns) =>
  query<{ id: number }>(Prisma.sql`
    SELECT id FROM operazioni
     WHERE id = ${id} AND origine = ${origine}
       AND chiave_api_id IS NOT DISTINCT FROM ${author.chiave_api_id}::int AND utente_id IS NOT DISTINCT FROM ${author.utente_id}::int`);

export const lockLot = (articolo: number, magazzino: number, codice: string) =>
  query<{ id: number }>(Prisma.sql`
    SELECT id FROM lotti WHERE articolo_id = ${articolo} AND magazzino_id = ${magazzino} AND codice = ${codice} FOR UPDATE`);

/** The guarded unload: no row comes back when the lot does not exist or holds less than asked. */
export const unloadLot = (articolo: number, magazzino: number, codice: string, quantita: string) =>
  query<{ id: number; scadenza: Date | null }>(Prisma.sql`
    UPDATE lotti SET residua = residua - ${quantita}::numeric
     WHERE articolo_id = ${articolo} AND magazzino_id = ${magazzino} AND codice = ${codice}
       AND residua >= ${quantita}::numeric
    RETURNING id, scadenza`);

export const lotResidual = (articolo: number, magazzino: number, codice: string) =>
  query<{ residua: Prisma.Decimal }>(Prisma.sql`
    SELECT residua FROM lotti WHERE articolo_id = ${articolo} AND magazzino_id = ${magazzino} AND codice = ${codice}`);

/**
 * Creates the lot, or tops it up; an existing lot keeps its expiry unless it had none. `sameExpiry`: an
 * existing lot with another expiry than the one given is not touched (no row comes back: scadenza_diversa).
 */
export const loadLot = (
  articolo: number,
  magazzino: number,
  codice: string,
  scadenza: string | null,
  quantita: string,
  sameExpiry: boolean,
) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO lotti (articolo_id, magazzino_id, codice, scadenza, residua)
    VALUES (${articolo}, ${magazzino}, ${codice}, ${scadenza}::date, ${quantita}::numeric)
    ON CONFLICT (articolo_id, magazzino_id, codice) DO UPDATE
      SET residua = lotti.residua + EXCLUDED.residua, scadenza = COALESCE(lotti.scadenza, EXCLUDED.scadenza)
      WHERE NOT ${sameExpiry} OR lotti.scadenza IS NULL OR EXCLUDED.scadenza IS NULL OR lotti.scadenza = EXCLUDED.scadenza
    RETURNING id`);

export const lotExpiry = (articolo: number, magazzino: number, codice: string) =>
  query<{ scadenza: Date | null }>(Prisma.sql`
    SELECT scadenza FROM lotti WHERE articolo_id = ${articolo} AND magazzino_id = ${magazzino} AND codice = ${codice}`);

/** Gives back what a lot received (a cancelled arrival), guarded like an unload. */
export const takeBackFromLot = (id: number, quantita: string) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE lotti SET residua = residua - ${quantita}::numeric WHERE id = ${id} AND residua >= ${quantita}::numeric RETURNING id`);

export const lotResidualById = (id: number) => query<{ residua: Prisma.Decimal }>(Prisma.sql`SELECT residua FROM lotti WHERE id = ${id}`);

// ---------------------------------------------------------------- the ledger check (verify)

/** Balances that differ from the sum of their movements. */
export const balanceDifferences = () =>
  query<{ articolo: number; magazzino: number; ledger: string; saldo: string }>(Prisma.sql`
    SELECT COALESCE(l.articolo_id, g.articolo_id) AS articolo, COALESCE(l.magazzino_id, g.magazzino_id) AS magazzino,
           COALESCE(l.somma, 0)::text AS ledger, COALESCE(g.quantita, 0)::text AS saldo
      FROM (SELECT articolo_id, magazzino_id, sum(quantita) AS somma FROM movimenti GROUP BY 1, 2) l
      FULL JOIN giacenze g ON g.articolo_id = l.articolo_id AND g.magazzino_id = l.magazzino_id
     WHERE COALESCE(l.somma, 0) <> COALESCE(g.quantita, 0)`);

/**
 * Monthly net changes (`movimenti_mensili`, kept by the ledger's INSERT trigger, read by as-of availability)
 * that differ from the movements of their month: recomputed from the whole ledger, like the balances.
 */
export const monthlyDifferences = () =>
  query<{ articolo: number; magazzino: number; ubicazione: number; mese: string; ledger: string; mensile: string }>(Prisma.sql`
    SELECT COALESCE(l.articolo_id, t.articolo_id) AS articolo, COALESCE(l.magazzino_id, t.magazzino_id) AS magazzino,
           COALESCE(l.ubicazione_id, t.ubicazione_id) AS ubicazione, to_char(COALESCE(l.mese, t.mese), 'YYYY-MM') AS mese,
           COALESCE(l.somma, 0)::text AS ledger, COALESCE(t.quantita, 0)::text AS mensile
      FROM (SELECT articolo_id, magazzino_id, coalesce(ubicazione_id, 0) AS ubicazione_id, date_trunc('month', data)::date AS mese,
                   sum(quantita) AS somma
              FROM movimenti GROUP BY 1, 2, 3, 4) l
      FULL JOIN movimenti_mensili t
        ON t.articolo_id = l.articolo_id AND t.magazzino_id = l.magazzino_id AND t.ubicazione_id = l.ubicazione_id AND t.mese = l.mese
     WHERE COALESCE(l.somma, 0) <> COALESCE(t.quantita, 0)`);

/** Lots whose residual differs from the sum of their movements. */
export const lotDifferences = () =>
  query<{ lotto: number; codice: string; ledger: string; residua: string }>(Prisma.sql`
    SELECT t.id AS lotto, t.codice, COALESCE(s.somma, 0)::text AS ledger, t.residua::text AS residua
      FROM lotti t LEFT JOIN (SELECT lotto_id, sum(quantita) AS somma FROM movimenti WHERE lotto_id IS NOT NULL GROUP BY 1) s
        ON s.lotto_id = t.id
     WHERE COALESCE(s.somma, 0) <> t.residua`);

/**
 * Order rows whose arrived quantity (or row state) differs from their arrivals and cancellations. The
 * state counts what was closed short: `evasa` when arrived plus closed is the ordered quantity.
 */
export const orderRowDifferences = () =>
  query<{ riga: number; arrivi: string; arrivata: string }>(Prisma.sql`
    SELECT r.id AS riga, COALESCE(s.somma, 0)::text AS arrivi, r.arrivata::text AS arrivata
      FROM righe_ordine r LEFT JOIN (
        SELECT riferimento_id, sum(quantita) AS somma FROM movimenti
         WHERE riferimento_tipo = 'riga_ordine' AND origine IN ('arrivo', 'annullamento', 'reso_fornitore') GROUP BY 1) s
        ON s.riferimento_id = r.id
     WHERE COALESCE(s.somma, 0) <> r.arrivata
        OR r.stato <> CASE WHEN r.arrivata + r.chiusa = r.ordinata THEN 'evasa' WHEN r.arrivata = 0 THEN 'aperta' ELSE 'parziale' END`);

/** Orders whose state differs from what their rows say: `evaso` when nothing remains open (arrived or closed short). */
export const orderStateDifferences = () =>
  query<{ ordine: number; atteso: string; stato: string }>(Prisma.sql`
    SELECT o.id AS ordine, s.atteso, o.stato FROM ordini_acquisto o JOIN (
      SELECT ordine_id, CASE WHEN bool_and(arrivata + chiusa = ordinata) THEN 'evaso' WHEN bool_and(arrivata = 0) THEN 'aperto' ELSE 'parziale' END AS atteso
        FROM righe_ordine GROUP BY 1) s ON s.ordine_id = o.id
     WHERE s.atteso <> o.stato`);

export const ledgerCounts = () =>
  query<{ giacenze: number; lotti: number; righe_ordine: number; ordini: number; movimenti: number }>(Prisma.sql`
    SELECT (SELECT count(*) FROM giacenze)::int AS giacenze, (SELECT count(*) FROM lotti)::int AS lotti,
           (SELECT count(*) FROM righe_ordine)::int AS righe_ordine, (SELECT count(*) FROM ordini_acquisto)::int AS ordini,
           (SELECT count(*) FROM movimenti)::int AS movimenti`);

/**
 * Lock order 5 for a reservation (docs/api.md section 14): the balances of the (article, warehouse) pairs it
 * holds, FOR UPDATE, in (article, warehouse) order, the row every writer of that stock locks when it appends.
 */
export const lockBalancesForHolds = (articoli: number[], magazzini: number[]) =>
  query<{ articolo_id: number; magazzino_id: number }>(Prisma.sql`
    SELECT g.articolo_id, g.magazzino_id FROM giacenze g
     WHERE (g.articolo_id, g.magazzino_id) IN (SELECT * FROM unnest(${articoli}::int[], ${magazzini}::int[]))
     ORDER BY g.articolo_id, g.magazzino_id
       FOR UPDATE OF g`);

export interface HeldRow {
  articolo_id: number;
  magazzino_id: number;
  /** What active, unexpired reservations hold (> 0), and the balance less quarantena, expired lots and that hold: text. */
  tenuta: string;
  libera: string;
}

/**
 * What the reservations hold of each (article, warehouse) pair a write takes out of, and what is free of it
 * (banchina_copribile less the holds, as reservations.queries.ts freeToHold; the balance not yet moved by the write): only the pairs
 * that hold something, so where nothing is held the rest is never computed. Read after the balances' lock
 * (lockBalancesForHolds), in a statement of its own, so it sees every hold committed before the lock.
 */
export const heldOfPairs = (articoli: number[], magazzini: number[], oggi: string) =>
  query<HeldRow>(Prisma.sql`
    SELECT k.articolo_id, k.magazzino_id, h.tenuta::text AS tenuta,
           (banchina_copribile(k.articolo_id, k.magazzino_id, ${oggi}::date) - h.tenuta)::text AS libera
      FROM (SELECT DISTINCT * FROM unnest(${articoli}::int[], ${magazzini}::int[]) AS k(articolo_id, magazzino_id)) k
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(r.prenotata), 0) AS tenuta FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
         WHERE r.articolo_id = k.articolo_id AND r.magazzino_id = k.magazzino_id AND r.prenotata > 0
           AND banchina_prenotazione_tiene(p.stato, p.scade_il)) h
     WHERE h.tenuta > 0`);
