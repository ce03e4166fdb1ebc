import { createHash, randomBytes } from "node:crypto";
import type { ModelDb } from "../../db/client";
import { first } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import { recordAdminAction, type AuditAuthor } from "../audit/audit.service";
import type { Actor, Scope } from "./actor";
import { authCacheOf } from "./auth-cache";
import * as q from "./auth.queries";

/**
 * API keys: `bnc_<prefix>_<secret>`, random, shown once at creation, stored only as SHA-256.
 * The per-key token bucket lives on the key's row, so the rate limit holds across instances.
 */

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export interface CreatedApiKey {
  id: number;
  nome: string;
  prefisso: string;
  permessi: Scope[];
  chiave: string;
}

/** `by`: who creates it, for the administrative log (the screens and the CLI; none for seeding). */
export async function createApiKey(
  db: ModelDb,
  input: { nome: string; permessi: Scope[]; limiteAlSecondo?: number; raffica?: number },
  by?: AuditAuthor,
): Promise<CreatedApiKey> {
  if (input.permessi.length === 0)
    throw new DomainError("richiesta_non_valida", "Indicare almeno un permesso: lettura, scrittura o webhook.", { campo: "permessi" });
  // scrittura implies lettura; webhook is granted only when asked for, and implies nothing (docs/api.md section 3).
  const reads = input.permessi.includes("lettura") || input.permessi.includes("scrittura");
  const permessi: Scope[] = [
    ...(reads ? (["lettura"] as const) : []),
    ...(input.permessi.includes("scrittura") ? (["scrittura"] as const) : []),
    ...(input.permessi.includes("webhook") ? (["webhook"] as const) : []),
  ];
  const prefisso = randomBytes(4).toString("hex");
  const chiave = `bnc_${prefisso}_${randomBytes(24).toString("base64url")}`;
  const row = await db.chiaveApi.create({
    data: {
      nome: input.nome,
      prefisso,
      hash: hashApiKey(chiave),
      permessi,
      limite_al_secondo: input.limiteAlSecondo ?? null,
      raffica: input.raffica ?? null,
    },
    select: { id: true },
  });
  if (by)
    await recordAdminAction(
      db,
      by,
      "chiave.creata",
      { tipo: "chiave", id: row.id, nome: input.nome },
      `${prefisso}, ${permessi.join("+")}`,
    );
  return { id: row.id, nome: input.nome, prefisso, permessi, chiave };
}

export async function listApiKeys(db: ModelDb) {
  return db.chiaveApi.findMany({
    orderBy: { id: "asc" },
    select: {
      id: true,
      nome: true,
      prefisso: true,
      permessi: true,
      limite_al_secondo: true,
      raffica: true,
      creata_il: true,
      revocata_il: true,
      ultimo_uso_il: true,
    },
  });
}

/**
 * Revokes by the key's prefix (8 hex characters, as shown by `api-key list`) or by id; returns false
 * when nothing active matched. A prefix can be all digits, so 8 hex characters always mean a prefix.
 */
export async function revokeApiKey(db: ModelDb, idOrPrefix: string, by?: AuditAuthor): Promise<boolean> {
  const where = /^[0-9a-f]{8}$/.test(idOrPrefix) || !/^\d{1,9}$/.test(idOrPrefix) ? { prefisso: idOrPrefix } : { id: Number(idOrPrefix) };
  return revokeWhere(db, where, by);
}

/** Revokes by id (the UI's way); false when no active key has it. */
export async function revokeApiKeyById(db: ModelDb, id: number, by?: AuditAuthor): Promise<boolean> {
  return revokeWhere(db, { id }, by);
}

async function revokeWhere(db: ModelDb, where: { id: number } | { prefisso: string }, by: AuditAuthor | undefined): Promise<boolean> {
  const active = await db.chiaveApi.findMany({ where: { ...where, revocata_il: null }, select: { id: true, nome: true, prefisso: true } });
  const res = await db.chiaveApi.updateMany({
    where: { id: { in: active.map((k) => k.id) }, revocata_il: null },
    data: { revocata_il: new Date() },
  });
  // This instance forgets the keys at once: other instances hear the commit's notification, and so does this
  // one, a moment after the revocation has already answered (a request in that moment would pass). Outside a
  // transaction only (authCacheOf), where the update has committed by now.
  for (const k of active) authCacheOf(db)?.invalidate(`chiave:${k.id}`);
  if (by)
    for (const k of active) await recordAdminAction(db, by, "chiave.revocata", { tipo: "chiave", id: k.id, nome: k.nome }, k.prefisso);
  return res.count > 0;
}

const unauthenticated = (messaggio: string) => new DomainError("non_autenticato", messaggio, { authChallenge: true });

/** Reads `Authorization: Bearer <key>`; the key must be well-formed before we touch the database. */
export function bearerToken(header: string | null): string {
  if (!header) throw unauthenticated("Manca l'intestazione Authorization: usare 'Authorization: Bearer <chiave API>'.");
  const m = /^Bearer ([A-Za-z0-9_-]{10,200})$/.exec(header.trim());
  if (!m) throw unauthenticated("Intestazione Authorization non valida: il formato è 'Bearer <chiave API>'.");
  return m[1]!;
}

/** Tokens this instance has already taken from each key's shared bucket, by key hash. */
const localTokens = new Map<string, number>();

/** An instance takes this share of a key's burst from its bucket at a time (5%). */
const BATCH_SHARE = 20;

/**
 * Authenticates a key and spends one token of its rate limit.
 *
 * The key: from the instance's cache when it has one that listens (auth-cache.ts: a revocation
 * reaches every instance's cache through PostgreSQL at commit), else from the database.
 * The rate limit: the bucket lives on the key's row, on the database clock, so the limit holds
 * across instances (docs/api.md section 8); an instance takes tokens from it in batches of 5% of the burst
 * and spends them locally, so a busy key costs one database statement per batch instead of one per
 * request. Across instances the limit is exact to within one batch per instance. A key that is not
 * cached and has no local tokens is authenticated and charged in the same statement.
 */
export async function authenticateApiKey(db: ModelDb, token: string, defaults: { perSecond: number; burst: number }): Promise<Actor> {
  const hash = hashApiKey(token);
  const cache = authCacheOf(db);
  if (cache?.active) await cache.caughtUp();
  let key = cache?.apiKey(hash);
  let claim: { presi: number; disponibili: number; rate: number } | undefined;
  if (!key) {
    const ticket = cache?.ticket();
    if ((localTokens.get(hash) ?? 0) >= 1) {
      key = await first(db, q.activeApiKey(hash));
    } else {
      const row = await first(db, q.authenticateAndClaim(hash, defaults, BATCH_SHARE));
      if (row) {
        key = { id: row.id, nome: row.nome, permessi: row.permessi, raffica: row.raffica };
        claim = row;
      }
    }
    if (!key) throw unauthenticated("Chiave API sconosciuta o revocata.");
    cache?.putApiKey(ticket, hash, key);
  }
  const actor: Actor = { kind: "chiave", id: key.id, nome: key.nome, permessi: key.permessi };
  if (!claim) {
    const local = localTokens.get(hash) ?? 0;
    if (local >= 1) {
      localTokens.set(hash, local - 1);
      return actor;
    }
    const batch = Math.max(1, Math.floor((key.raffica ?? defaults.burst) / BATCH_SHARE));
    claim = await first(db, q.claimApiKeyTokens(key.id, defaults, batch));
    if (!claim) {
      // Revoked since it was cached, and the notification is still on its way: the claim read the row.
      cache?.invalidate(`chiave:${key.id}`);
      throw unauthenticated("Chiave API sconosciuta o revocata.");
    }
  }
  if (claim.presi < 1) {
    const wait = Math.max(1, Math.ceil((1 - claim.disponibili) / claim.rate));
    throw new DomainError(
      "troppe_richieste",
      `Troppe richieste con questa chiave (limite ${claim.rate} al secondo). Riprovare tra ${wait} s.`,
      { retryAfterSeconds: wait },
    );
  }
  localTokens.set(hash, (localTokens.get(hash) ?? 0) + claim.presi - 1);
  return actor;
}
