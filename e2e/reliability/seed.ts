import { randomBytes } from "node:crypto";
import type pg from "pg";
import { hashApiKey } from "../../src/server/modules/auth/api-keys.service";

/**
 * Master data for the reliability runs, written with plain SQL (set-based: 10,000 articles take a
 * few milliseconds). No REST endpoint creates master data (docs/api.md section 6); the CLI import would
 * do the same, one process start slower.
 */

type Q = pg.Pool | pg.Client | pg.PoolClient;

export async function seedWarehouse(db: Q, codice: string): Promise<number> {
  const r = await db.query("INSERT INTO magazzini (codice, nome) VALUES ($1, $2) RETURNING id", [codice, `Magazzino ${codice}`]);
  return r.rows[0].id;
}

export async function seedSupplier(db: Q, codice: string): Promise<number> {
  const r = await db.query("INSERT INTO fornitori (codice, nome) VALUES ($1, $2) RETURNING id", [codice, `Fornitore ${codice}`]);
  return r.rows[0].id;
}

/** Articles `${prefix}${1..n}` (zero-padded), optionally lot-handled; returns their ids in code order. */
export async function seedArticles(db: Q, prefix: string, n: number, opts: { lotti?: boolean; costo?: string } = {}): Promise<number[]> {
  const r = await db.query(
    `INSERT INTO articoli (codice, descrizione, gestione_lotti, costo_standard)
     SELECT $1 || lpad(g::text, 5, '0'), 'Articolo ' || $1 || g, $3, $4::numeric FROM generate_series(1, $2::int) g
     ORDER BY g RETURNING id`,
    [prefix, n, opts.lotti ?? false, opts.costo ?? null],
  );
  return r.rows.map((x) => x.id as number).sort((a, b) => a - b);
}

export const articleCode = (prefix: string, i: number) => `${prefix}${String(i).padStart(5, "0")}`;

/** A purchase order; returns its id and its row ids in position order. */
export async function seedOrder(
  db: Q,
  o: {
    numero: string;
    fornitore: number;
    magazzino: number;
    data?: string;
    righe: { articolo: number; quantita: string | number; prezzo?: string }[];
  },
): Promise<{ id: number; righe: number[] }> {
  const order = await db.query(
    "INSERT INTO ordini_acquisto (numero, fornitore_id, magazzino_id, data) VALUES ($1, $2, $3, $4::date) RETURNING id",
    [o.numero, o.fornitore, o.magazzino, o.data ?? new Date().toISOString().slice(0, 10)],
  );
  const id = order.rows[0].id as number;
  const rows = await db.query(
    `INSERT INTO righe_ordine (ordine_id, posizione, articolo_id, ordinata, prezzo)
     SELECT $1, p, a, q::numeric, pr::numeric FROM unnest($2::int[], $3::int[], $4::text[], $5::text[]) AS t(p, a, q, pr)
     ORDER BY p RETURNING id`,
    [
      id,
      o.righe.map((_, i) => i + 1),
      o.righe.map((r) => r.articolo),
      o.righe.map((r) => String(r.quantita)),
      o.righe.map((r) => r.prezzo ?? "1.5"),
    ],
  );
  return { id, righe: rows.rows.map((x) => x.id as number).sort((a, b) => a - b) };
}

/** An API key as `api-key create` makes it (random, stored as its hash); returns the key and its row id. */
export async function createKey(
  db: Q,
  scopes: ("lettura" | "scrittura" | "webhook")[],
  opts: { perSecond?: number; burst?: number; nome?: string } = {},
): Promise<{ chiave: string; id: number }> {
  // scrittura implies lettura; webhook is granted only when named (docs/api.md section 3).
  const permessi = [
    ...(scopes.includes("scrittura") ? ["lettura", "scrittura"] : ["lettura"]),
    ...(scopes.includes("webhook") ? ["webhook"] : []),
  ];
  const prefisso = randomBytes(4).toString("hex");
  const chiave = `bnc_${prefisso}_${randomBytes(24).toString("base64url")}`;
  const r = await db.query(
    "INSERT INTO chiavi_api (nome, prefisso, hash, permessi, limite_al_secondo, raffica) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    [opts.nome ?? `rel-${scopes.join("-")}`, prefisso, hashApiKey(chiave), permessi, opts.perSecond ?? 100_000, opts.burst ?? 100_000],
  );
  return { chiave, id: r.rows[0].id };
}
