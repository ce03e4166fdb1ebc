import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { MIGRATION_LOCK } from "./advisory-locks";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order, each once, in its own transaction,
 * recorded in banchina_migrazioni. A session advisory lock serialises instances that start together:
 * the second waits, then finds everything applied.
 */

export function migrationsDir(): string {
  return path.resolve(process.cwd(), "prisma", "migrations");
}

export function listMigrations(dir = migrationsDir()): { name: string; sql: string }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8") }));
}

export async function migrate(url: string, log: (m: string) => void = () => {}): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS banchina_migrazioni (
      nome TEXT PRIMARY KEY, applicata_il TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ nome: string }>("SELECT nome FROM banchina_migrazioni")).rows.map((r) => r.nome));
    for (const m of listMigrations()) {
      if (done.has(m.name)) continue;
      log(`Migrazione ${m.name} …`);
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query("INSERT INTO banchina_migrazioni (nome) VALUES ($1)", [m.name]);
        await client.query("COMMIT");
      } catch (e) {
        await client.query("ROLLBACK");
        throw new Error(`Migrazione ${m.name} fallita: ${(e as Error).message}`);
      }
      applied.push(m.name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
  return applied;
}
