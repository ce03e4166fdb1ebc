import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../db/client";
import { DomainError } from "../../lib/errors";
import type { Actor, Scope } from "./actor";

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

export async function createApiKey(
  db: Db,
  input: { nome: string; permessi: Scope[]; limiteAlSecondo?: number; raffica?: number },
): Promise<CreatedApiKey> {
  if (input.permessi.length === 0) throw new DomainError("richiesta_non_valida", "Indicare almeno un permesso: lettura o scrittura.", { campo: "permessi" });
  // scrittura implies lettura (API.md section 3).
  const permessi: Scope[] = input.permessi.includes("scrittura") ? ["lettura", "scrittura"] : ["lettura"];
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
  return { id: row.id, nome: input.nome, prefisso, permessi, chiave };
}

export async function listApiKeys(db: Db) {
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
export async function revokeApiKey(db: Db, idOrPrefix: string): Promise<boolean> {
  const where = /^[0-9a-f]{8}$/.test(idOrPrefix) || !/^\d{1,9}$/.test(idOrPrefix) ? { prefisso: idOrPrefix } : { id: Number(idOrPrefix) };
  const res = await db.chiaveApi.updateMany({ where: { ...where, revocata_il: null }, data: { revocata_il: new Date() } });
  return res.count > 0;
}

const unauthenticated = (messaggio: string) =>
  new DomainError("non_autenticato", messaggio, { headers: { "WWW-Authenticate": 'Bearer realm="banchina"' } });

/** Reads `Authorization: Bearer <key>`; the key must be well-formed before we touch the database. */
export function bearerToken(header: string | null): string {
  if (!header) throw unauthenticated("Manca l'intestazione Authorization: usare 'Authorization: Bearer <chiave API>'.");
  const m = /^Bearer ([A-Za-z0-9_\-]{10,200})$/.exec(header.trim());
  if (!m) throw unauthenticated("Intestazione Authorization non valida: il formato è 'Bearer <chiave API>'.");
  return m[1]!;
}

/**
 * Authenticates a key and takes one token from its bucket, in one statement. A refused request
 * does not spend a token. statement_timestamp() is the database's clock, the same for every instance.
 */
export async function authenticateApiKey(
  db: Db,
  token: string,
  defaults: { perSecond: number; burst: number },
): Promise<Actor> {
  // FOR UPDATE returns the latest version of the row once a concurrent request has committed, so the
  // bucket is computed from fresh values and no token is lost between instances.
  const rows = await db.$queryRaw<
    { id: number; nome: string; permessi: Scope[]; disponibili: number; rate: number }[]
  >`
    WITH k AS (
      SELECT id, nome, permessi,
             COALESCE(limite_al_secondo, ${defaults.perSecond})::float8 AS rate,
             LEAST(COALESCE(raffica, ${defaults.burst}),
                   COALESCE(gettoni, COALESCE(raffica, ${defaults.burst}))
                   + EXTRACT(EPOCH FROM statement_timestamp() - COALESCE(gettoni_il, statement_timestamp()))::float8
                     * COALESCE(limite_al_secondo, ${defaults.perSecond}))::float8 AS disponibili
        FROM chiavi_api
       WHERE hash = ${hashApiKey(token)} AND revocata_il IS NULL
         FOR UPDATE
    ), u AS (
      UPDATE chiavi_api c
         SET gettoni = CASE WHEN k.disponibili >= 1 THEN k.disponibili - 1 ELSE k.disponibili END,
             gettoni_il = statement_timestamp(),
             ultimo_uso_il = CASE WHEN k.disponibili >= 1 THEN statement_timestamp() ELSE c.ultimo_uso_il END
        FROM k WHERE c.id = k.id
      RETURNING c.id
    )
    SELECT k.id, k.nome, k.permessi, k.disponibili, k.rate FROM k JOIN u ON u.id = k.id`;
  const row = rows[0];
  if (!row) throw unauthenticated("Chiave API sconosciuta o revocata.");
  if (row.disponibili < 1) {
    const wait = Math.max(1, Math.ceil((1 - row.disponibili) / row.rate));
    throw new DomainError(
      "troppe_richieste",
      `Troppe richieste con questa chiave (limite ${row.rate} al secondo). Riprovare tra ${wait} s.`,
      { headers: { "Retry-After": String(wait) } },
    );
  }
  return { kind: "chiave", id: row.id, nome: row.nome, permessi: row.permessi };
}
