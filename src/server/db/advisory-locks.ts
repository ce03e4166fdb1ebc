import { createHash } from "node:crypto";

/**
 * Every advisory lock key the code takes, in one table, each with its place in the lock order (ARCHITECTURE.md
 * "The lock order"): a caller imports its key from here and never writes a number of its own.
 *
 * PostgreSQL keeps two spaces that never meet: one-key locks (a bigint, `pg_advisory_lock(key)`) and
 * two-key locks (a class and an id, `pg_advisory_lock(class, id)`). The one-key space is split by its top
 * 16 bits: 0 for the fixed keys below, a sync gate's tag (SYNC_TABLES) for the gates the migrations'
 * triggers take, IDEMPOTENCY_SPACE for the hashed `Idempotency-Key`s. A fixed key or a class added here
 * must differ from every other one (advisory-locks.test.ts checks it): two writers that share a key wait
 * on each other for nothing, and deadlock when they take it in different places of the order.
 *
 * Changing a key's value is safe only while no two versions of the service run against one database at
 * once: an instance of the old version and one of the new would take different keys for the same thing
 * and no longer exclude each other. Stop every instance before starting a version that changes one
 * (docs/deployment.md, "Upgrade").
 */

// ---------------------------------------------------------------- one-key locks (top 16 bits 0)

/** Before any lock of the service: each instance at start, a session lock on the direct connection, while migrations run. */
export const MIGRATION_LOCK = 7_246_301_001;

/**
 * Lock order 0b, first: the demo seeding (first start on an empty database), before the import it runs.
 * Instances starting together: the second waits, then finds the data there.
 */
export const DEMO_LOCK = 7_246_301_002;

/** Lock order 0b, after DEMO_LOCK: imports (and the demo seeding, which imports) run one at a time. */
export const IMPORT_LOCK = 7_246_301_010;

/**
 * Lock order 0b, after IMPORT_LOCK, in this order: the writers of one master-data table (REST upserts and
 * the import). The import takes them all, in this order; a REST upsert takes its own table's, and the
 * warehouse and article upserts that name locations take `ubicazioni` after their own.
 */
export const MASTER_DATA_LOCKS = {
  magazzini: 7_246_301_011,
  fornitori: 7_246_301_012,
  articoli: 7_246_301_013,
  clienti: 7_246_301_014,
  ubicazioni: 7_246_301_015,
} as const;
export type MasterDataTable = keyof typeof MASTER_DATA_LOCKS;

// ---------------------------------------------------------------- two-key classes (class, id)

/** Lock order 0c: order keys, the id `hashtext(supplier/number)`, taken sorted by an order upsert and the import. */
export const ORDER_KEY_LOCK = 7246;

/** Lock order 0d: notice keys, the id `hashtext(supplier/number)`, taken sorted by a notice upsert. */
export const NOTICE_KEY_LOCK = 0x4156; // "AV"

/**
 * Lock order 0e: reservation keys, the id `hashtext(author/riferimento)`, taken sorted by a reservation upsert
 * (docs/api.md section 14): two writes of one reference queue, and a first creation of it cannot race another.
 */
export const RESERVATION_KEY_LOCK = 0x5052; // "PR"

/**
 * Lock order 1b: location gates, the id the location's: shared by a writer that puts goods into the
 * location, exclusive by a complete count of it and by its deactivation.
 */
export const LOCATION_GATE = 0x5543; // "UC"

/**
 * Outside the writers' order: a webhook endpoint, the id the endpoint's. A delivery worker holds it as a
 * session try-lock on a connection of its own; a deletion takes it for its transaction and takes nothing else first.
 */
export const ENDPOINT_LOCK_CLASS = 0x5748; // "WH"

// ---------------------------------------------------------------- one-key spaces (top 16 bits a tag)

/**
 * The sync gates (docs/api.md section 4): a statement trigger on every INSERT (and versioned UPDATE) of a synced
 * table takes a SHARED one-key lock `tag << 48 | the sequence's value` (`banchina_varco_sync(tag, seq)` in
 * the migrations), and `banchina_limite_sync(tag, seq)` reads the held ones from `pg_locks`. Shared only,
 * never waited for, so they have no place in the order. One tag per sequence; `versioni` is the change
 * feed's, shared by every versioned table. The migrations' triggers must name these tags (checked).
 */
export const SYNC_TABLES = {
  movimenti: { tag: 1, seq: "movimenti_id_seq" },
  documenti_vendita: { tag: 2, seq: "documenti_vendita_id_seq" },
  clienti: { tag: 3, seq: "clienti_id_seq" },
  articoli: { tag: 4, seq: "articoli_id_seq" },
  versioni: { tag: 5, seq: "banchina_versioni" },
  fornitori: { tag: 6, seq: "fornitori_id_seq" },
  magazzini: { tag: 7, seq: "magazzini_id_seq" },
  ordini_acquisto: { tag: 8, seq: "ordini_acquisto_id_seq" },
  eventi: { tag: 9, seq: "eventi_id_seq" },
  ubicazioni: { tag: 10, seq: "ubicazioni_id_seq" },
  giacenze_ubicazioni: { tag: 11, seq: "giacenze_ubicazioni_id_seq" },
  avvisi_spedizione: { tag: 12, seq: "avvisi_spedizione_id_seq" },
  differenze_ricevimento: { tag: 13, seq: "differenze_ricevimento_id_seq" },
  prenotazioni: { tag: 14, seq: "prenotazioni_id_seq" },
} as const;

/**
 * Lock order 0a, first of all: an `Idempotency-Key`, a try-lock that never waits. Its top 16 bits are this
 * tag and the rest the first 48 bits of SHA-256 of (scope, method, path, key): a key with a sync gate's tag
 * there would be read as a held gate by `banchina_limite_sync` and bound that table's lists. Two keys that
 * share 48 bits only answer `idempotenza_in_corso` to each other while both run.
 */
export const IDEMPOTENCY_SPACE = 0x4944; // "ID"

export function idempotencyLockKey(r: { ambito: string; metodo: string; percorso: string; chiave: string | undefined }): bigint {
  const h = createHash("sha256").update(`${r.ambito}\n${r.metodo}\n${r.percorso}\n${r.chiave}`).digest();
  return (BigInt(IDEMPOTENCY_SPACE) << 48n) | (h.readBigUInt64BE(0) >> 16n);
}
