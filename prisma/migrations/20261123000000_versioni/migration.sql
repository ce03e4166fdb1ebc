-- Versions for the change feed (docs/api.md section 9), the active flag of master data, and what purchase
-- order rows need to be fed by an ERP: the integrator's line number and the quantity closed short.
--
-- VERSIONS. One service-wide sequence, banchina_versioni. Every row of articoli, fornitori, clienti,
-- magazzini and ordini_acquisto carries `versione`, the value the sequence gave at its latest change:
--   - on insert, the column default (nextval);
--   - master data, on update: a BEFORE UPDATE row trigger draws a new value when a column a client can
--     see changed (every column but `versione` itself and, on articoli, `ultimo_prezzo_arrivo`, which
--     every arrival moves and no client is shown); an update that changes nothing keeps the version;
--   - purchase orders: EVERY update of an ordini_acquisto row draws a new value, whatever it changed.
--     An order's version must move when any of its rows moves (an arrival, a cancellation, a closing,
--     a replacement of its rows), but a trigger on righe_ordine that updated ordini_acquisto would take
--     the order's row lock at the moment its first row changes, ahead of lots and balances: against the
--     lock order (order rows, lots, balances, orders; src/server/modules/ledger/ledger.service.ts),
--     which would deadlock two arrivals. Instead EVERY PATH THAT CHANGES ORDER ROWS MUST ALSO UPDATE
--     THEIR ORDER, LAST, IN ITS PLACE IN THE LOCK ORDER. Arrivals and their cancellation already do
--     (recomputeOrders: lock the orders by id, then UPDATE ... SET stato); a closing or a replacement of
--     rows must end the same way (an UPDATE of the order, even `SET stato = stato`, is enough). Rows
--     inserted in the same transaction as their new order need nothing more: they commit with it.
--
-- WHY THE FEED IS COMPLETE. A version is drawn when a statement runs and becomes visible when its
-- transaction commits, so a transaction can hold version 10 uncommitted while version 11 is already
-- committed: a reader that showed 11 and stored it as its cursor would never see 10. This is the id
-- lists' problem (docs/api.md section 4) and it gets the same gate: every INSERT or UPDATE statement on a
-- versioned table first runs a statement-level trigger (banchina_varco_sync, tag 5) that takes a
-- shared, transaction-scoped advisory lock whose key carries the sequence's last value at that moment,
-- before any row of the statement draws a version (BEFORE STATEMENT triggers fire before the rows are
-- produced, so before column defaults and row triggers call nextval). Every version that transaction
-- draws is above that key, and the lock is held until it commits or rolls back. A reader calls
-- banchina_limite_sync(5, 'banchina_versioni') in its own statement BEFORE the page query: it reads
-- the sequence's last value S, then the smallest key G among the held tag-5 locks, and the page shows
-- only versions <= min(S, G). Take a version v <= min(S, G) drawn by transaction T. T took its lock
-- (key < v) before drawing v, and v <= S means v was drawn before the reader read S, so the lock was
-- already held when the reader read the locks; had T still been running, G would be below v. So T had
-- ended before the page query's snapshot: v is committed and visible, or rolled back and never will
-- be. Nothing at or below the bound can appear later; rows above it wait for the next page (`altri`
-- stays true). A row changed again after the reader's cursor passed its old version reappears with its
-- new, higher version, in its current state: a client never misses a change, it may see the final state
-- of a row more than once. Writers never wait for readers; an UPDATE that changes no visible column
-- (an arrival setting ultimo_prezzo_arrivo) still takes the shared gate, which only holds readers'
-- bound below the sequence until it commits.

CREATE SEQUENCE "banchina_versioni" AS BIGINT;

-- Existing rows each take a version (a volatile default is evaluated per row when the column is added).
ALTER TABLE "articoli"
    ADD COLUMN "attivo" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "versione" BIGINT NOT NULL DEFAULT nextval('banchina_versioni');
ALTER TABLE "fornitori"
    ADD COLUMN "attivo" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "versione" BIGINT NOT NULL DEFAULT nextval('banchina_versioni');
ALTER TABLE "clienti"
    ADD COLUMN "attivo" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "versione" BIGINT NOT NULL DEFAULT nextval('banchina_versioni');
ALTER TABLE "magazzini"
    ADD COLUMN "attivo" BOOLEAN NOT NULL DEFAULT true,
    ADD COLUMN "versione" BIGINT NOT NULL DEFAULT nextval('banchina_versioni');
ALTER TABLE "ordini_acquisto"
    ADD COLUMN "versione" BIGINT NOT NULL DEFAULT nextval('banchina_versioni');

CREATE INDEX "articoli_versione_idx" ON "articoli"("versione");
CREATE INDEX "fornitori_versione_idx" ON "fornitori"("versione");
CREATE INDEX "clienti_versione_idx" ON "clienti"("versione");
CREATE INDEX "magazzini_versione_idx" ON "magazzini"("versione");
CREATE INDEX "ordini_acquisto_versione_idx" ON "ordini_acquisto"("versione");

-- Order rows: the integrator's stable line number (unique per order; existing rows take their
-- position; an insert that leaves it out, 0 by default, takes its position too), the quantity closed
-- short with its reason. Nothing is ever received beyond what is ordered and not closed.
ALTER TABLE "righe_ordine"
    ADD COLUMN "numero_riga" INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN "chiusa" DECIMAL(18,3) NOT NULL DEFAULT 0,
    ADD COLUMN "motivo_chiusura" TEXT;
UPDATE "righe_ordine" SET "numero_riga" = "posizione";
ALTER TABLE "righe_ordine"
    ADD CONSTRAINT "righe_ordine_numero_riga_check" CHECK ("numero_riga" > 0),
    ADD CONSTRAINT "righe_ordine_chiusa_check" CHECK ("chiusa" >= 0 AND "arrivata" + "chiusa" <= "ordinata");
CREATE UNIQUE INDEX "righe_ordine_ordine_id_numero_riga_key" ON "righe_ordine"("ordine_id", "numero_riga");

CREATE FUNCTION banchina_numero_riga_da_posizione() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.numero_riga := NEW.posizione;
    RETURN NEW;
END $$;
CREATE TRIGGER "righe_ordine_numero_riga" BEFORE INSERT ON "righe_ordine"
    FOR EACH ROW WHEN (NEW.numero_riga = 0) EXECUTE FUNCTION banchina_numero_riga_da_posizione();

-- Master data: a new version when a column a client can see changed. TG_ARGV names the columns
-- that do not count, besides `versione`; `versione` itself cannot be set by hand.
CREATE FUNCTION banchina_versione_se_cambiata() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (to_jsonb(NEW) - 'versione' - coalesce(TG_ARGV, '{}'::text[]))
       IS DISTINCT FROM (to_jsonb(OLD) - 'versione' - coalesce(TG_ARGV, '{}'::text[])) THEN
        NEW.versione := nextval('banchina_versioni');
    ELSE
        NEW.versione := OLD.versione;
    END IF;
    RETURN NEW;
END $$;

-- Orders: every update takes a new version (see above: the paths that move order rows update the order last).
CREATE FUNCTION banchina_versione_sempre() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.versione := nextval('banchina_versioni');
    RETURN NEW;
END $$;

CREATE TRIGGER "articoli_versione" BEFORE UPDATE ON "articoli"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_se_cambiata('ultimo_prezzo_arrivo');
CREATE TRIGGER "fornitori_versione" BEFORE UPDATE ON "fornitori"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_se_cambiata();
CREATE TRIGGER "clienti_versione" BEFORE UPDATE ON "clienti"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_se_cambiata();
CREATE TRIGGER "magazzini_versione" BEFORE UPDATE ON "magazzini"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_se_cambiata();
CREATE TRIGGER "ordini_acquisto_versione" BEFORE UPDATE ON "ordini_acquisto"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_sempre();

-- The version gate (tag 5), on every statement that can draw a version.
CREATE TRIGGER "articoli_varco_versioni" BEFORE INSERT OR UPDATE ON "articoli"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "fornitori_varco_versioni" BEFORE INSERT OR UPDATE ON "fornitori"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "clienti_varco_versioni" BEFORE INSERT OR UPDATE ON "clienti"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "magazzini_varco_versioni" BEFORE INSERT OR UPDATE ON "magazzini"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "ordini_acquisto_varco_versioni" BEFORE INSERT OR UPDATE ON "ordini_acquisto"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');

-- The id gates of the lists that page by id (docs/api.md sections 4 and 9), as for clienti and articoli.
CREATE TRIGGER "fornitori_varco_sync" BEFORE INSERT ON "fornitori"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(6, 'fornitori_id_seq');
CREATE TRIGGER "magazzini_varco_sync" BEFORE INSERT ON "magazzini"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(7, 'magazzini_id_seq');
CREATE TRIGGER "ordini_acquisto_varco_sync" BEFORE INSERT ON "ordini_acquisto"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(8, 'ordini_acquisto_id_seq');
