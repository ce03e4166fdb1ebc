import { createHash } from "node:crypto";
import { idempotencyLockKey } from "../../db/advisory-locks";
import type { PrismaClient, Tx } from "../../db/client";
import { execute, holdingCommit, rowsInOrder, rowsThenCommit } from "../../db/sql";
import { inTransaction, type TransactionOptions } from "../../db/transaction";
import { canonicalJson } from "../../lib/canonical-json";
import { DomainError, type ErrorBody, type RefusalHints } from "../../lib/errors";
import * as q from "./idempotency.queries";
import type { SettleOutput } from "./idempotency.schemas";

/**
 * Idempotency (docs/api.md section 3), the one mechanism every write plugs into. The stored response is
 * committed in the same transaction as the writes, so a crash leaves either both or neither.
 * A transaction-scoped advisory lock on the key tells a concurrent duplicate that the first is still
 * running (409) without waiting for it; after the first commits, a duplicate finds the record (replay).
 */

export interface WriteResult<T> {
  status: number;
  body: T;
}

export interface IdempotentOutcome<T> {
  status: number;
  body: T;
  replayed: boolean;
}

export interface IdempotencyRequest {
  ambito: string;
  metodo: string;
  percorso: string;
  chiave: string | undefined;
  input: unknown;
  retentionHours: number;
}

const VALID_KEY = /^[\x20-\x7E]{1,255}$/;

/** Validates the header's value; absent means "not idempotent". */
export function parseIdempotencyKey(header: string | null): string | undefined {
  if (header === null) return undefined;
  if (!VALID_KEY.test(header) || header.trim() === "") {
    throw new DomainError(
      "chiave_idempotenza_non_valida",
      "Idempotency-Key non valida: da 1 a 255 caratteri ASCII stampabili, non vuota.",
      { campo: "Idempotency-Key" },
    );
  }
  return header;
}

export function fingerprint(r: Pick<IdempotencyRequest, "metodo" | "percorso" | "input">): string {
  return createHash("sha256")
    .update(`${r.metodo} ${r.percorso}\n${canonicalJson(r.input)}`)
    .digest("hex");
}

const keyBusy = () =>
  new DomainError("idempotenza_in_corso", "Una richiesta con la stessa Idempotency-Key è ancora in corso: riprovare tra poco.", {
    retryAfterSeconds: 1,
  });

const keyAbandoned = () =>
  new DomainError(
    "chiave_idempotenza_abbandonata",
    "Questa richiesta è stata abbandonata dopo un esito incerto e non è stata eseguita: controllare la situazione, poi ripeterla con una Idempotency-Key nuova.",
    { campo: "Idempotency-Key" },
  );

/**
 * The fingerprint of an abandonment record (settleKey): not a SHA-256 in hex, so no request's
 * fingerprint is ever equal to it.
 */
const ABANDONED = "abbandonata";

export async function runIdempotent<T>(
  db: PrismaClient,
  req: IdempotencyRequest,
  work: (tx: Tx) => Promise<WriteResult<T>>,
  txOptions?: TransactionOptions,
): Promise<IdempotentOutcome<T>> {
  if (req.chiave === undefined) {
    const r = await inTransaction(db, work, txOptions);
    return { ...r, replayed: false };
  }
  const key = req.chiave;
  const impronta = fingerprint(req);
  const outcome = await inTransaction(
    db,
    async (tx) => {
      // The lock, the stored response and the savepoint a refusal rolls back to, in one round trip: each
      // statement still runs after the one before it, so the response is read holding the lock. A replay
      // or a refusal leaves the savepoint unused.
      const [[lock], [stored]] = await rowsInOrder(
        tx,
        q.tryLockKey(idempotencyLockKey(req)),
        q.storedResponse({ ...req, chiave: key }),
        q.savepoint(),
      );
      if (!lock?.ok) throw keyBusy();
      if (stored?.impronta === ABANDONED) throw keyAbandoned();
      if (stored) {
        if (stored.impronta !== impronta) {
          throw new DomainError(
            "chiave_idempotenza_riutilizzata",
            "Questa Idempotency-Key è già stata usata per una richiesta diversa: usare una chiave nuova.",
            { campo: "Idempotency-Key" },
          );
        }
        return { status: stored.stato, body: stored.corpo as T, replayed: true };
      }
      // A refusal (4xx) is stored too, but its partial writes must not be: they roll back to the savepoint.
      let result: WriteResult<unknown>;
      try {
        result = await holdingCommit(tx, () => work(tx));
      } catch (e) {
        if (!(e instanceof DomainError) || e.status >= 500) throw e;
        await execute(tx, q.rollbackToSavepoint());
        result = { status: e.status, body: { ...e.toBody(), __hints: e.hints } };
      }
      await rowsThenCommit(tx, q.storeResponse({ ...req, chiave: key, impronta }, result));
      return { status: result.status, body: result.body as T, replayed: false };
    },
    txOptions,
  );
  if (outcome.status >= 400) {
    // Stored refusal (first time or replayed): the same error body, the same status.
    const { __hints, __headers: _, ...body } = outcome.body as ErrorBody & { __hints?: RefusalHints; __headers?: unknown };
    throw new DomainError(body.codice, body.messaggio, {
      campo: body.campo,
      dettagli: body.dettagli,
      ...__hints,
      ...(outcome.replayed ? { replayed: true } : {}),
    });
  }
  return outcome;
}

/**
 * Settles a key whose outcome the caller does not know, without running its request (replaying
 * it is not settling it, since the caller may have changed its data meanwhile). Under the key's lock, as
 * runIdempotent takes it: a stored response is what happened (`eseguita`, its status and body; a stored
 * refusal is a definite answer too); no record means the request never ran to its end, and an
 * abandonment record is stored in the same transaction, so the original, should it arrive late, finds
 * it and is refused (chiave_idempotenza_abbandonata) instead of running. The lock busy means the
 * original is running now: 409 idempotenza_in_corso, as for a duplicate, and the caller asks again.
 */
export async function settleKey(
  db: PrismaClient,
  req: Pick<IdempotencyRequest, "ambito" | "metodo" | "percorso" | "retentionHours"> & { chiave: string },
): Promise<SettleOutput> {
  return inTransaction(db, async (tx) => {
    const [[lock], [stored]] = await rowsInOrder(tx, q.tryLockKey(idempotencyLockKey(req)), q.storedResponse(req));
    if (!lock?.ok) throw keyBusy();
    if (stored?.impronta === ABANDONED) return { esito: "abbandonata" };
    if (stored) return { esito: "eseguita", stato: stored.stato, corpo: withoutHints(stored) };
    const refusal = keyAbandoned();
    await rowsThenCommit(tx, q.storeResponse({ ...req, impronta: ABANDONED }, { status: refusal.status, body: refusal.toBody() }));
    return { esito: "abbandonata" };
  });
}

/**
 * A stored refusal carries its hints beside the contract's body (runIdempotent; `__headers` in records stored
 * before the hints were): the body alone.
 */
function withoutHints(stored: { stato: number; corpo: unknown }): unknown {
  if (stored.stato < 400) return stored.corpo;
  const { __hints: _, __headers: _legacy, ...body } = stored.corpo as Record<string, unknown>;
  return body;
}

/** Deletes expired records; returns how many. Run at start and every hour. */
export async function purgeExpiredIdempotency(db: PrismaClient): Promise<number> {
  return execute(db, q.deleteExpired());
}
