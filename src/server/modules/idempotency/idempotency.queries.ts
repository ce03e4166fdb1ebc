import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** The key's transaction-scoped advisory lock, without waiting: false while another request holds it. */
export const tryLockKey = (lockKey: bigint) => query<{ ok: boolean }>(Prisma.sql`SELECT pg_try_advisory_xact_lock(${lockKey}) AS ok`);

/** The stored response of a key, unless it has expired. */
export const storedResponse = (r: { ambito: string; metodo: string; percorso: string; chiave: string }) =>
  query<{ impronta: string; stato: number; corpo: unknown }>(Prisma.sql`
    SELECT impronta, stato, corpo FROM idempotenza
     WHERE ambito = ${r.ambito} AND metodo = ${r.metodo} AND percorso = ${r.percorso}
       AND chiave = ${r.chiave} AND scade_il > now()`);

/** Where a refusal's partial writes roll back to. */
export const savepoint = () => query<never>(Prisma.sql`SAVEPOINT idempotenza`);
export const rollbackToSavepoint = () => query<never>(Prisma.sql`ROLLBACK TO SAVEPOINT idempotenza`);

/** Stores a response; an expired record of the same key is replaced. */
export const storeResponse = (
  r: { ambito: string; metodo: string; percorso: string; chiave: string; impronta: string; retentionHours: number },
  result: { status: number; body: unknown },
) =>
  query<never>(Prisma.sql`
    INSERT INTO idempotenza (ambito, metodo, percorso, chiave, impronta, stato, corpo, scade_il)
    VALUES (${r.ambito}, ${r.metodo}, ${r.percorso}, ${r.chiave}, ${r.impronta}, ${result.status},
            ${JSON.stringify(result.body)}::jsonb, now() + make_interval(hours => ${r.retentionHours}))
    ON CONFLICT (ambito, metodo, percorso, chiave) DO UPDATE
      SET impronta = EXCLUDED.impronta, stato = EXCLUDED.stato, corpo = EXCLUDED.corpo,
          creato_il = now(), scade_il = EXCLUDED.scade_il`);

export const deleteExpired = () => query<never>(Prisma.sql`DELETE FROM idempotenza WHERE scade_il <= now()`);
