-- Events and webhooks (docs/api.md sections 9 and 10): warehouses record `magazzino.modificato` like the
-- other master data,
-- and an order's rows carry `motivo_chiusura` in ordine_acquisto.modificato as they do in GET /ordini-acquisto.
--
-- The event is recorded exactly as 20261125000000_eventi records the others: a deferred row trigger, run at
-- commit, writes the row as it commits when its `versione` moved (a visible change: the versione trigger of
-- 20261123000000_versioni draws none for an update that changes nothing), and only for the row's latest
-- change in the transaction. Its payload keeps the row in the shape GET /magazzini reads it
-- (feeds.queries.ts NamedRow), rendered by the list's own mapper (events.service.ts).
-- Events recorded before this migration keep their payload: an order's rows there have no
-- `motivo_chiusura`, which the renderer reads as null.

ALTER TABLE "eventi" DROP CONSTRAINT "eventi_tipo_check";
ALTER TABLE "eventi" ADD CONSTRAINT "eventi_tipo_check" CHECK ("tipo" IN ('movimenti.registrati', 'arrivo.registrato',
    'arrivo.annullato', 'giacenze.allineate', 'documento_vendita.emesso', 'ordine_acquisto.modificato', 'articolo.modificato',
    'cliente.modificato', 'fornitore.modificato', 'magazzino.modificato'));

CREATE OR REPLACE FUNCTION banchina_evento_versione() RETURNS trigger LANGUAGE plpgsql AS $$
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
    ELSIF TG_TABLE_NAME = 'magazzini' THEN
        SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'nome', t.nome, 'attivo', t.attivo, 'versione', t.versione)
          INTO d FROM magazzini t WHERE t.id = NEW.id AND t.versione = NEW.versione;
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

CREATE CONSTRAINT TRIGGER "magazzini_evento_nuovo" AFTER INSERT ON "magazzini" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('magazzino.modificato');
CREATE CONSTRAINT TRIGGER "magazzini_evento_modifica" AFTER UPDATE ON "magazzini" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('magazzino.modificato');
