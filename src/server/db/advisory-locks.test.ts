import fs from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { test } from "../testing/test";
import * as locks from "./advisory-locks";

/** Every fixed one-key lock, by name. */
const ONE_KEY: Record<string, number> = {
  MIGRATION_LOCK: locks.MIGRATION_LOCK,
  DEMO_LOCK: locks.DEMO_LOCK,
  IMPORT_LOCK: locks.IMPORT_LOCK,
  ...Object.fromEntries(Object.entries(locks.MASTER_DATA_LOCKS).map(([table, key]) => [`MASTER_DATA_LOCKS.${table}`, key])),
};

/** Every two-key class, by name. */
const CLASSES: Record<string, number> = {
  ORDER_KEY_LOCK: locks.ORDER_KEY_LOCK,
  NOTICE_KEY_LOCK: locks.NOTICE_KEY_LOCK,
  LOCATION_GATE: locks.LOCATION_GATE,
  ENDPOINT_LOCK_CLASS: locks.ENDPOINT_LOCK_CLASS,
};

/** The names that share a value with another name. */
function sharing(table: Record<string, number>): string[][] {
  const byValue = new Map<number, string[]>();
  for (const [name, value] of Object.entries(table)) byValue.set(value, [...(byValue.get(value) ?? []), name]);
  return [...byValue.values()].filter((names) => names.length > 1);
}

/** Every TypeScript file of the repository's code and tests but this table. */
function sources(): string[] {
  const root = path.resolve(import.meta.dirname, "../../..");
  const own = path.resolve(import.meta.dirname, "advisory-locks.ts");
  return ["src", "e2e", "bench", "scripts"]
    .flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" }).map((f) => path.join(root, dir, f)))
    .filter((f) => /\.tsx?$/.test(f) && f !== own);
}

/** A number as written in code: decimal with optional `_` separators, or hex. */
const written = (n: number) => new RegExp(`\\b(${[...String(n)].join("_?")}|0x${n.toString(16)})\\b`, "i");

describe("the advisory lock table", () => {
  test("every caller takes its key from the table: no other file writes a key or passes a literal to an advisory lock", () => {
    const found: string[] = [];
    const values = [...Object.values(ONE_KEY), ...Object.values(CLASSES)];
    for (const file of sources()) {
      const text = fs.readFileSync(file, "utf8");
      for (const v of values) if (written(v).test(text)) found.push(`${path.basename(file)}: ${v}`);
      if (/pg_\w*advisory\w*\(\s*\d/.test(text)) found.push(`${path.basename(file)}: a literal key`);
    }
    expect(found).toEqual([]);
  });

  test("every fixed one-key lock has a key of its own", () => {
    expect(sharing(ONE_KEY)).toEqual([]);
  });

  test("every two-key class is distinct", () => {
    expect(sharing(CLASSES)).toEqual([]);
    // A class is an int4 key.
    for (const c of Object.values(CLASSES)) expect(Number.isInteger(c) && c > 0 && c < 2 ** 31).toBe(true);
  });

  test("the one-key spaces do not overlap: fixed keys, sync gate tags, idempotency keys", () => {
    // Fixed keys keep their top 16 bits at 0, the space no sync gate and no idempotency key uses.
    for (const key of Object.values(ONE_KEY)) expect(Number.isSafeInteger(key) && key > 0 && key < 2 ** 48).toBe(true);
    const tags = Object.values(locks.SYNC_TABLES).map((g) => g.tag);
    expect(new Set(tags).size).toBe(tags.length);
    expect(tags.every((t) => t > 0 && t < 2 ** 15)).toBe(true);
    expect(tags).not.toContain(locks.IDEMPOTENCY_SPACE);
    const seqs = Object.values(locks.SYNC_TABLES).map((g) => g.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  test("the migrations' sync triggers name the table's tags and sequences", async ({ db }) => {
    const { rows } = await db.pool.query<{ tag: number; seq: string }>(`
      SELECT DISTINCT split_part(encode(tgargs, 'escape'), '\\000', 1)::int AS tag,
             split_part(encode(tgargs, 'escape'), '\\000', 2) AS seq
        FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE p.proname = 'banchina_varco_sync' AND NOT t.tgisinternal
       ORDER BY 1`);
    const declared = Object.values(locks.SYNC_TABLES)
      .map((g) => ({ tag: g.tag, seq: g.seq }))
      .sort((a, b) => a.tag - b.tag);
    expect(rows).toEqual(declared);
  });

  test("an Idempotency-Key's lock is never read as a sync gate", async ({ db }) => {
    // A key whose first 16 bits of SHA-256 are 7 (the warehouses' tag): as a plain 64-bit hash it sat in that gate's space.
    const key = locks.idempotencyLockKey({ ambito: "k1", metodo: "POST", percorso: "/movimenti", chiave: "k-9231" });
    const holder = await db.pool.connect();
    try {
      await holder.query("BEGIN");
      expect((await holder.query("SELECT pg_try_advisory_xact_lock($1::bigint) AS ok", [key.toString()])).rows[0].ok).toBe(true);
      // What banchina_limite_sync reads as the held gates of each tag.
      const { rows } = await db.pool.query<{ tag: number }>(
        `SELECT DISTINCT (classid::bigint >> 16)::int AS tag FROM pg_locks
          WHERE locktype = 'advisory' AND objsubid = 1 AND (classid::bigint >> 16) = ANY($1::int[])`,
        [Object.values(locks.SYNC_TABLES).map((g) => g.tag)],
      );
      expect(rows).toEqual([]);
      expect(key >> 48n).toBe(BigInt(locks.IDEMPOTENCY_SPACE));
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
  });
});
