-- Locations (docs/api.md section 11): locations, stock by location, an article's preferred locations and pack size.
-- The tables every part of the feature builds on; the writers and readers come with their own migrations.
--
-- A location belongs to one warehouse; (id, magazzino_id) is a key of its own so that whatever names a
-- location with its warehouse (a warehouse's receiving location, a preferred location, a location balance)
-- can only name one of that warehouse (a composite foreign key).
CREATE TABLE "ubicazioni" (
    "id"           SERIAL PRIMARY KEY,
    "magazzino_id" INTEGER NOT NULL REFERENCES "magazzini" ("id"),
    "codice"       TEXT NOT NULL,
    "descrizione"  TEXT,
    "tipo"         TEXT NOT NULL CONSTRAINT "ubicazioni_tipo_check" CHECK ("tipo" IN ('ricevimento', 'stoccaggio', 'quarantena')),
    "attiva"       BOOLEAN NOT NULL DEFAULT true,
    "creata_il"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "versione"     BIGINT NOT NULL DEFAULT nextval('banchina_versioni'),
    CONSTRAINT "ubicazioni_magazzino_codice_key" UNIQUE ("magazzino_id", "codice"),
    CONSTRAINT "ubicazioni_id_magazzino_key" UNIQUE ("id", "magazzino_id")
);
CREATE INDEX "ubicazioni_versione_idx" ON "ubicazioni" ("versione");

-- Master data like the others (20261123000000_versioni, 20261125000000_eventi): a version when a visible
-- column changed, the versions' gate (tag 5), the ids' gate (tag 10), ubicazione.modificato at commit.
CREATE TRIGGER "ubicazioni_versione" BEFORE UPDATE ON "ubicazioni"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_se_cambiata();
CREATE TRIGGER "ubicazioni_varco_versioni" BEFORE INSERT OR UPDATE ON "ubicazioni"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "ubicazioni_varco_sync" BEFORE INSERT ON "ubicazioni"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(10, 'ubicazioni_id_seq');

ALTER TABLE "magazzini"
    ADD COLUMN "gestione_ubicazioni" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "ubicazione_ricevimento_id" INTEGER,
    ADD CONSTRAINT "magazzini_ubicazione_ricevimento_fkey" FOREIGN KEY ("ubicazione_ricevimento_id", "id")
        REFERENCES "ubicazioni" ("id", "magazzino_id"),
    -- A warehouse that manages locations always knows where arrivals land.
    ADD CONSTRAINT "magazzini_ricevimento_check" CHECK (NOT "gestione_ubicazioni" OR "ubicazione_ricevimento_id" IS NOT NULL);

-- What one scan counts at receipt (docs/api.md section 11, References).
ALTER TABLE "articoli" ADD COLUMN "confezione" DECIMAL(18, 3) NOT NULL DEFAULT 1
    CONSTRAINT "articoli_confezione_check" CHECK ("confezione" > 0);

-- The putaway proposal: at most one preferred location per (article, warehouse). Sent with the article,
-- replaced whole; the article's upsert bumps its version when the list changes.
CREATE TABLE "ubicazioni_preferite" (
    "articolo_id"   INTEGER NOT NULL REFERENCES "articoli" ("id"),
    "magazzino_id"  INTEGER NOT NULL,
    "ubicazione_id" INTEGER NOT NULL,
    PRIMARY KEY ("articolo_id", "magazzino_id"),
    FOREIGN KEY ("ubicazione_id", "magazzino_id") REFERENCES "ubicazioni" ("id", "magazzino_id")
);

-- Stock by location: one row per (article, location, lot), moved in the same transaction as the movements
-- (ledger.service.ts), never below zero. The id is stable for its (article, location, lot), so
-- GET /giacenze-ubicazioni pages by it; its inserts take the ids' gate (tag 11) as every synced list does.
-- `caricata_il`: when goods last came into an empty row (GET /da-stoccare, oldest arrival first).
CREATE TABLE "giacenze_ubicazioni" (
    "id"            SERIAL PRIMARY KEY,
    "articolo_id"   INTEGER NOT NULL REFERENCES "articoli" ("id"),
    "magazzino_id"  INTEGER NOT NULL,
    "ubicazione_id" INTEGER NOT NULL,
    "lotto_id"      INTEGER REFERENCES "lotti" ("id"),
    "quantita"      DECIMAL(18, 3) NOT NULL DEFAULT 0 CONSTRAINT "giacenze_ubicazioni_quantita_check" CHECK ("quantita" >= 0),
    "caricata_il"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "aggiornata_il" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    FOREIGN KEY ("ubicazione_id", "magazzino_id") REFERENCES "ubicazioni" ("id", "magazzino_id"),
    CONSTRAINT "giacenze_ubicazioni_chiave" UNIQUE NULLS NOT DISTINCT ("articolo_id", "ubicazione_id", "lotto_id")
);
CREATE INDEX "giacenze_ubicazioni_magazzino_idx" ON "giacenze_ubicazioni" ("magazzino_id", "id");
CREATE INDEX "giacenze_ubicazioni_ubicazione_idx" ON "giacenze_ubicazioni" ("ubicazione_id");
CREATE TRIGGER "giacenze_ubicazioni_varco_sync" BEFORE INSERT ON "giacenze_ubicazioni"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(11, 'giacenze_ubicazioni_id_seq');

-- Every movement in a warehouse that manages locations names its location; elsewhere null.
ALTER TABLE "movimenti" ADD COLUMN "ubicazione_id" INTEGER REFERENCES "ubicazioni" ("id");

-- New origins (putaway; returns to the supplier of section 12) and event types (sections 11 and 12).
ALTER TABLE "operazioni" DROP CONSTRAINT "operazioni_origine_check";
ALTER TABLE "operazioni" ADD CONSTRAINT "operazioni_origine_check" CHECK ("origine" IN ('api', 'schermo', 'vendita', 'arrivo',
    'annullamento', 'correzione', 'stoccaggio', 'reso_fornitore'));
ALTER TABLE "movimenti" DROP CONSTRAINT "movimenti_origine_check";
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_origine_check" CHECK ("origine" IN ('api', 'schermo', 'vendita', 'arrivo',
    'annullamento', 'correzione', 'stoccaggio', 'reso_fornitore'));
ALTER TABLE "eventi" DROP CONSTRAINT "eventi_tipo_check";
ALTER TABLE "eventi" ADD CONSTRAINT "eventi_tipo_check" CHECK ("tipo" IN ('movimenti.registrati', 'arrivo.registrato',
    'arrivo.annullato', 'giacenze.allineate', 'documento_vendita.emesso', 'ordine_acquisto.modificato', 'articolo.modificato',
    'cliente.modificato', 'fornitore.modificato', 'magazzino.modificato', 'ubicazione.modificato',
    'avviso_spedizione.modificato', 'ricevimento.differenza', 'reso_fornitore.registrato'));

-- The master-data events gain the new fields: a warehouse's locations settings (its receiving location by
-- code), an article's pack size and preferred locations ({magazzino: id, ubicazione: code}), and the
-- locations themselves in the shape GET /ubicazioni reads them.
CREATE OR REPLACE FUNCTION banchina_evento_versione() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d jsonb;
BEGIN
    -- At commit: the row as it commits, and only if this was its latest change (same version).
    IF TG_TABLE_NAME = 'articoli' THEN
        SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'descrizione', t.descrizione, 'ean', t.ean,
                   'gestione_lotti', t.gestione_lotti, 'costo', trim_scale(t.costo_standard)::text, 'unita', t.unita,
                   'modello', m.codice, 'attivo', t.attivo, 'versione', t.versione,
                   'confezione', trim_scale(t.confezione)::text,
                   'ubicazioni_preferite', (SELECT coalesce(jsonb_agg(jsonb_build_object('magazzino', p.magazzino_id,
                                                'ubicazione', u.codice) ORDER BY p.magazzino_id), '[]'::jsonb)
                                              FROM ubicazioni_preferite p JOIN ubicazioni u ON u.id = p.ubicazione_id
                                             WHERE p.articolo_id = t.id))
          INTO d FROM articoli t LEFT JOIN articoli m ON m.id = t.modello_id
         WHERE t.id = NEW.id AND t.versione = NEW.versione;
    ELSIF TG_TABLE_NAME = 'fornitori' THEN
        SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'nome', t.nome, 'attivo', t.attivo, 'versione', t.versione)
          INTO d FROM fornitori t WHERE t.id = NEW.id AND t.versione = NEW.versione;
    ELSIF TG_TABLE_NAME = 'magazzini' THEN
        SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'nome', t.nome, 'attivo', t.attivo, 'versione', t.versione,
                   'gestione_ubicazioni', t.gestione_ubicazioni, 'ubicazione_ricevimento', u.codice)
          INTO d FROM magazzini t LEFT JOIN ubicazioni u ON u.id = t.ubicazione_ricevimento_id
         WHERE t.id = NEW.id AND t.versione = NEW.versione;
    ELSIF TG_TABLE_NAME = 'ubicazioni' THEN
        SELECT jsonb_build_object('id', t.id, 'magazzino', t.magazzino_id, 'codice', t.codice, 'descrizione', t.descrizione,
                   'tipo', t.tipo, 'attiva', t.attiva, 'versione', t.versione)
          INTO d FROM ubicazioni t WHERE t.id = NEW.id AND t.versione = NEW.versione;
    ELSIF TG_TABLE_NAME = 'clienti' THEN
        SELECT to_jsonb(t) - 'data' - 'creato_il' || jsonb_build_object('creato_ms', floor(extract(epoch FROM t.creato_il) * 1000))
          INTO d FROM clienti t WHERE t.id = NEW.id AND t.versione = NEW.versione;
    ELSIF TG_TABLE_NAME = 'ordini_acquisto' THEN
        SELECT jsonb_build_object('id', t.id, 'numero', t.numero, 'fornitore_id', fo.id, 'fornitore_codice', fo.codice,
                   'fornitore_nome', fo.nome, 'data', to_char(t.data, 'YYYY-MM-DD'), 'magazzino', t.magazzino_id,
                   'stato', t.stato, 'versione', t.versione,
                   'righe', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                                 'numero_riga', r.numero_riga, 'riga', r.id, 'articolo_id', a.id, 'articolo_codice', a.codice,
                                 'ordinata', r.ordinata::text, 'arrivata', r.arrivata::text, 'chiusa', r.chiusa::text,
                                 'motivo_chiusura', r.motivo_chiusura, 'prezzo', r.prezzo::text) ORDER BY r.posizione), '[]'::jsonb)
                               FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id WHERE r.ordine_id = t.id))
          INTO d FROM ordini_acquisto t JOIN fornitori fo ON fo.id = t.fornitore_id
         WHERE t.id = NEW.id AND t.versione = NEW.versione;
    END IF;
    IF d IS NOT NULL THEN
        INSERT INTO eventi (tipo, dati) VALUES (TG_ARGV[0], d);
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "ubicazioni_evento_nuovo" AFTER INSERT ON "ubicazioni" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('ubicazione.modificato');
CREATE CONSTRAINT TRIGGER "ubicazioni_evento_modifica" AFTER UPDATE ON "ubicazioni" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('ubicazione.modificato');
