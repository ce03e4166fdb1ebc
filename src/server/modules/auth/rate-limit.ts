import type { Db } from "../../db/client";
import { execute, first } from "../../db/sql";
import * as q from "./auth.queries";

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
  await execute(db, q.ensureBucket(chiave, bucket.burst));
  const row = await first(db, q.spendToken(chiave, bucket.burst, bucket.perSecond));
  const disponibili = row?.disponibili ?? bucket.burst;
  if (disponibili >= 1) return { ok: true };
  return { ok: false, waitSeconds: Math.max(1, Math.ceil((1 - disponibili) / bucket.perSecond)) };
}

/** Gives one token back (never above a full bucket). */
export async function refundToken(db: Db, chiave: string, bucket: Bucket): Promise<void> {
  await execute(db, q.refundToken(chiave, bucket.burst));
}

/** Back to a full bucket. */
export async function resetBucket(db: Db, chiave: string): Promise<void> {
  await execute(db, q.deleteBucket(chiave));
}
