-- Monthly net changes of the ledger (so reads stay flat as it grows): what an as-of read starts from, so
-- that the stock at the
-- end of a past day costs the months before it (one row per article, warehouse, location and month) plus that
-- day's own month of movements, not the whole history before it.
--
-- Kept by a statement trigger on `movimenti` INSERT, so every write path (all of them go through the ledger
-- append, ledger.queries.ts appendLedger, and a raw INSERT too) keeps it, in the same statement and the same
-- transaction as the movements, with no round trip more. AFTER triggers fire at the end of the statement,
-- after the append's balance upsert (`giacenze`, lock order 5) has locked the (article, warehouse) balances of
-- every movement it appends: a monthly row of (article, warehouse, …) is therefore only touched by a
-- transaction holding that balance's row lock, so it can never be part of a lock cycle (ledger.service.ts).
-- `ubicazione_id` 0 stands for "no location" (a key column cannot be null); no foreign keys: the table is
-- derived, recomputed and compared by `verify` (ledger.queries.ts monthlyDifferences).
CREATE TABLE "movimenti_mensili" (
    "articolo_id" INTEGER NOT NULL,
    "magazzino_id" INTEGER NOT NULL,
    "ubicazione_id" INTEGER NOT NULL DEFAULT 0,
    "mese" DATE NOT NULL,
    "quantita" DECIMAL(18,3) NOT NULL DEFAULT 0,
    CONSTRAINT "movimenti_mensili_pkey" PRIMARY KEY ("articolo_id", "magazzino_id", "ubicazione_id", "mese")
);

-- The as-of read's movements of one month for a page of articles: by article, then business date. Without
-- it the read would walk each article's whole history (movimenti_articolo_id_id_idx) to keep one month.
CREATE INDEX "movimenti_articolo_id_data_idx" ON "movimenti"("articolo_id", "data");

-- One upsert per statement, aggregated by key (ON CONFLICT may not touch a row twice in one statement), in
-- key order. The business date is the movement's `data` (a backdated movement changes its own month).
CREATE FUNCTION banchina_movimenti_mensili() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO movimenti_mensili AS t (articolo_id, magazzino_id, ubicazione_id, mese, quantita)
  SELECT articolo_id, magazzino_id, coalesce(ubicazione_id, 0), date_trunc('month', data)::date, sum(quantita)
    FROM nuovi
   GROUP BY 1, 2, 3, 4
   ORDER BY 1, 2, 3, 4
  ON CONFLICT (articolo_id, magazzino_id, ubicazione_id, mese) DO UPDATE SET quantita = t.quantita + EXCLUDED.quantita;
  RETURN NULL;
END $$;

CREATE TRIGGER "movimenti_mensili" AFTER INSERT ON "movimenti"
  REFERENCING NEW TABLE AS nuovi FOR EACH STATEMENT EXECUTE FUNCTION banchina_movimenti_mensili();

-- Back-fill of an existing ledger: one set-based statement.
INSERT INTO "movimenti_mensili" (articolo_id, magazzino_id, ubicazione_id, mese, quantita)
SELECT articolo_id, magazzino_id, coalesce(ubicazione_id, 0), date_trunc('month', data)::date, sum(quantita)
  FROM movimenti
 GROUP BY 1, 2, 3, 4;
