import path from "node:path";
import type { Config } from "../config";
import { closePrisma, createPrisma, type PrismaClient } from "./client";
import { startEmbedded } from "./embedded";
import { migrate } from "./migrate";

export interface OpenDatabase {
  url: string;
  prisma: PrismaClient;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * DATABASE_URL set: that server. Unset: the embedded PostgreSQL under DATA_DIR, started here (the
 * service), or reused when a running service already owns it (the CLI, mode "attach").
 * Migrations are applied either way, under their advisory lock.
 */
export async function openDatabase(config: Config, opts: { mode: "own" | "attach"; log?: (m: string) => void }): Promise<OpenDatabase> {
  const log = opts.log ?? (() => {});
  const embedded = config.DATABASE_URL ? undefined : await startEmbedded({ dataDir: path.resolve(config.DATA_DIR), mode: opts.mode, log });
  const url = config.DATABASE_URL ?? embedded!.url;
  try {
    const applied = await migrate(url, log);
    if (applied.length > 0) log(`Migrazioni applicate: ${applied.join(", ")}`);
  } catch (e) {
    await embedded?.stop();
    throw e;
  }
  const prisma = createPrisma(url, config.DB_POOL_SIZE);
  return {
    url,
    prisma,
    embedded: embedded !== undefined,
    async close() {
      await closePrisma(prisma);
      await embedded?.stop();
    },
  };
}
