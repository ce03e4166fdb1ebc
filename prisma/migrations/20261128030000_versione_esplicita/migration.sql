-- Locations (docs/api.md section 11): an article's preferred locations live in their own table, yet changing them is a
-- change of the article (its change feed and `articolo.modificato` carry the list). The version trigger took a new
-- version only when a column of the row changed, and reset any version a statement set itself; now a version the
-- statement draws from banchina_versioni itself (`versione = nextval('banchina_versioni')`, under the versions'
-- gate that the statement trigger took first) is kept: above the row's, and not above what the sequence issued.
-- Any other value set by hand is still reset, and no service statement set `versione` before.
CREATE OR REPLACE FUNCTION banchina_versione_se_cambiata() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.versione > OLD.versione AND NEW.versione <= pg_sequence_last_value('banchina_versioni') THEN
        RETURN NEW;
    END IF;
    NEW.versione := OLD.versione;
    IF (to_jsonb(NEW) - 'versione' - coalesce(TG_ARGV, '{}'::text[]))
       IS DISTINCT FROM (to_jsonb(OLD) - 'versione' - coalesce(TG_ARGV, '{}'::text[])) THEN
        NEW.versione := nextval('banchina_versioni');
    END IF;
    RETURN NEW;
END $$;
