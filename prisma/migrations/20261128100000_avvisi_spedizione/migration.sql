-- Advance shipping notices (docs/api.md section 12): the notices, their pallets (SSCC) and rows, the record of a
-- pallet's receipt, receiving differences with their photos.
--
-- A notice is identified by (supplier, number), like an order; it is versioned master data of a kind (the
-- change feed of GET /avvisi-spedizione, tag 5) with an id gate of its own (tag 12), and records
-- avviso_spedizione.modificato at commit, in the shape the list reads it (banchina_avviso_json).
CREATE TABLE "avvisi_spedizione" (
    "id"            SERIAL PRIMARY KEY,
    "numero"        TEXT NOT NULL,
    "fornitore_id"  INTEGER NOT NULL REFERENCES "fornitori" ("id"),
    "magazzino_id"  INTEGER NOT NULL REFERENCES "magazzini" ("id"),
    "data_prevista" DATE,
    "creato_il"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "versione"      BIGINT NOT NULL DEFAULT nextval('banchina_versioni'),
    CONSTRAINT "avvisi_spedizione_fornitore_numero_key" UNIQUE ("fornitore_id", "numero")
);
CREATE INDEX "avvisi_spedizione_versione_idx" ON "avvisi_spedizione" ("versione");
-- Every update is a change a client can see (rows replaced, a pallet received or cancelled): the
-- writers update the notice last, as orders are.
CREATE TRIGGER "avvisi_spedizione_versione" BEFORE UPDATE ON "avvisi_spedizione"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_sempre();
CREATE TRIGGER "avvisi_spedizione_varco_versioni" BEFORE INSERT OR UPDATE ON "avvisi_spedizione"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "avvisi_spedizione_varco_sync" BEFORE INSERT ON "avvisi_spedizione"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(12, 'avvisi_spedizione_id_seq');

-- A pallet: one SSCC in one notice, ever (a replaced notice's pallets are deleted with their rows, so the
-- SSCC is free again). `ricevimento_id` is the receipt standing now (null: expected): the guarded UPDATE that
-- sets it is what makes a pallet received once under any concurrency.
CREATE TABLE "colli" (
    "id"             SERIAL PRIMARY KEY,
    "avviso_id"      INTEGER NOT NULL REFERENCES "avvisi_spedizione" ("id"),
    "posizione"      INTEGER NOT NULL,
    "sscc"           TEXT NOT NULL CONSTRAINT "colli_sscc_check" CHECK ("sscc" ~ '^[0-9]{18}$'),
    "ricevimento_id" INTEGER,
    CONSTRAINT "colli_sscc_key" UNIQUE ("sscc")
);
CREATE INDEX "colli_avviso_id_idx" ON "colli" ("avviso_id");

CREATE TABLE "righe_collo" (
    "id"             SERIAL PRIMARY KEY,
    "collo_id"       INTEGER NOT NULL REFERENCES "colli" ("id"),
    "posizione"      INTEGER NOT NULL,
    "riga_ordine_id" INTEGER NOT NULL REFERENCES "righe_ordine" ("id"),
    "quantita"       DECIMAL(18, 3) NOT NULL CONSTRAINT "righe_collo_quantita_check" CHECK ("quantita" > 0),
    "lotto"          TEXT,
    "scadenza"       DATE,
    CONSTRAINT "righe_collo_collo_posizione_key" UNIQUE ("collo_id", "posizione")
);
CREATE INDEX "righe_collo_riga_ordine_id_idx" ON "righe_collo" ("riga_ordine_id");

-- A pallet's receipt: the arrivals it wrote (in the operation of its delivery note), where they landed,
-- and, once cancelled, the cancellation. Its differences point at it. Kept after a cancellation (history).
CREATE TABLE "ricevimenti_collo" (
    "id"            SERIAL PRIMARY KEY,
    "collo_id"      INTEGER NOT NULL REFERENCES "colli" ("id"),
    "operazione_id" INTEGER REFERENCES "operazioni" ("id"),
    "ddt"           TEXT NOT NULL,
    "ubicazione_id" INTEGER REFERENCES "ubicazioni" ("id"),
    "movimenti"     INTEGER[] NOT NULL,
    "chiave_api_id" INTEGER,
    "utente_id"     INTEGER,
    "ricevuto_il"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "annullato_il"  TIMESTAMPTZ(3)
);
CREATE INDEX "ricevimenti_collo_collo_id_idx" ON "ricevimenti_collo" ("collo_id");
ALTER TABLE "colli" ADD CONSTRAINT "colli_ricevimento_id_fkey" FOREIGN KEY ("ricevimento_id") REFERENCES "ricevimenti_collo" ("id");

-- Receiving differences: from a pallet (collo, ricevimento) or from a row of POST /arrivi. Listed by id
-- (GET /differenze-ricevimento) behind their id gate (tag 13). `annullata`: its pallet's receipt was
-- cancelled (the difference no longer counts, the row stays for history).
CREATE TABLE "differenze_ricevimento" (
    "id"             SERIAL PRIMARY KEY,
    "data"           DATE NOT NULL,
    "fornitore_id"   INTEGER NOT NULL REFERENCES "fornitori" ("id"),
    "avviso_id"      INTEGER REFERENCES "avvisi_spedizione" ("id"),
    "collo_id"       INTEGER REFERENCES "colli" ("id"),
    "ricevimento_id" INTEGER REFERENCES "ricevimenti_collo" ("id"),
    "sscc"           TEXT,
    "riga_ordine_id" INTEGER NOT NULL REFERENCES "righe_ordine" ("id"),
    "articolo_id"    INTEGER NOT NULL REFERENCES "articoli" ("id"),
    "attesa"         DECIMAL(18, 3),
    "ricevuta"       DECIMAL(18, 3) NOT NULL,
    "quantita"       DECIMAL(18, 3) NOT NULL CONSTRAINT "differenze_ricevimento_quantita_check" CHECK ("quantita" > 0),
    "motivo"         TEXT NOT NULL CONSTRAINT "differenze_ricevimento_motivo_check"
                         CHECK ("motivo" IN ('mancante', 'danneggiato', 'eccedente', 'errato')),
    "nota"           TEXT,
    "chiave_api_id"  INTEGER,
    "utente_id"      INTEGER,
    "annullata"      BOOLEAN NOT NULL DEFAULT false,
    "creata_il"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "differenze_ricevimento_fornitore_id_data_idx" ON "differenze_ricevimento" ("fornitore_id", "data");
CREATE INDEX "differenze_ricevimento_ricevimento_id_idx" ON "differenze_ricevimento" ("ricevimento_id");
CREATE TRIGGER "differenze_ricevimento_varco_sync" BEFORE INSERT ON "differenze_ricevimento"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(13, 'differenze_ricevimento_id_seq');

-- Photos of a difference, kept in PostgreSQL (at most 5 of 5 MB each: the service checks).
CREATE TABLE "foto_differenze" (
    "differenza_id" INTEGER NOT NULL REFERENCES "differenze_ricevimento" ("id"),
    "n"             INTEGER NOT NULL,
    "tipo"          TEXT NOT NULL CONSTRAINT "foto_differenze_tipo_check" CHECK ("tipo" IN ('image/jpeg', 'image/png')),
    "dati"          BYTEA NOT NULL,
    "creata_il"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    PRIMARY KEY ("differenza_id", "n")
);

-- A notice as GET /avvisi-spedizione reads it and its event carries it: pallets in the order sent, each
-- with its state (ricevuto while a receipt stands) and rows; the notice's state from its pallets'.
CREATE FUNCTION banchina_avviso_json(avviso INTEGER) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', a.id, 'numero', a.numero,
               'fornitore', jsonb_build_object('id', f.id, 'codice', f.codice, 'nome', f.nome),
               'magazzino', a.magazzino_id, 'data_prevista', to_char(a.data_prevista, 'YYYY-MM-DD'),
               'stato', CASE WHEN c.ricevuti = 0 THEN 'atteso' WHEN c.ricevuti = c.n THEN 'ricevuto' ELSE 'in_ricevimento' END,
               'versione', a.versione, 'colli', c.colli)
      FROM avvisi_spedizione a
      JOIN fornitori f ON f.id = a.fornitore_id
     CROSS JOIN LATERAL (
           SELECT count(*)::int AS n, count(k.ricevimento_id)::int AS ricevuti,
                  coalesce(jsonb_agg(jsonb_build_object('sscc', k.sscc,
                      'stato', CASE WHEN k.ricevimento_id IS NULL THEN 'atteso' ELSE 'ricevuto' END,
                      'righe', (SELECT coalesce(jsonb_agg(jsonb_build_object('indice', r.posizione, 'riga', r.riga_ordine_id,
                                    'ordine', jsonb_build_object('id', o.id, 'numero', o.numero), 'numero_riga', ro.numero_riga,
                                    'articolo', jsonb_build_object('id', ar.id, 'codice', ar.codice),
                                    'quantita', trim_scale(r.quantita)::text, 'lotto', r.lotto,
                                    'scadenza', to_char(r.scadenza, 'YYYY-MM-DD')) ORDER BY r.posizione), '[]'::jsonb)
                                  FROM righe_collo r JOIN righe_ordine ro ON ro.id = r.riga_ordine_id
                                  JOIN ordini_acquisto o ON o.id = ro.ordine_id JOIN articoli ar ON ar.id = ro.articolo_id
                                 WHERE r.collo_id = k.id)) ORDER BY k.posizione), '[]'::jsonb) AS colli
             FROM colli k WHERE k.avviso_id = a.id) c
     WHERE a.id = avviso
$$;

-- The event function as 20261128000000_ubicazioni left it, plus the notices' branch.
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
    ELSIF TG_TABLE_NAME = 'avvisi_spedizione' THEN
        SELECT banchina_avviso_json(t.id) INTO d FROM avvisi_spedizione t WHERE t.id = NEW.id AND t.versione = NEW.versione;
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

CREATE CONSTRAINT TRIGGER "avvisi_spedizione_evento_nuovo" AFTER INSERT ON "avvisi_spedizione" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('avviso_spedizione.modificato');
CREATE CONSTRAINT TRIGGER "avvisi_spedizione_evento_modifica" AFTER UPDATE ON "avvisi_spedizione" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('avviso_spedizione.modificato');

-- ricevimento.differenza: one event per difference, in the statement that records it.
CREATE FUNCTION banchina_evento_differenza() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO eventi (tipo, dati) VALUES ('ricevimento.differenza', jsonb_build_object('id', NEW.id));
    RETURN NULL;
END $$;
CREATE TRIGGER "differenze_ricevimento_evento" AFTER INSERT ON "differenze_ricevimento"
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_differenza();
