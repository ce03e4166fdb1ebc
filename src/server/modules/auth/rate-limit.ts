import type { Db } from "../../db/client";

/**
 * Generic token buckets in `limiti_richieste`, computed on the database clock in one locked statement:
 * every instance sees the same bucket, and two concurrent attempts cannot both spend the last token.
 */

export interface Bucket {
  /** Tokens a full bucket holds. */
  burst: number;
  /** Tokens added per second. */
  perSecond: number;
}

export type TakeResult = { ok: true } | { ok: false; waitSeconds: number };

export async function takeToken(db: Db, chiave: string, bucket: Bucket): Promise<TakeResult> {
  await db.$executeRaw`
    INSERT INTO limiti_richieste (chiave, gettoni, aggiornato_il) VALUES (${chiave}, ${bucket.burst}::float8, statement_timestamp())
    ON CONFLICT (chiave) DO NOTHING`;
  // FOR UPDATE re-reads the row once a concurrent attempt has committed: the refill is computed on fresh values.
  const [row] = await db.$queryRaw<{ disponibili: number }[]>`
    WITH b AS (
      SELECT chiave,
             LEAST(${bucket.burst}::float8,
                   gettoni + EXTRACT(EPOCH FROM statement_timestamp() - aggiornato_il)::float8 * ${bucket.perSecond}::float8) AS disponibili
        FROM limiti_richieste WHERE chiave = ${chiave} FOR UPDATE
    )
    UPDATE limiti_richieste l
       SET gettoni = CASE WHEN b.disponibili >= 1 THEN b.disponibili - 1 ELSE b.disponibili END,
           aggiornato_il = statement_timestamp()
      FROM b WHERE l.chiave = b.chiave
    RETURNING b.disponibili`;
  const disponibili = row?.disponibili ?? bucket.burst;
  if (disponibili >= 1) return { ok: true };
  return { ok: false, waitSeconds: Math.max(1, Math.ceil((1 - disponibili) / bucket.perSecond)) };
}

/** Gives one token back (never above a full bucket). */
export async function refundToken(db: Db, chiave: string, bucket: Bucket): Promise<void> {
  await db.$executeRaw`UPDATE limiti_richieste SET gettoni = LEAST(${bucket.burst}::float8, gettoni + 1) WHERE chiave = ${chiave}`;
}

/** Back to a full bucket. */
export async function resetBucket(db: Db, chiave: string): Promise<void> {
  await db.$executeRaw`DELETE FROM limiti_richieste WHERE chiave = ${chiave}`;
}
