-- The administrative log: who did what to which user, key or demo, and when. Append-only like the
-- ledger (the same trigger function refuses UPDATE, DELETE and TRUNCATE). No foreign keys: the author
-- and the object are kept by id and by name, so a user removed later (demo remove) keeps its entries.
CREATE TABLE "registro_amministrativo" (
    "id" SERIAL NOT NULL,
    "creato_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "autore_tipo" TEXT NOT NULL,
    "autore_id" INTEGER,
    "autore_nome" TEXT NOT NULL,
    "azione" TEXT NOT NULL,
    "oggetto_tipo" TEXT NOT NULL,
    "oggetto_id" INTEGER,
    "oggetto" TEXT NOT NULL,
    "dettagli" TEXT,
    CONSTRAINT "registro_amministrativo_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "registro_amministrativo_autore_tipo_check" CHECK ("autore_tipo" IN ('utente', 'chiave', 'riga_di_comando'))
);

-- The refusal names the table it guards (it guarded movimenti alone).
CREATE OR REPLACE FUNCTION banchina_registro_immutabile() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% è un registro in sola aggiunta: % rifiutato', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER "registro_amministrativo_solo_aggiunta" BEFORE UPDATE OR DELETE ON "registro_amministrativo"
    FOR EACH ROW EXECUTE FUNCTION banchina_registro_immutabile();
CREATE TRIGGER "registro_amministrativo_no_truncate" BEFORE TRUNCATE ON "registro_amministrativo"
    FOR EACH STATEMENT EXECUTE FUNCTION banchina_registro_immutabile();
