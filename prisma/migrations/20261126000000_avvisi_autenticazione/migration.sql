-- Notices of the changes that affect authentication.
--
-- Every instance caches what authenticates a request (src/server/modules/auth/auth-cache.ts): an API key
-- by the hash of its text, a UI session by the hash of its token with its user's role. It learns of
-- changes from here: these triggers NOTIFY the channel `banchina_autenticazione`, which each instance
-- LISTENs on a connection of its own. NOTIFY is transactional: the notice goes out at commit, and a change
-- rolled back sends none. The payload names what changed:
--   chiave:<id>      a key changed or went (revoked, scopes, name, limits, deleted);
--   utente:<id>      a user changed or went (deactivated, role, password, username, deleted);
--   sessioni:<id>    a session of that user changed or ended (sign-out, purge, deactivation, new password);
--   tutto            a table was truncated: every entry goes.
-- The bookkeeping requests write stays silent, or every request would empty every cache: a key's token
-- bucket and last use (gettoni, gettoni_il, ultimo_uso_il: each batch of rate-limit tokens writes them),
-- a session's last use and its sliding expiry when it moves later. Everything else speaks, a column added
-- tomorrow included: the conditions name what is silent, not what is heard.
-- Inserts say nothing: a cache holds only keys and sessions that exist, never a refusal.

CREATE FUNCTION banchina_avviso_autenticazione() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prima text;
    dopo text;
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('banchina_autenticazione', 'tutto');
        RETURN NULL;
    END IF;
    IF TG_TABLE_NAME = 'chiavi_api' THEN
        prima := 'chiave:' || OLD.id;
        IF TG_OP = 'UPDATE' THEN dopo := 'chiave:' || NEW.id; END IF;
    ELSIF TG_TABLE_NAME = 'utenti' THEN
        prima := 'utente:' || OLD.id;
        IF TG_OP = 'UPDATE' THEN dopo := 'utente:' || NEW.id; END IF;
    ELSE
        prima := 'sessioni:' || OLD.utente_id;
        IF TG_OP = 'UPDATE' THEN dopo := 'sessioni:' || NEW.utente_id; END IF;
    END IF;
    -- The same notice twice in one transaction is delivered once (PostgreSQL folds duplicates).
    PERFORM pg_notify('banchina_autenticazione', prima);
    IF dopo <> prima THEN
        PERFORM pg_notify('banchina_autenticazione', dopo);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER "chiavi_api_avviso_modifica" AFTER UPDATE ON "chiavi_api" FOR EACH ROW
    WHEN ((to_jsonb(OLD) - ARRAY['gettoni', 'gettoni_il', 'ultimo_uso_il']) IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['gettoni', 'gettoni_il', 'ultimo_uso_il']))
    EXECUTE FUNCTION banchina_avviso_autenticazione();
CREATE TRIGGER "chiavi_api_avviso_rimozione" AFTER DELETE ON "chiavi_api" FOR EACH ROW
    EXECUTE FUNCTION banchina_avviso_autenticazione();
CREATE TRIGGER "chiavi_api_avviso_svuotamento" AFTER TRUNCATE ON "chiavi_api" FOR EACH STATEMENT
    EXECUTE FUNCTION banchina_avviso_autenticazione();

CREATE TRIGGER "utenti_avviso_modifica" AFTER UPDATE ON "utenti" FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION banchina_avviso_autenticazione();
CREATE TRIGGER "utenti_avviso_rimozione" AFTER DELETE ON "utenti" FOR EACH ROW
    EXECUTE FUNCTION banchina_avviso_autenticazione();
CREATE TRIGGER "utenti_avviso_svuotamento" AFTER TRUNCATE ON "utenti" FOR EACH STATEMENT
    EXECUTE FUNCTION banchina_avviso_autenticazione();

-- The sliding expiry only ever moves later; one that moves earlier (a session cut short) is heard.
CREATE TRIGGER "sessioni_avviso_modifica" AFTER UPDATE ON "sessioni" FOR EACH ROW
    WHEN (NEW.scade_il < OLD.scade_il
          OR (to_jsonb(OLD) - ARRAY['ultimo_uso_il', 'scade_il']) IS DISTINCT FROM (to_jsonb(NEW) - ARRAY['ultimo_uso_il', 'scade_il']))
    EXECUTE FUNCTION banchina_avviso_autenticazione();
CREATE TRIGGER "sessioni_avviso_rimozione" AFTER DELETE ON "sessioni" FOR EACH ROW
    EXECUTE FUNCTION banchina_avviso_autenticazione();
CREATE TRIGGER "sessioni_avviso_svuotamento" AFTER TRUNCATE ON "sessioni" FOR EACH STATEMENT
    EXECUTE FUNCTION banchina_avviso_autenticazione();
