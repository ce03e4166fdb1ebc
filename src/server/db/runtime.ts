import path from "node:path";
import type { Config } from "../config";
import { closePrisma, createPrisma, type PrismaClient, settingsForPooler } from "./client";
import { startEmbedded } from "./embedded";
import { migrate } from "./migrate";

export interface OpenDatabase {
  /** The pool's: PostgreSQL, or a pooler in transaction mode in front of it. */
  url: string;
  /** PostgreSQL itself, for what needs a session (migrations, LISTEN, the webhook workers' locks). */
  directUrl: string;
  prisma: PrismaClient;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * DATABASE_URL set: that server, or a pooler in front of it when DATABASE_DIRECT_URL names the server
 * itself. Unset: the embedded PostgreSQL under DATA_DIR, started here (the service), or reused when a
 * running service already owns it (the CLI, mode "attach"). Migrations are applied either way, under
 * their session advisory lock, on the direct connection.
 */
export async function openDatabase(config: Config, opts: { mode: "own" | "attach"; log?: (m: string) => void }): Promise<OpenDatabase> {
  const log = opts.log ?? (() => {});
  const embedded = config.DATABASE_URL ? undefined : await startEmbedded({ dataDir: path.resolve(config.DATA_DIR), mode: opts.mode, log });
  const url = config.DATABASE_URL ?? embedded!.url;
  const directUrl = config.DATABASE_DIRECT_URL ?? url;
  const pooler = directUrl !== url;
  try {
    const applied = await migrate(directUrl, log);
    if (applied.length > 0) log(`Migrazioni applicate: ${applied.join(", ")}`);
    if (pooler) await settingsForPooler(directUrl, log);
  } catch (e) {
    await embedded?.stop();
    throw e;
  }
  const prisma = createPrisma(url, config.DB_POOL_SIZE, { pooler });
  return {
    url,
    directUrl,
    prisma,
    embedded: embedded !== undefined,
    async close() {
      await closePrisma(prisma);
      await embedded?.stop();
    },
  };
}
