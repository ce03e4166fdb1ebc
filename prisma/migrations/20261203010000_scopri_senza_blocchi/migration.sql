-- The uncovering after every write of stock, cheap when nothing changes (issue 44: a movement on held articles
-- paid 6x the PostgreSQL CPU of one on articles nothing holds). banchina_scopri locked every held row of the
-- pairs FOR UPDATE (a write of each row: its lock in the tuple, the page dirtied, WAL) and recomputed every row's
-- share with the UPDATE on every write, even when no share changed, which is nearly always; and PL/pgSQL planned
-- its statements anew on every call: with the pairs' arrays as parameters the generic plan (ten pairs guessed) is
-- costed above a custom one (the arrays' real length), so the cached plan was never used, and planning the
-- shares' statement cost more than running it. Now the shares are computed first without any lock and compared
-- with what the rows hold; only when some row's `scoperta` would change are the rows locked and the shares
-- computed again and written, as before. The function's contract is unchanged: the same shares, the same
-- events, the same answer.

-- The uncovered share of every held row of these (article, warehouse) pairs, from the stock as it is now, beside
-- the `scoperta` the row holds (`attuale`). The deficit falls on the rows of the holding reservations
-- (banchina_prenotazione_tiene) from the newest first: by the reservation's `creata_il`, then its id, then the
-- row's `numero_riga`, all descending, each row at most its `prenotata`; so stock that comes back covers the
-- oldest first. Each piece once, in two steps: first every lot held, whose deficit is max(0, held of the lot −
-- banchina_lotto_copribile), shared among the rows of that lot; then the pair, whose deficit is max(0, what the
-- rows still claim (prenotata less their lot share) − banchina_copribile), shared among every row of the pair on
-- what it still claims. A row's share is the sum of the two: the pieces a lot row cannot have from its lot are
-- not asked of the pair a second time. What can cover a hold is asked once per lot and once per pair, never per
-- row. A pair named twice counts once. One SQL statement, inlined into the caller's (so planned with it):
-- read-only, it takes no lock.
CREATE FUNCTION banchina_quote_scoperte(articoli INTEGER[], magazzini INTEGER[], oggi DATE)
RETURNS TABLE (id INTEGER, prenotazione_id INTEGER, scoperta NUMERIC, attuale NUMERIC) LANGUAGE sql STABLE AS $$
    WITH righe AS (
        SELECT r.id, r.prenotazione_id, r.numero_riga, r.articolo_id, r.magazzino_id, r.lotto_id, r.prenotata, r.scoperta, p.creata_il
          FROM (SELECT DISTINCT * FROM unnest(articoli, magazzini)) AS c(articolo_id, magazzino_id)
         CROSS JOIN LATERAL (SELECT * FROM righe_prenotazione r
                              WHERE r.articolo_id = c.articolo_id AND r.magazzino_id = c.magazzino_id AND r.prenotata > 0 OFFSET 0) r
          JOIN prenotazioni p ON p.id = r.prenotazione_id
         WHERE banchina_prenotazione_tiene(p.stato, p.scade_il)
    ), per_lotto AS (
        SELECT lotto_id, greatest(sum(prenotata) - coalesce(banchina_lotto_copribile(lotto_id, oggi), 0), 0) AS scoperto
          FROM righe WHERE lotto_id IS NOT NULL GROUP BY lotto_id
    ), di_lotto AS (
        -- A row's share of its lot's deficit, newest first among the rows of that lot.
        SELECT r.*, coalesce(least(r.prenotata, greatest(pl.scoperto - coalesce(sum(r.prenotata) OVER (
                   PARTITION BY r.lotto_id ORDER BY r.creata_il DESC, r.prenotazione_id DESC, r.numero_riga DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), 0)), 0) AS quota_lotto
          FROM righe r LEFT JOIN per_lotto pl ON pl.lotto_id = r.lotto_id
    ), coppie AS (
        -- What the rows still claim once their lots' deficits are out, against what can cover the pair.
        SELECT articolo_id, magazzino_id,
               greatest(sum(prenotata - quota_lotto) - banchina_copribile(articolo_id, magazzino_id, oggi), 0) AS scoperto
          FROM di_lotto GROUP BY articolo_id, magazzino_id
    )
    SELECT d.id, d.prenotazione_id,
           d.quota_lotto + least(d.prenotata - d.quota_lotto, greatest(c.scoperto - coalesce(sum(d.prenotata - d.quota_lotto) OVER (
               PARTITION BY d.articolo_id, d.magazzino_id ORDER BY d.creata_il DESC, d.prenotazione_id DESC, d.numero_riga DESC
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), 0)),
           d.scoperta
      FROM di_lotto d JOIN coppie c ON c.articolo_id = d.articolo_id AND c.magazzino_id = d.magazzino_id
$$;

-- `scoperta` of every held row of these (article, warehouse) pairs set to its share (banchina_quote_scoperte).
-- Called by the stock writer after its append (stock-writer.ts appendStock, in the same round trip), under the
-- balance rows the append holds, by a reservation upsert and a cancel under the balances they locked, and by any
-- caller that holds the balance rows of every pair it names (uncover.ts). Answers the reservations whose rows
-- changed; each records prenotazione.scoperta, with the reservation as banchina_prenotazione_json reads it.
--
-- In three steps, the first two without any lock:
-- 1. by pair, one aggregate over its holding rows (the holds' index, righe_prenotazione_tenute_idx): nothing
--    held, done; nothing marked uncovered and everything held covered (what the rows hold within
--    banchina_copribile, and what each lot's rows hold within banchina_lotto_copribile, asked only of a pair
--    with lot rows), done: every share is then 0, as every row's `scoperta` is. That is nearly every write;
-- 2. else the shares, row by row (banchina_quote_scoperte), compared with what the rows hold: all equal (a
--    write that leaves the uncovered as uncovered as they were), done;
-- 3. else the held rows of the pairs FOR UPDATE by id, the shares computed again on what that lock leaves and
--    written where they differ; then, for the reservations whose rows changed, their row FOR UPDATE SKIP LOCKED
--    and a new version (prenotazione.modificata at commit, the GET /prenotazioni feed), and the events.
--
-- Why steps 1 and 2 may read without locking (ARCHITECTURE.md, the lock order): the caller holds the balance rows of
-- the pairs (level 5), FOR UPDATE. Whatever makes a held row need more `scoperta` is written only under those rows:
-- stock leaves (the stock writer's append, a count), a hold grows or is created (an upsert locks the balances of
-- every pair its rows name before reading what is free), and `scoperta` is written, other than to 0 by a release,
-- only by this function, by an upsert's rows, by an unload consuming a hold and by a cancel, all under the same
-- rows. Each of them has committed before the caller got the balance rows, or waits for the caller's commit; and
-- each statement here reads with a snapshot of its own, taken after the caller's lock (READ COMMITTED; this function
-- is VOLATILE), so it sees them all. What may be written beside it without those balance rows only lowers what is
-- held: the expiry sweep releasing reservations past `scade_il` (which banchina_prenotazione_tiene already leaves
-- out, by the same clock) and an upsert taking rows out of a pair it names no longer (deleted, or moved to another
-- article). Read before such a write commits, a row can at most stay marked uncovered by more than the write then
-- leaves, which is the outcome of this write committing first, as with the lock; never covered by pieces that are
-- not there. In step 3 the lock waits for a writer of a row (a cancel, an upsert or the sweep) and the shares are
-- read again after it; no writer holds a held row while it waits for the caller's balances: an upsert writes its
-- rows after its balances, a cancel takes the balances before writing any row, the sweep waits on nothing.
--
-- SKIP LOCKED because the reservations come before the balances in the lock order: a reservation locked by
-- another writer now (its upsert, waiting for the balance this transaction holds) would deadlock; that writer
-- gives it its version when it writes it.
--
-- Plans: plan_cache_mode = force_generic_plan caches the statements' plans for the session. A custom plan for the
-- arrays' values is never better here, and PostgreSQL kept choosing one (the generic plan guesses ten pairs), so
-- it planned on every call: planning step 1 costs some twenty times running it. Each pair's rows are read by a
-- LATERAL subquery (an aggregate or OFFSET 0 keeps it from being flattened into a join), so the plan probes
-- the holds' index pair by pair. A plan kept for the session is made with the statistics of its time: one made
-- while nothing was held (each connection before the first reservations) reads the holds by another index until
-- the next ANALYZE of righe_prenotazione invalidates it; autovacuum runs one soon after the first holds (50 rows,
-- then every tenth more), while that index still has few rows to read (docs/performance.md).
CREATE OR REPLACE FUNCTION banchina_scopri(articoli INTEGER[], magazzini INTEGER[], oggi DATE) RETURNS SETOF INTEGER
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    coperte BOOLEAN;
    cambiate INTEGER[];
BEGIN
    -- Step 1: by pair, what its holding rows hold and mark uncovered (no pair holds anything: NULL).
    SELECT bool_and(t.scoperta = 0 AND t.tenuta <= banchina_copribile(c.articolo_id, c.magazzino_id, oggi)
                    AND NOT (t.di_lotto AND EXISTS (
                        SELECT 1 FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
                         WHERE r.articolo_id = c.articolo_id AND r.magazzino_id = c.magazzino_id AND r.prenotata > 0
                           AND r.lotto_id IS NOT NULL AND banchina_prenotazione_tiene(p.stato, p.scade_il)
                         GROUP BY r.lotto_id HAVING sum(r.prenotata) > coalesce(banchina_lotto_copribile(r.lotto_id, oggi), 0))))
      INTO coperte
      FROM unnest(articoli, magazzini) AS c(articolo_id, magazzino_id)
     CROSS JOIN LATERAL (
        SELECT sum(r.prenotata) AS tenuta, sum(r.scoperta) AS scoperta, bool_or(r.lotto_id IS NOT NULL) AS di_lotto
          FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
         WHERE r.articolo_id = c.articolo_id AND r.magazzino_id = c.magazzino_id AND r.prenotata > 0
           AND banchina_prenotazione_tiene(p.stato, p.scade_il)) t
     WHERE t.tenuta IS NOT NULL;
    IF coperte IS NULL OR coperte THEN
        RETURN;
    END IF;
    -- Step 2: something is or was uncovered: the shares, row by row.
    IF NOT EXISTS (SELECT 1 FROM banchina_quote_scoperte(articoli, magazzini, oggi) q WHERE q.scoperta <> q.attuale) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM righe_prenotazione r
      WHERE r.id IN (SELECT h.id FROM unnest(articoli, magazzini) AS c(articolo_id, magazzino_id)
                      CROSS JOIN LATERAL (SELECT r.id FROM righe_prenotazione r
                                           WHERE r.articolo_id = c.articolo_id AND r.magazzino_id = c.magazzino_id AND r.prenotata > 0
                                          OFFSET 0) h)
      ORDER BY r.id FOR UPDATE;
    WITH scritte AS (
        UPDATE righe_prenotazione t SET scoperta = q.scoperta FROM banchina_quote_scoperte(articoli, magazzini, oggi) q
         WHERE t.id = q.id AND t.scoperta <> q.scoperta
        RETURNING t.prenotazione_id
    )
    SELECT array_agg(DISTINCT prenotazione_id ORDER BY prenotazione_id) INTO cambiate FROM scritte;
    IF cambiate IS NULL THEN
        RETURN;
    END IF;
    UPDATE prenotazioni p SET versione = p.versione
     WHERE p.id IN (SELECT s.id FROM prenotazioni s WHERE s.id = ANY(cambiate) ORDER BY s.id FOR UPDATE SKIP LOCKED);
    INSERT INTO eventi (tipo, dati)
    SELECT 'prenotazione.scoperta', banchina_prenotazione_json(c.id) FROM unnest(cambiate) AS c(id) ORDER BY c.id;
    RETURN QUERY SELECT unnest(cambiate);
END $$;
