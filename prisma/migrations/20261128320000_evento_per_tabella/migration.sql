-- The master-data event function, one payload function per table. Until now every migration that added a table
-- to the events (20261127100000, 20261128000000, 20261128100000) replaced `banchina_evento_versione` whole, copying
-- every other table's branch: a change to one payload had to be carried through each copy, and a migration written
-- from a stale copy would silently undo another's branch. Now each table has `banchina_evento_<tabella>(id,
-- versione)`, returning its payload (NULL when the row is gone or is no longer at that version), and the trigger
-- function only dispatches on TG_TABLE_NAME. A new table adds its own function and its triggers, nothing else.
-- The payloads below are the branches of 20261128100000_avvisi_spedizione verbatim: same events, same data.
-- The triggers keep calling `banchina_evento_versione('<tipo>')`, so none is recreated.

CREATE FUNCTION banchina_evento_articoli(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'descrizione', t.descrizione, 'ean', t.ean,
               'gestione_lotti', t.gestione_lotti, 'costo', trim_scale(t.costo_standard)::text, 'unita', t.unita,
               'modello', m.codice, 'attivo', t.attivo, 'versione', t.versione,
               'confezione', trim_scale(t.confezione)::text,
               'ubicazioni_preferite', (SELECT coalesce(jsonb_agg(jsonb_build_object('magazzino', p.magazzino_id,
                                            'ubicazione', u.codice) ORDER BY p.magazzino_id), '[]'::jsonb)
                                          FROM ubicazioni_preferite p JOIN ubicazioni u ON u.id = p.ubicazione_id
                                         WHERE p.articolo_id = t.id))
      FROM articoli t LEFT JOIN articoli m ON m.id = t.modello_id
     WHERE t.id = riga_id AND t.versione = alla_versione
$$;

CREATE FUNCTION banchina_evento_fornitori(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'nome', t.nome, 'attivo', t.attivo, 'versione', t.versione)
      FROM fornitori t WHERE t.id = riga_id AND t.versione = alla_versione
$$;

CREATE FUNCTION banchina_evento_magazzini(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('id', t.id, 'codice', t.codice, 'nome', t.nome, 'attivo', t.attivo, 'versione', t.versione,
               'gestione_ubicazioni', t.gestione_ubicazioni, 'ubicazione_ricevimento', u.codice)
      FROM magazzini t LEFT JOIN ubicazioni u ON u.id = t.ubicazione_ricevimento_id
     WHERE t.id = riga_id AND t.versione = alla_versione
$$;

CREATE FUNCTION banchina_evento_ubicazioni(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('id', t.id, 'magazzino', t.magazzino_id, 'codice', t.codice, 'descrizione', t.descrizione,
               'tipo', t.tipo, 'attiva', t.attiva, 'versione', t.versione)
      FROM ubicazioni t WHERE t.id = riga_id AND t.versione = alla_versione
$$;

CREATE FUNCTION banchina_evento_avvisi_spedizione(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT banchina_avviso_json(t.id) FROM avvisi_spedizione t WHERE t.id = riga_id AND t.versione = alla_versione
$$;

CREATE FUNCTION banchina_evento_clienti(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT to_jsonb(t) - 'data' - 'creato_il' || jsonb_build_object('creato_ms', floor(extract(epoch FROM t.creato_il) * 1000))
      FROM clienti t WHERE t.id = riga_id AND t.versione = alla_versione
$$;

CREATE FUNCTION banchina_evento_ordini_acquisto(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('id', t.id, 'numero', t.numero, 'fornitore_id', fo.id, 'fornitore_codice', fo.codice,
               'fornitore_nome', fo.nome, 'data', to_char(t.data, 'YYYY-MM-DD'), 'magazzino', t.magazzino_id,
               'stato', t.stato, 'versione', t.versione,
               'righe', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                             'numero_riga', r.numero_riga, 'riga', r.id, 'articolo_id', a.id, 'articolo_codice', a.codice,
                             'ordinata', r.ordinata::text, 'arrivata', r.arrivata::text, 'chiusa', r.chiusa::text,
                             'motivo_chiusura', r.motivo_chiusura, 'prezzo', r.prezzo::text) ORDER BY r.posizione), '[]'::jsonb)
                           FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id WHERE r.ordine_id = t.id))
      FROM ordini_acquisto t JOIN fornitori fo ON fo.id = t.fornitore_id
     WHERE t.id = riga_id AND t.versione = alla_versione
$$;

-- The dispatcher. At commit (the triggers are deferred): the row as it commits, and only if this was its latest
-- change (same version). A table given this trigger without its payload function fails loudly here (the function
-- does not exist) instead of committing without its events; no table is in that case today.
CREATE OR REPLACE FUNCTION banchina_evento_versione() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d jsonb;
BEGIN
    EXECUTE format('SELECT %I($1, $2)', 'banchina_evento_' || TG_TABLE_NAME) INTO d USING NEW.id, NEW.versione;
    IF d IS NOT NULL THEN
        INSERT INTO eventi (tipo, dati) VALUES (TG_ARGV[0], d);
    END IF;
    RETURN NULL;
END $$;
