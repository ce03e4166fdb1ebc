-- Reservations uncovered by facts (docs/api.md section 14, "The promise"): `scoperta` computed from the stock, and
-- the event prenotazione.scoperta.
--
-- What can cover a hold, declared once: the reservations' check (reservations.queries.ts freeToHold), the stock
-- writer's check (ledger.queries.ts heldOfPairs), the uncovering below and verify all read it from here.

-- Of an (article, warehouse): the balance, less what lies in `quarantena` locations or in lots whose `scadenza` is
-- before `oggi` (the service's business date), each piece once (the expired lots' stock in quarantena is not taken
-- twice). Not clamped: a balance below zero (an article not in lots) covers nothing, and less than nothing.
CREATE FUNCTION banchina_copribile(c_articolo INTEGER, c_magazzino INTEGER, oggi DATE) RETURNS numeric LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT g.quantita FROM giacenze g WHERE g.articolo_id = c_articolo AND g.magazzino_id = c_magazzino), 0)
         - coalesce((SELECT sum(g.quantita) FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
                      LEFT JOIN lotti l ON l.id = g.lotto_id
                     WHERE g.articolo_id = c_articolo AND g.magazzino_id = c_magazzino AND u.tipo = 'quarantena'
                       AND NOT coalesce(l.scadenza < oggi, false)), 0)
         - coalesce((SELECT sum(l.residua) FROM lotti l
                     WHERE l.articolo_id = c_articolo AND l.magazzino_id = c_magazzino AND l.scadenza < oggi), 0)
$$;

-- Of a lot: its residual outside `quarantena` locations, nothing once it is past its expiry.
CREATE FUNCTION banchina_lotto_copribile(c_lotto INTEGER, oggi DATE) RETURNS numeric LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN l.scadenza < oggi THEN 0
                ELSE l.residua - coalesce((SELECT sum(g.quantita) FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
                                            WHERE g.lotto_id = l.id AND u.tipo = 'quarantena'), 0) END
      FROM lotti l WHERE l.id = c_lotto
$$;

-- The uncovered part of every held row of these (article, warehouse) pairs, recomputed from the stock as it is now.
-- Called by the stock writer after its append (stock-writer.ts appendStock, in the same round trip), under the
-- balance rows the append holds, and by a reservation upsert under the balances it locked (uncover.ts).
--
-- The deficit falls on the rows of the holding reservations (banchina_prenotazione_tiene) from the newest first: by
-- the reservation's `creata_il`, then its id, then the row's `numero_riga`, all descending, each row at most its
-- `prenotata`; so stock that comes back covers the oldest first. Each piece once, in two steps: first every lot
-- held, whose deficit is max(0, held of the lot − banchina_lotto_copribile), shared among the rows of that lot;
-- then the pair, whose deficit is max(0, what the rows still claim (prenotata less their lot share) −
-- banchina_copribile), shared among every row of the pair on what it still claims. A row's `scoperta` is the sum of
-- its two shares: the pieces a lot row cannot have from its lot are not asked of the pair a second time.
--
-- Locks: the held rows of the pairs, FOR UPDATE by id (a cancel releasing one of them commits first and is read; no
-- writer waits on the caller's balances while it holds such a row: an upsert writes its rows after its balances, a
-- cancel waits on nothing); then, for the reservations whose rows changed, their row FOR UPDATE SKIP LOCKED and a
-- new version (prenotazione.modificata at commit, the GET /prenotazioni feed). SKIP LOCKED because the
-- reservations come before the balances in the lock order: a reservation locked by another writer now (its upsert,
-- waiting for the balance this transaction holds) would deadlock; that writer gives it its version when it writes
-- it. Every changed reservation records prenotazione.scoperta, with the reservation as banchina_prenotazione_json
-- reads it. Answers the changed reservations' ids. Nothing held in the pairs: one probe of the holds' index.
CREATE FUNCTION banchina_scopri(articoli INTEGER[], magazzini INTEGER[], oggi DATE) RETURNS SETOF INTEGER LANGUAGE plpgsql AS $$
DECLARE
    cambiate INTEGER[];
BEGIN
    IF NOT EXISTS (SELECT 1 FROM righe_prenotazione r
                    WHERE (r.articolo_id, r.magazzino_id) IN (SELECT * FROM unnest(articoli, magazzini)) AND r.prenotata > 0) THEN
        RETURN;
    END IF;
    PERFORM 1 FROM righe_prenotazione r
      WHERE (r.articolo_id, r.magazzino_id) IN (SELECT * FROM unnest(articoli, magazzini)) AND r.prenotata > 0
      ORDER BY r.id FOR UPDATE;
    WITH righe AS (
        SELECT r.id, r.prenotazione_id, r.numero_riga, r.articolo_id, r.magazzino_id, r.lotto_id, r.prenotata, p.creata_il
          FROM righe_prenotazione r JOIN prenotazioni p ON p.id = r.prenotazione_id
         WHERE (r.articolo_id, r.magazzino_id) IN (SELECT * FROM unnest(articoli, magazzini)) AND r.prenotata > 0
           AND banchina_prenotazione_tiene(p.stato, p.scade_il)
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
    ), quote AS (
        SELECT d.id,
               d.quota_lotto + least(d.prenotata - d.quota_lotto, greatest(c.scoperto - coalesce(sum(d.prenotata - d.quota_lotto) OVER (
                   PARTITION BY d.articolo_id, d.magazzino_id ORDER BY d.creata_il DESC, d.prenotazione_id DESC, d.numero_riga DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0), 0)) AS scoperta
          FROM di_lotto d JOIN coppie c ON c.articolo_id = d.articolo_id AND c.magazzino_id = d.magazzino_id
    ), scritte AS (
        UPDATE righe_prenotazione t SET scoperta = q.scoperta FROM quote q
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

ALTER TABLE "eventi" DROP CONSTRAINT "eventi_tipo_check";
ALTER TABLE "eventi" ADD CONSTRAINT "eventi_tipo_check" CHECK ("tipo" IN ('movimenti.registrati', 'arrivo.registrato',
    'arrivo.annullato', 'giacenze.allineate', 'documento_vendita.emesso', 'ordine_acquisto.modificato', 'articolo.modificato',
    'cliente.modificato', 'fornitore.modificato', 'magazzino.modificato', 'ubicazione.modificato',
    'avviso_spedizione.modificato', 'ricevimento.differenza', 'reso_fornitore.registrato', 'prenotazione.modificata',
    'prenotazione.scoperta'));
