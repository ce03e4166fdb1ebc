-- Events and webhooks (docs/api.md section 10).
--
-- AN EVENT EXISTS IF AND ONLY IF ITS CHANGE COMMITTED. Events are written inside the writing
-- transaction, by the one statement or trigger every such change goes through, so no write path (REST,
-- screens, the CLI, a path written tomorrow) can commit a change without its event, and a rolled-back
-- change leaves none:
--   - movimenti: the ledger's one INSERT of movements (ledger.queries.ts appendLedger, the only writer of
--     movimenti) records, in the same statement, one event per operation it appended to, typed by the
--     movements' origin (api/schermo: movimenti.registrati; arrivo: arrivo.registrato; annullamento:
--     arrivo.annullato; correzione: giacenze.allineate; vendita: documento_vendita.emesso), with the
--     movements' ids: movements never change, so they are read when the event is (a trigger with a
--     transition table doubled the database's cost of a one-row write).
--   - articoli, fornitori, clienti, ordini_acquisto: a deferred row trigger, run at commit, records
--     <entity>.modificato with the row as it commits, when its `versione` moved (20261123000000_versioni:
--     a visible change of master data; every update of an order, which every path that changes order
--     rows makes last). Run at commit, it sees an order with its final rows, and only the row's latest
--     change in the transaction records an event (earlier ones find a newer version and stop).
--     Warehouses have no event type in the contract and record none.
-- The payload (`dati`) of a *.modificato event keeps the row in the shape its list reads it
-- (feeds.queries.ts ArticleRow/NamedRow/PurchaseOrderRow, clients.queries.ts ClientRow), as it was at
-- commit; src/server/modules/events renders every event with the lists' own mappers, so an event shows
-- a movement or an order exactly as GET /movimenti or GET /ordini-acquisto would.
--
-- COMPLETENESS (docs/api.md section 4, GET /eventi, and the delivery workers): `eventi` gets the id gate of
-- the other lists (tag 9), so a reader shows only ids up to banchina_limite_sync(9, 'eventi_id_seq').
CREATE TABLE "eventi" (
    "id" SERIAL NOT NULL,
    "uid" TEXT NOT NULL DEFAULT ('evt_' || replace(gen_random_uuid()::text, '-', '')),
    "tipo" TEXT NOT NULL,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dati" JSONB NOT NULL,
    CONSTRAINT "eventi_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "eventi_tipo_check" CHECK ("tipo" IN ('movimenti.registrati', 'arrivo.registrato', 'arrivo.annullato',
        'giacenze.allineate', 'documento_vendita.emesso', 'ordine_acquisto.modificato', 'articolo.modificato',
        'cliente.modificato', 'fornitore.modificato'))
);
CREATE INDEX "eventi_tipo_id_idx" ON "eventi"("tipo", "id");

CREATE TRIGGER "eventi_varco_sync" BEFORE INSERT ON "eventi"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(9, 'eventi_id_seq');
CREATE TRIGGER "eventi_solo_aggiunta" BEFORE UPDATE OR DELETE ON "eventi"
    FOR EACH ROW EXECUTE FUNCTION banchina_registro_immutabile();
CREATE TRIGGER "eventi_no_truncate" BEFORE TRUNCATE ON "eventi"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_registro_immutabile();

CREATE FUNCTION banchina_evento_versione() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d jsonb;
BEGIN
    -- At commit: the row as it commits, and only if this was its latest change (same version).
    IF TG_TABLE_NAME = 'articoli' THEN
        SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'descrizione', t.descrizione, 'ean', t.ean,
                   'gestione_lotti', t.gestione_lotti, 'costo', trim_scale(t.costo_standard)::text, 'unita', t.unita,
                   'modello', m.codice, 'attivo', t.attivo, 'versione', t.versione)
          INTO d FROM articoli t LEFT JOIN articoli m ON m.id = t.modello_id
         WHERE t.id = NEW.id AND t.versione = NEW.versione;
    ELSIF TG_TABLE_NAME = 'fornitori' THEN
        SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'nome', t.nome, 'attivo', t.attivo, 'versione', t.versione)
          INTO d FROM fornitori t WHERE t.id = NEW.id AND t.versione = NEW.versione;
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
                                 'prezzo', r.prezzo::text) ORDER BY r.posizione), '[]'::jsonb)
                               FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id WHERE r.ordine_id = t.id))
          INTO d FROM ordini_acquisto t JOIN fornitori fo ON fo.id = t.fornitore_id
         WHERE t.id = NEW.id AND t.versione = NEW.versione;
    END IF;
    IF d IS NOT NULL THEN
        INSERT INTO eventi (tipo, dati) VALUES (TG_ARGV[0], d);
    END IF;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "articoli_evento_nuovo" AFTER INSERT ON "articoli" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('articolo.modificato');
CREATE CONSTRAINT TRIGGER "articoli_evento_modifica" AFTER UPDATE ON "articoli" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('articolo.modificato');
CREATE CONSTRAINT TRIGGER "fornitori_evento_nuovo" AFTER INSERT ON "fornitori" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('fornitore.modificato');
CREATE CONSTRAINT TRIGGER "fornitori_evento_modifica" AFTER UPDATE ON "fornitori" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('fornitore.modificato');
CREATE CONSTRAINT TRIGGER "clienti_evento_nuovo" AFTER INSERT ON "clienti" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('cliente.modificato');
CREATE CONSTRAINT TRIGGER "clienti_evento_modifica" AFTER UPDATE ON "clienti" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('cliente.modificato');
CREATE CONSTRAINT TRIGGER "ordini_acquisto_evento_nuovo" AFTER INSERT ON "ordini_acquisto" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('ordine_acquisto.modificato');
CREATE CONSTRAINT TRIGGER "ordini_acquisto_evento_modifica" AFTER UPDATE ON "ordini_acquisto" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('ordine_acquisto.modificato');

-- WEBHOOKS. An endpoint receives the events of its types. Delivery never touches the write path: the
-- workers of every instance (src/server/modules/webhooks/worker.ts) copy new events into deliveries
-- (`cursore`: the last event id considered, up to the events' gate bound, so none is skipped) and send
-- them. One worker at a time holds an endpoint (a session advisory lock on its id, released by
-- PostgreSQL when that worker's connection dies), and sends its oldest pending delivery first: order
-- per endpoint, each attempt made once across instances.
-- `segreto` is the signing secret (whsec_…): it must be readable to sign, so unlike API keys it is
-- stored as is; it is shown once, at creation.
CREATE TABLE "webhook_endpoint" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "descrizione" TEXT,
    "eventi" TEXT[] NOT NULL,
    "segreto" TEXT NOT NULL,
    "attivo" BOOLEAN NOT NULL DEFAULT true,
    "cursore" INTEGER NOT NULL DEFAULT 0,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_endpoint_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "webhook_consegne" (
    "id" SERIAL NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "evento_id" INTEGER NOT NULL,
    "stato" TEXT NOT NULL DEFAULT 'in_attesa',
    "tentativi" INTEGER NOT NULL DEFAULT 0,
    "prossimo_tentativo" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "primo_tentativo" TIMESTAMPTZ(3),
    "concluso_il" TIMESTAMPTZ(3),
    CONSTRAINT "webhook_consegne_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_consegne_stato_check" CHECK ("stato" IN ('in_attesa', 'consegnata', 'fallita')),
    CONSTRAINT "webhook_consegne_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoint"("id")
        ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "webhook_consegne_evento_id_fkey" FOREIGN KEY ("evento_id") REFERENCES "eventi"("id")
        ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "webhook_consegne_endpoint_id_evento_id_key" ON "webhook_consegne"("endpoint_id", "evento_id");
CREATE INDEX "webhook_consegne_endpoint_id_stato_evento_id_idx" ON "webhook_consegne"("endpoint_id", "stato", "evento_id");

-- Every attempt: when, how long, the HTTP status (none when no answer came), and the first kilobyte of
-- the answer or the reason there was none.
CREATE TABLE "webhook_tentativi" (
    "id" SERIAL NOT NULL,
    "consegna_id" INTEGER NOT NULL,
    "endpoint_id" INTEGER NOT NULL,
    "iniziato_il" TIMESTAMPTZ(3) NOT NULL,
    "durata_ms" INTEGER NOT NULL,
    "stato_http" INTEGER,
    "esito" TEXT NOT NULL,
    "risposta" TEXT,
    CONSTRAINT "webhook_tentativi_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_tentativi_esito_check" CHECK ("esito" IN ('consegnato', 'rifiutato', 'timeout', 'errore_rete', 'rete_privata')),
    CONSTRAINT "webhook_tentativi_consegna_id_fkey" FOREIGN KEY ("consegna_id") REFERENCES "webhook_consegne"("id")
        ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE INDEX "webhook_tentativi_consegna_id_idx" ON "webhook_tentativi"("consegna_id");
CREATE INDEX "webhook_tentativi_endpoint_id_id_idx" ON "webhook_tentativi"("endpoint_id", "id");
