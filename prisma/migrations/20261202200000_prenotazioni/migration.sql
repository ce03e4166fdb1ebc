-- Reservations and available-to-promise (docs/api.md section 14).
--
-- A reservation is identified by its author (the API key, or a user on the screens) and the caller's `riferimento`;
-- it is versioned as the purchase orders are (the change feed of GET /prenotazioni, tag 5) with an id gate of its
-- own (tag 14), and records prenotazione.modificata at commit, in the shape the list reads it
-- (banchina_prenotazione_json). The writers update the reservation's row last, after its rows, so every change
-- of a row takes a new version.
CREATE TABLE "prenotazioni" (
    "id"            SERIAL PRIMARY KEY,
    "chiave_api_id" INTEGER REFERENCES "chiavi_api" ("id"),
    "utente_id"     INTEGER REFERENCES "utenti" ("id"),
    "riferimento"   TEXT NOT NULL,
    "magazzino_id"  INTEGER NOT NULL REFERENCES "magazzini" ("id"),
    "cliente_id"    INTEGER NOT NULL REFERENCES "clienti" ("id"),
    "stato"         TEXT NOT NULL DEFAULT 'attiva' CONSTRAINT "prenotazioni_stato_check"
                        CHECK ("stato" IN ('attiva', 'in_prelievo', 'evasa', 'annullata', 'scaduta')),
    "scade_il"      TIMESTAMPTZ(3),
    "parziale"      BOOLEAN NOT NULL DEFAULT false,
    "creata_il"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "versione"      BIGINT NOT NULL DEFAULT nextval('banchina_versioni'),
    CONSTRAINT "prenotazioni_autore_check" CHECK (("chiave_api_id" IS NULL) <> ("utente_id" IS NULL)),
    CONSTRAINT "prenotazioni_riferimento_key" UNIQUE NULLS NOT DISTINCT ("chiave_api_id", "utente_id", "riferimento")
);
CREATE INDEX "prenotazioni_versione_idx" ON "prenotazioni" ("versione");
CREATE INDEX "prenotazioni_cliente_id_idx" ON "prenotazioni" ("cliente_id");
CREATE TRIGGER "prenotazioni_versione" BEFORE UPDATE ON "prenotazioni"
    FOR EACH ROW EXECUTE FUNCTION banchina_versione_sempre();
CREATE TRIGGER "prenotazioni_varco_versioni" BEFORE INSERT OR UPDATE ON "prenotazioni"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(5, 'banchina_versioni');
CREATE TRIGGER "prenotazioni_varco_sync" BEFORE INSERT ON "prenotazioni"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(14, 'prenotazioni_id_seq');

-- A reservation's row: `numero_riga` is the caller's stable key. `prenotata` is held now (not yet shipped),
-- `prelevata` picked within it, `spedita` shipped, `scoperta` held but no longer covered. The warehouse is the
-- reservation's, copied so that the holds of an (article, warehouse) are summed by one index.
CREATE TABLE "righe_prenotazione" (
    "id"              SERIAL PRIMARY KEY,
    "prenotazione_id" INTEGER NOT NULL REFERENCES "prenotazioni" ("id"),
    "numero_riga"     INTEGER NOT NULL CONSTRAINT "righe_prenotazione_numero_riga_check" CHECK ("numero_riga" >= 1),
    "articolo_id"     INTEGER NOT NULL REFERENCES "articoli" ("id"),
    "magazzino_id"    INTEGER NOT NULL REFERENCES "magazzini" ("id"),
    "lotto_id"        INTEGER REFERENCES "lotti" ("id"),
    "richiesta"       DECIMAL(18, 3) NOT NULL CONSTRAINT "righe_prenotazione_richiesta_check" CHECK ("richiesta" > 0),
    "prenotata"       DECIMAL(18, 3) NOT NULL DEFAULT 0 CONSTRAINT "righe_prenotazione_prenotata_check" CHECK ("prenotata" >= 0),
    "prelevata"       DECIMAL(18, 3) NOT NULL DEFAULT 0,
    "spedita"         DECIMAL(18, 3) NOT NULL DEFAULT 0 CONSTRAINT "righe_prenotazione_spedita_check" CHECK ("spedita" >= 0),
    "scoperta"        DECIMAL(18, 3) NOT NULL DEFAULT 0,
    "prezzo"          DECIMAL(18, 4),
    CONSTRAINT "righe_prenotazione_prelevata_check" CHECK ("prelevata" >= 0 AND "prelevata" <= "prenotata"),
    CONSTRAINT "righe_prenotazione_scoperta_check" CHECK ("scoperta" >= 0 AND "scoperta" <= "prenotata"),
    CONSTRAINT "righe_prenotazione_quantita_check" CHECK ("prenotata" + "spedita" <= "richiesta"),
    CONSTRAINT "righe_prenotazione_numero_key" UNIQUE ("prenotazione_id", "numero_riga")
);
-- The holds of an (article, warehouse), and of a lot: what available-to-promise subtracts.
CREATE INDEX "righe_prenotazione_tenute_idx" ON "righe_prenotazione" ("articolo_id", "magazzino_id") WHERE "prenotata" > 0;
CREATE INDEX "righe_prenotazione_lotto_idx" ON "righe_prenotazione" ("lotto_id") WHERE "prenotata" > 0 AND "lotto_id" IS NOT NULL;

-- Whether a reservation's rows count as held now, by the database's clock: `attiva` until `scade_il`, and
-- `in_prelievo` whatever its expiry (docs/api.md section 14: it does not expire until its pick list is done).
CREATE FUNCTION banchina_prenotazione_tiene(stato TEXT, scade_il TIMESTAMPTZ) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT stato = 'in_prelievo' OR (stato = 'attiva' AND (scade_il IS NULL OR scade_il > now()))
$$;

-- A reservation as GET /prenotazioni reads it and its event carries it (`scade_ms`: the instant in milliseconds,
-- formatted in the service's time zone by the reader).
CREATE FUNCTION banchina_prenotazione_json(prenotazione INTEGER) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object('id', p.id, 'riferimento', p.riferimento, 'magazzino', p.magazzino_id, 'cliente', p.cliente_id,
               'stato', p.stato, 'scade_ms', floor(extract(epoch FROM p.scade_il) * 1000), 'versione', p.versione,
               'righe', (SELECT coalesce(jsonb_agg(jsonb_build_object('numero_riga', r.numero_riga,
                             'articolo', jsonb_build_object('id', a.id, 'codice', a.codice), 'lotto', l.codice,
                             'richiesta', trim_scale(r.richiesta)::text, 'prenotata', trim_scale(r.prenotata)::text,
                             'prelevata', trim_scale(r.prelevata)::text, 'spedita', trim_scale(r.spedita)::text,
                             'scoperta', trim_scale(r.scoperta)::text) ORDER BY r.numero_riga), '[]'::jsonb)
                           FROM righe_prenotazione r JOIN articoli a ON a.id = r.articolo_id
                           LEFT JOIN lotti l ON l.id = r.lotto_id
                          WHERE r.prenotazione_id = p.id))
      FROM prenotazioni p WHERE p.id = prenotazione
$$;

CREATE FUNCTION banchina_evento_prenotazioni(riga_id bigint, alla_versione bigint) RETURNS jsonb LANGUAGE sql AS $$
    SELECT banchina_prenotazione_json(t.id) FROM prenotazioni t WHERE t.id = riga_id AND t.versione = alla_versione
$$;

ALTER TABLE "eventi" DROP CONSTRAINT "eventi_tipo_check";
ALTER TABLE "eventi" ADD CONSTRAINT "eventi_tipo_check" CHECK ("tipo" IN ('movimenti.registrati', 'arrivo.registrato',
    'arrivo.annullato', 'giacenze.allineate', 'documento_vendita.emesso', 'ordine_acquisto.modificato', 'articolo.modificato',
    'cliente.modificato', 'fornitore.modificato', 'magazzino.modificato', 'ubicazione.modificato',
    'avviso_spedizione.modificato', 'ricevimento.differenza', 'reso_fornitore.registrato', 'prenotazione.modificata'));

CREATE CONSTRAINT TRIGGER "prenotazioni_evento_nuovo" AFTER INSERT ON "prenotazioni" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION banchina_evento_versione('prenotazione.modificata');
CREATE CONSTRAINT TRIGGER "prenotazioni_evento_modifica" AFTER UPDATE ON "prenotazioni" DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.versione <> OLD.versione) EXECUTE FUNCTION banchina_evento_versione('prenotazione.modificata');
