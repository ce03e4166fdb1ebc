import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "../../generated/prisma/client";

export { Prisma, PrismaClient };

/** The client or a transaction client: services take it first and never open a second connection. */
export type Db = PrismaClient | Prisma.TransactionClient;
export type Tx = Prisma.TransactionClient;

export function createPrisma(connectionString: string, max = 10): PrismaClient {
  const adapter = new PrismaPg({
    connectionString,
    max,
    // Fail fast when the server is gone, so a request gets 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter });
}

/**
 * The process-wide client. Next.js bundles route handlers separately from the custom server, so module
 * state is not shared between them: the client lives on globalThis, set once by the server at start.
 */
const holder = globalThis as unknown as { __banchinaDb?: PrismaClient };

export function setDb(db: PrismaClient | undefined): void {
  holder.__banchinaDb = db;
}

export function getDb(): PrismaClient {
  if (!holder.__banchinaDb) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("Database non inizializzato: avviare il servizio con `npm start`.");
    holder.__banchinaDb = createPrisma(url, Number(process.env.DB_POOL_SIZE ?? 10));
  }
  return holder.__banchinaDb;
}
