-- Initial schema. Tables mirror prisma/schema.prisma (names follow Prisma's conventions so the
-- schema test can compare them); the CHECK constraints and triggers below are the database's own
-- guarantees, which Prisma cannot express.

CREATE TABLE "magazzini" (
    "id" SERIAL NOT NULL,
    "codice" TEXT NOT NULL,
    "nome" TEXT NOT NULL,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "magazzini_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "magazzini_codice_key" ON "magazzini"("codice");

CREATE TABLE "articoli" (
    "id" SERIAL NOT NULL,
    "codice" TEXT NOT NULL,
    "ean" TEXT,
    "descrizione" TEXT NOT NULL,
    "unita" TEXT NOT NULL DEFAULT 'PZ',
    "gestione_lotti" BOOLEAN NOT NULL DEFAULT false,
    "costo_standard" DECIMAL(18,4),
    "modello_id" INTEGER,
    "ha_varianti" BOOLEAN NOT NULL DEFAULT false,
    "ultimo_prezzo_arrivo" DECIMAL(18,4),
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "articoli_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "articoli_costo_standard_check" CHECK ("costo_standard" >= 0),
    CONSTRAINT "articoli_variante_non_modello_check" CHECK (NOT ("ha_varianti" AND "modello_id" IS NOT NULL))
);
CREATE UNIQUE INDEX "articoli_codice_key" ON "articoli"("codice");
CREATE UNIQUE INDEX "articoli_ean_key" ON "articoli"("ean");
CREATE INDEX "articoli_modello_id_idx" ON "articoli"("modello_id");

CREATE TABLE "lotti" (
    "id" SERIAL NOT NULL,
    "articolo_id" INTEGER NOT NULL,
    "magazzino_id" INTEGER NOT NULL,
    "codice" TEXT NOT NULL,
    "scadenza" DATE,
    "residua" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "lotti_pkey" PRIMARY KEY ("id"),
    -- A lot never goes negative, whatever races.
    CONSTRAINT "lotti_residua_check" CHECK ("residua" >= 0)
);
CREATE UNIQUE INDEX "lotti_articolo_id_magazzino_id_codice_key" ON "lotti"("articolo_id", "magazzino_id", "codice");

CREATE TABLE "giacenze" (
    "articolo_id" INTEGER NOT NULL,
    "magazzino_id" INTEGER NOT NULL,
    "quantita" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "aggiornata_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "giacenze_pkey" PRIMARY KEY ("articolo_id","magazzino_id")
);
CREATE INDEX "giacenze_magazzino_id_idx" ON "giacenze"("magazzino_id");

CREATE TABLE "fornitori" (
    "id" SERIAL NOT NULL,
    "codice" TEXT NOT NULL,
    "nome" TEXT NOT NULL,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "fornitori_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "fornitori_codice_key" ON "fornitori"("codice");

CREATE TABLE "ordini_acquisto" (
    "id" SERIAL NOT NULL,
    "numero" TEXT NOT NULL,
    "fornitore_id" INTEGER NOT NULL,
    "magazzino_id" INTEGER NOT NULL,
    "data" DATE NOT NULL,
    "stato" TEXT NOT NULL DEFAULT 'aperto',
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ordini_acquisto_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "ordini_acquisto_stato_check" CHECK ("stato" IN ('aperto', 'parziale', 'evaso'))
);
CREATE UNIQUE INDEX "ordini_acquisto_numero_key" ON "ordini_acquisto"("numero");
CREATE INDEX "ordini_acquisto_fornitore_id_idx" ON "ordini_acquisto"("fornitore_id");
CREATE INDEX "ordini_acquisto_data_idx" ON "ordini_acquisto"("data");

CREATE TABLE "righe_ordine" (
    "id" SERIAL NOT NULL,
    "ordine_id" INTEGER NOT NULL,
    "posizione" INTEGER NOT NULL,
    "articolo_id" INTEGER NOT NULL,
    "ordinata" DECIMAL(18,3) NOT NULL,
    "arrivata" DECIMAL(18,3) NOT NULL DEFAULT 0,
    "prezzo" DECIMAL(18,4) NOT NULL,
    "stato" TEXT NOT NULL DEFAULT 'aperta',
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "righe_ordine_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "righe_ordine_ordinata_check" CHECK ("ordinata" > 0),
    -- An order row is never over-received, whatever races.
    CONSTRAINT "righe_ordine_arrivata_check" CHECK ("arrivata" >= 0 AND "arrivata" <= "ordinata"),
    CONSTRAINT "righe_ordine_prezzo_check" CHECK ("prezzo" >= 0),
    CONSTRAINT "righe_ordine_stato_check" CHECK ("stato" IN ('aperta', 'parziale', 'evasa'))
);
CREATE UNIQUE INDEX "righe_ordine_ordine_id_posizione_key" ON "righe_ordine"("ordine_id", "posizione");
CREATE INDEX "righe_ordine_articolo_id_idx" ON "righe_ordine"("articolo_id");

CREATE TABLE "operazioni" (
    "id" SERIAL NOT NULL,
    "origine" TEXT NOT NULL,
    "ddt" TEXT,
    "fornitore_id" INTEGER,
    "chiave_api_id" INTEGER,
    "utente_id" INTEGER,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "operazioni_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "operazioni_origine_check" CHECK ("origine" IN ('api', 'schermo', 'vendita', 'arrivo', 'annullamento', 'correzione'))
);
CREATE UNIQUE INDEX "operazioni_fornitore_id_ddt_key" ON "operazioni"("fornitore_id", "ddt");

CREATE TABLE "movimenti" (
    "id" SERIAL NOT NULL,
    "operazione_id" INTEGER NOT NULL,
    "data" DATE NOT NULL,
    "registrato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "origine" TEXT NOT NULL,
    "natura" TEXT NOT NULL,
    "causale" TEXT,
    "magazzino_id" INTEGER NOT NULL,
    "articolo_id" INTEGER NOT NULL,
    "quantita" DECIMAL(18,3) NOT NULL,
    "prezzo" DECIMAL(18,4),
    "lotto_id" INTEGER,
    "riferimento_tipo" TEXT,
    "riferimento_id" INTEGER,
    "annulla_id" INTEGER,
    "chiave_api_id" INTEGER,
    "utente_id" INTEGER,
    CONSTRAINT "movimenti_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "movimenti_quantita_check" CHECK ("quantita" <> 0),
    CONSTRAINT "movimenti_prezzo_check" CHECK ("prezzo" >= 0),
    CONSTRAINT "movimenti_origine_check" CHECK ("origine" IN ('api', 'schermo', 'vendita', 'arrivo', 'annullamento', 'correzione')),
    CONSTRAINT "movimenti_natura_check" CHECK ("natura" IN ('carico', 'scarico', 'trasferimento')),
    CONSTRAINT "movimenti_riferimento_check" CHECK (("riferimento_tipo" IS NULL) = ("riferimento_id" IS NULL)
        AND ("riferimento_tipo" IS NULL OR "riferimento_tipo" IN ('riga_ordine', 'documento_vendita', 'movimento')))
);
CREATE UNIQUE INDEX "movimenti_annulla_id_key" ON "movimenti"("annulla_id");
CREATE INDEX "movimenti_operazione_id_idx" ON "movimenti"("operazione_id");
CREATE INDEX "movimenti_articolo_id_id_idx" ON "movimenti"("articolo_id", "id");
CREATE INDEX "movimenti_magazzino_id_id_idx" ON "movimenti"("magazzino_id", "id");
CREATE INDEX "movimenti_data_id_idx" ON "movimenti"("data", "id");
CREATE INDEX "movimenti_riferimento_tipo_riferimento_id_idx" ON "movimenti"("riferimento_tipo", "riferimento_id");

CREATE TABLE "clienti" (
    "id" SERIAL NOT NULL,
    "codice" TEXT NOT NULL,
    "ragione_sociale" TEXT NOT NULL,
    "partita_iva" TEXT,
    "codice_fiscale" TEXT,
    "email" TEXT,
    "telefono" TEXT,
    "indirizzo" TEXT,
    "cap" TEXT,
    "citta" TEXT,
    "provincia" TEXT,
    "nazione" TEXT NOT NULL DEFAULT 'IT',
    "data" DATE NOT NULL,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "clienti_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "clienti_codice_key" ON "clienti"("codice");
CREATE INDEX "clienti_data_id_idx" ON "clienti"("data", "id");

CREATE TABLE "documenti_vendita" (
    "id" SERIAL NOT NULL,
    "tipo" TEXT NOT NULL,
    "anno" INTEGER NOT NULL,
    "progressivo" INTEGER NOT NULL,
    "numero" TEXT NOT NULL,
    "data" DATE NOT NULL,
    "cliente_id" INTEGER NOT NULL,
    "magazzino_id" INTEGER NOT NULL,
    "operazione_id" INTEGER,
    "imponibile" DECIMAL(18,2) NOT NULL,
    "imposta" DECIMAL(18,2) NOT NULL,
    "totale" DECIMAL(18,2) NOT NULL,
    "utente_id" INTEGER,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "documenti_vendita_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "documenti_vendita_tipo_check" CHECK ("tipo" IN ('ddt', 'fattura', 'scontrino'))
);
CREATE UNIQUE INDEX "documenti_vendita_tipo_anno_progressivo_key" ON "documenti_vendita"("tipo", "anno", "progressivo");
CREATE INDEX "documenti_vendita_cliente_id_id_idx" ON "documenti_vendita"("cliente_id", "id");
CREATE INDEX "documenti_vendita_data_id_idx" ON "documenti_vendita"("data", "id");

CREATE TABLE "righe_documento_vendita" (
    "id" SERIAL NOT NULL,
    "documento_id" INTEGER NOT NULL,
    "posizione" INTEGER NOT NULL,
    "articolo_id" INTEGER NOT NULL,
    "descrizione" TEXT NOT NULL,
    "quantita" DECIMAL(18,3) NOT NULL,
    "prezzo" DECIMAL(18,4) NOT NULL,
    "sconto" DECIMAL(5,2) NOT NULL DEFAULT 0,
    "aliquota_iva" DECIMAL(5,2) NOT NULL,
    "importo" DECIMAL(18,2) NOT NULL,
    "lotto_id" INTEGER,
    "movimento_id" INTEGER,
    CONSTRAINT "righe_documento_vendita_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "righe_documento_vendita_quantita_check" CHECK ("quantita" > 0),
    CONSTRAINT "righe_documento_vendita_prezzo_check" CHECK ("prezzo" >= 0),
    CONSTRAINT "righe_documento_vendita_sconto_check" CHECK ("sconto" >= 0 AND "sconto" <= 100),
    CONSTRAINT "righe_documento_vendita_aliquota_iva_check" CHECK ("aliquota_iva" >= 0 AND "aliquota_iva" <= 100)
);
CREATE UNIQUE INDEX "righe_documento_vendita_documento_id_posizione_key" ON "righe_documento_vendita"("documento_id", "posizione");

CREATE TABLE "numeratori" (
    "tipo" TEXT NOT NULL,
    "anno" INTEGER NOT NULL,
    "ultimo" INTEGER NOT NULL,
    CONSTRAINT "numeratori_pkey" PRIMARY KEY ("tipo","anno")
);

CREATE TABLE "chiavi_api" (
    "id" SERIAL NOT NULL,
    "nome" TEXT NOT NULL,
    "prefisso" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "permessi" TEXT[],
    "limite_al_secondo" DOUBLE PRECISION,
    "raffica" INTEGER,
    "gettoni" DOUBLE PRECISION,
    "gettoni_il" TIMESTAMPTZ(3),
    "creata_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revocata_il" TIMESTAMPTZ(3),
    "ultimo_uso_il" TIMESTAMPTZ(3),
    CONSTRAINT "chiavi_api_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "chiavi_api_permessi_check" CHECK ("permessi" <@ ARRAY['lettura', 'scrittura']::TEXT[])
);
CREATE UNIQUE INDEX "chiavi_api_hash_key" ON "chiavi_api"("hash");

CREATE TABLE "idempotenza" (
    "ambito" TEXT NOT NULL,
    "metodo" TEXT NOT NULL,
    "percorso" TEXT NOT NULL,
    "chiave" TEXT NOT NULL,
    "impronta" TEXT NOT NULL,
    "stato" INTEGER NOT NULL,
    "corpo" JSONB NOT NULL,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "scade_il" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "idempotenza_pkey" PRIMARY KEY ("ambito","metodo","percorso","chiave")
);
CREATE INDEX "idempotenza_scade_il_idx" ON "idempotenza"("scade_il");

CREATE TABLE "utenti" (
    "id" SERIAL NOT NULL,
    "username" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "ruolo" TEXT NOT NULL,
    "attivo" BOOLEAN NOT NULL DEFAULT true,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "utenti_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "utenti_ruolo_check" CHECK ("ruolo" IN ('operatore', 'responsabile', 'amministratore'))
);
CREATE UNIQUE INDEX "utenti_username_key" ON "utenti"("username");

CREATE TABLE "sessioni" (
    "id" TEXT NOT NULL,
    "utente_id" INTEGER NOT NULL,
    "csrf" TEXT NOT NULL,
    "creata_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "scade_il" TIMESTAMPTZ(3) NOT NULL,
    "ultimo_uso_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "sessioni_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "sessioni_utente_id_idx" ON "sessioni"("utente_id");

CREATE TABLE "limiti_richieste" (
    "chiave" TEXT NOT NULL,
    "gettoni" DOUBLE PRECISION NOT NULL,
    "aggiornato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "limiti_richieste_pkey" PRIMARY KEY ("chiave")
);

ALTER TABLE "articoli" ADD CONSTRAINT "articoli_modello_id_fkey" FOREIGN KEY ("modello_id") REFERENCES "articoli"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "lotti" ADD CONSTRAINT "lotti_articolo_id_fkey" FOREIGN KEY ("articolo_id") REFERENCES "articoli"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "lotti" ADD CONSTRAINT "lotti_magazzino_id_fkey" FOREIGN KEY ("magazzino_id") REFERENCES "magazzini"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "giacenze" ADD CONSTRAINT "giacenze_articolo_id_fkey" FOREIGN KEY ("articolo_id") REFERENCES "articoli"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "giacenze" ADD CONSTRAINT "giacenze_magazzino_id_fkey" FOREIGN KEY ("magazzino_id") REFERENCES "magazzini"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ordini_acquisto" ADD CONSTRAINT "ordini_acquisto_fornitore_id_fkey" FOREIGN KEY ("fornitore_id") REFERENCES "fornitori"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ordini_acquisto" ADD CONSTRAINT "ordini_acquisto_magazzino_id_fkey" FOREIGN KEY ("magazzino_id") REFERENCES "magazzini"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "righe_ordine" ADD CONSTRAINT "righe_ordine_ordine_id_fkey" FOREIGN KEY ("ordine_id") REFERENCES "ordini_acquisto"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "righe_ordine" ADD CONSTRAINT "righe_ordine_articolo_id_fkey" FOREIGN KEY ("articolo_id") REFERENCES "articoli"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_operazione_id_fkey" FOREIGN KEY ("operazione_id") REFERENCES "operazioni"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_magazzino_id_fkey" FOREIGN KEY ("magazzino_id") REFERENCES "magazzini"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_articolo_id_fkey" FOREIGN KEY ("articolo_id") REFERENCES "articoli"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_lotto_id_fkey" FOREIGN KEY ("lotto_id") REFERENCES "lotti"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_annulla_id_fkey" FOREIGN KEY ("annulla_id") REFERENCES "movimenti"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "documenti_vendita" ADD CONSTRAINT "documenti_vendita_cliente_id_fkey" FOREIGN KEY ("cliente_id") REFERENCES "clienti"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "documenti_vendita" ADD CONSTRAINT "documenti_vendita_magazzino_id_fkey" FOREIGN KEY ("magazzino_id") REFERENCES "magazzini"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "righe_documento_vendita" ADD CONSTRAINT "righe_documento_vendita_documento_id_fkey" FOREIGN KEY ("documento_id") REFERENCES "documenti_vendita"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "righe_documento_vendita" ADD CONSTRAINT "righe_documento_vendita_articolo_id_fkey" FOREIGN KEY ("articolo_id") REFERENCES "articoli"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "righe_documento_vendita" ADD CONSTRAINT "righe_documento_vendita_lotto_id_fkey" FOREIGN KEY ("lotto_id") REFERENCES "lotti"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "sessioni" ADD CONSTRAINT "sessioni_utente_id_fkey" FOREIGN KEY ("utente_id") REFERENCES "utenti"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The ledger is append-only: a correction is a new movement, never an edit.
CREATE FUNCTION banchina_registro_immutabile() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'movimenti è un registro in sola aggiunta: % rifiutato', TG_OP
        USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER "movimenti_solo_aggiunta" BEFORE UPDATE OR DELETE ON "movimenti"
    FOR EACH ROW EXECUTE FUNCTION banchina_registro_immutabile();
CREATE TRIGGER "movimenti_no_truncate" BEFORE TRUNCATE ON "movimenti"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_registro_immutabile();

-- Completeness of cursor sync (docs/api.md section 4). Ids come from a sequence, so a transaction can hold
-- a lower id uncommitted while a higher one is already visible. Every insert into a synced table first
-- takes a shared advisory lock whose key carries the sequence value seen *before* it draws its ids
-- (key = tag << 48 | last_value): all its ids are above that value. A reader reads the sequence, then
-- the held gate locks, and exposes only ids up to the smaller of the two; whatever holds a lower id is
-- either still gated (and bounds the page) or committed before the reader's next snapshot.
CREATE FUNCTION banchina_varco_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(
        (TG_ARGV[0]::bigint << 48) | coalesce(pg_sequence_last_value(TG_ARGV[1]::regclass), 0));
    RETURN NULL;
END $$;

CREATE FUNCTION banchina_limite_sync(tag integer, seq regclass) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    assegnati bigint;
    varco bigint;
BEGIN
    -- Order matters: the sequence first, then the locks.
    assegnati := coalesce(pg_sequence_last_value(seq), 0);
    SELECT min(((classid::bigint << 32) | objid::bigint) & 281474976710655) INTO varco
      FROM pg_locks
     WHERE locktype = 'advisory' AND objsubid = 1 AND (classid::bigint >> 16) = tag;
    RETURN least(assegnati, varco);
END $$;

CREATE TRIGGER "movimenti_varco_sync" BEFORE INSERT ON "movimenti"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(1, 'movimenti_id_seq');
CREATE TRIGGER "documenti_vendita_varco_sync" BEFORE INSERT ON "documenti_vendita"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(2, 'documenti_vendita_id_seq');
CREATE TRIGGER "clienti_varco_sync" BEFORE INSERT ON "clienti"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(3, 'clienti_id_seq');
CREATE TRIGGER "articoli_varco_sync" BEFORE INSERT ON "articoli"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_varco_sync(4, 'articoli_id_seq');
