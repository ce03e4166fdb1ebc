import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import type { Role, Scope } from "./actor";

// ---------------------------------------------------------------- token buckets (rate-limit.ts)

/** A full bucket for a key seen for the first time; an existing bucket is left as it is. */
export const ensureBucket = (chiave: string, burst: number) =>
  query<never>(Prisma.sql`
    INSERT INTO limiti_richieste (chiave, gettoni, aggiornato_il) VALUES (${chiave}, ${burst}::float8, statement_timestamp())
    ON CONFLICT (chiave) DO NOTHING`);

/**
 * Refills the bucket on the database clock and spends one token when there is one; returns the
 * tokens there were before spending. FOR UPDATE re-reads the row once a concurrent attempt has
 * committed: the refill is computed on fresh values.
 */
export const spendToken = (chiave: string, burst: number, perSecond: number) =>
  query<{ disponibili: number }>(Prisma.sql`
    WITH b AS (
      SELECT chiave,
             LEAST(${burst}::float8,
                   gettoni + EXTRACT(EPOCH FROM statement_timestamp() - aggiornato_il)::float8 * ${perSecond}::float8) AS disponibili
        FROM limiti_richieste WHERE chiave = ${chiave} FOR UPDATE
    )
    UPDATE limiti_richieste l
       SET gettoni = CASE WHEN b.disponibili >= 1 THEN b.disponibili - 1 ELSE b.disponibili END,
           aggiornato_il = statement_timestamp()
      FROM b WHERE l.chiave = b.chiave
    RETURNING b.disponibili`);

export const refundToken = (chiave: string, burst: number) =>
  query<never>(Prisma.sql`UPDATE limiti_richieste SET gettoni = LEAST(${burst}::float8, gettoni + 1) WHERE chiave = ${chiave}`);

export const deleteBucket = (chiave: string) => query<never>(Prisma.sql`DELETE FROM limiti_richieste WHERE chiave = ${chiave}`);

// ---------------------------------------------------------------- API keys (api-keys.service.ts)

/** An active key by the SHA-256 of its text. */
export const activeApiKey = (hash: string) =>
  query<{ id: number; nome: string; permessi: Scope[]; raffica: number | null }>(Prisma.sql`
    SELECT id, nome, permessi, raffica FROM chiavi_api WHERE hash = ${hash} AND revocata_il IS NULL`);

type Claim = { id: number; nome: string; permessi: Scope[]; raffica: number | null; presi: number; disponibili: number; rate: number };

/**
 * Takes up to `batch` tokens from the bucket on an active key's row, refilled on the database clock.
 * FOR UPDATE returns the latest version of the row once a concurrent claim (or revocation) has
 * committed, so the bucket is computed from fresh values, no token is counted twice between instances,
 * and a key revoked meanwhile is not found.
 */
const claimTokens = (key: Prisma.Sql, defaults: { perSecond: number; burst: number }, batch: Prisma.Sql) =>
  query<Claim>(Prisma.sql`
    WITH k AS (
      SELECT id, nome, permessi, raffica,
             COALESCE(limite_al_secondo, ${defaults.perSecond})::float8 AS rate,
             LEAST(COALESCE(raffica, ${defaults.burst}),
                   COALESCE(gettoni, COALESCE(raffica, ${defaults.burst}))
                   + EXTRACT(EPOCH FROM statement_timestamp() - COALESCE(gettoni_il, statement_timestamp()))::float8
                     * COALESCE(limite_al_secondo, ${defaults.perSecond}))::float8 AS disponibili
        FROM chiavi_api WHERE ${key} AND revocata_il IS NULL
         FOR UPDATE
    ), c AS (
      SELECT k.*, GREATEST(0, LEAST(floor(k.disponibili), ${batch}))::int AS presi FROM k
    ), u AS (
      UPDATE chiavi_api t
         SET gettoni = c.disponibili - c.presi,
             gettoni_il = statement_timestamp(),
             ultimo_uso_il = CASE WHEN c.presi > 0 THEN statement_timestamp() ELSE t.ultimo_uso_il END
        FROM c WHERE t.id = c.id
      RETURNING t.id
    )
    SELECT c.id, c.nome, c.permessi, c.raffica, c.presi, c.disponibili, c.rate FROM c JOIN u ON u.id = c.id`);

/** The tokens of a key already authenticated (the cache's, or the lookup's when this instance had tokens left). */
export const claimApiKeyTokens = (id: number, defaults: { perSecond: number; burst: number }, batch: number) =>
  claimTokens(Prisma.sql`id = ${id}`, defaults, Prisma.sql`${batch}`);

/**
 * Authentication and the rate limit in one round trip: the active key of a hash and a batch of its
 * tokens, `1/share` of its burst (at least one), as `claimApiKeyTokens` would take for it.
 */
export const authenticateAndClaim = (hash: string, defaults: { perSecond: number; burst: number }, share: number) =>
  claimTokens(
    Prisma.sql`hash = ${hash}`,
    defaults,
    Prisma.sql`GREATEST(1, floor(COALESCE(k.raffica, ${defaults.burst})::float8 / ${share}::float8))`,
  );

// ---------------------------------------------------------------- sessions (sessions.service.ts)

/**
 * The live session of a token hash with its user's current role (an inactive user has none). Its
 * expiry slides at most once every `touchEverySeconds`, so reads do not turn every request into a write.
 * `resta_ms`: the time it has left, on the database's clock (the cache counts it down on its own).
 */
export const touchSession = (id: string, limits: { maxDays: number; idleHours: number; touchEverySeconds: number }) =>
  query<{ csrf: string; scade_il: Date; resta_ms: number; utente_id: number; username: string; ruolo: Role }>(Prisma.sql`
    WITH toccata AS (
      UPDATE sessioni
         SET ultimo_uso_il = statement_timestamp(),
             scade_il = LEAST(creata_il + make_interval(days => ${limits.maxDays}::int),
                              statement_timestamp() + make_interval(hours => ${limits.idleHours}::int))
       WHERE id = ${id} AND scade_il > statement_timestamp()
         AND ultimo_uso_il < statement_timestamp() - make_interval(secs => ${limits.touchEverySeconds}::int)
      RETURNING id, scade_il
    )
    SELECT s.csrf, COALESCE(t.scade_il, s.scade_il) AS scade_il,
           (EXTRACT(EPOCH FROM COALESCE(t.scade_il, s.scade_il) - statement_timestamp()) * 1000)::float8 AS resta_ms,
           u.id AS utente_id, u.username, u.ruolo
      FROM sessioni s
      JOIN utenti u ON u.id = s.utente_id AND u.attivo
      LEFT JOIN toccata t ON t.id = s.id
     WHERE s.id = ${id} AND s.scade_il > statement_timestamp()`);
