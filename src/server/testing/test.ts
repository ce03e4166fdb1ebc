import { test as base } from "vitest";
import type { Actor } from "../modules/auth/actor";
import { createTestDb } from "./db";
import { caller, seedKey } from "./fixtures";

/**
 * The `test` of every file that needs the database. Fixtures are scoped to the file:
 * - `db`: a fresh migrated database cloned from the template, installed as the process-wide client for the
 *   whole file (`auto`: created even when only the REST facade is used) and dropped after the file's last hook;
 * - `apiKey`: a read-write API key (`lettura` + `scrittura`) on it, created on first use; `key` is its bearer secret,
 *   `actor` the key as the procedures see it;
 * - `caller`: a tRPC caller on that database, as the key by default, or as any actor (`caller(user, "trpc")`).
 *
 * Hooks that need them are the fixture's own: `test.beforeAll(async ({ db, key }) => …)` (vitest's plain `beforeAll`
 * receives no fixtures). A file's seeds (warehouses, articles, other keys) stay in that file's `test.beforeAll`, which
 * also copies what it takes into the file's `let t` / `let key` when module-level helpers close over them.
 */
export const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from its destructuring pattern, `{}` for none.
  .extend("db", { scope: "file", auto: true }, async ({}, { onCleanup }) => {
    const db = await createTestDb();
    onCleanup(() => db.drop());
    return db;
  })
  .extend("apiKey", { scope: "file" }, async ({ db }) => seedKey(db.prisma))
  .extend("key", { scope: "file" }, ({ apiKey }) => apiKey.chiave)
  .extend(
    "actor",
    { scope: "file" },
    ({ apiKey }): Actor => ({ kind: "chiave", id: apiKey.id, nome: apiKey.nome, permessi: apiKey.permessi }),
  )
  .extend(
    "caller",
    { scope: "file" },
    ({ db, actor }) =>
      (as: Actor = actor, channel: "rest" | "trpc" = "rest", headers: Record<string, string> = {}) =>
        caller(db, as, channel, headers),
  );
