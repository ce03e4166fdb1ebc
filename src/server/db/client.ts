import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { Prisma, PrismaClient } from "../../generated/prisma/client";
import type { PgTx } from "./pg-tx";

export { Prisma, PrismaClient };

/**
 * A unit of work: our own transaction on a `pg` connection (inTransaction), or Prisma's (for the few
 * services that use Prisma's model API: users, and what the tests seed).
 */
export type Tx = PgTx | Prisma.TransactionClient;
/** The client or a transaction: services take it first and never open a second connection. */
export type Db = PrismaClient | Tx;
/** A handle on which Prisma's model API works (the client, or a Prisma transaction: inPrismaTransaction). */
export type ModelDb = PrismaClient | Prisma.TransactionClient;

/** Statements with more parameters than this are built per call (bulk inserts): never prepared. */
const MAX_PREPARED_PARAMS = 64;
/** A statement carrying an array longer than this is planned for its data, not from the cache. */
const MAX_PREPARED_ARRAY = 100;
/** Distinct statements a process prepares at most; past it, statements run unprepared. */
const MAX_PREPARED_STATEMENTS = 2_000;
const statementNames = new Map<string, string>();

/**
 * Names a statement so that each connection parses and plans it once and then reuses it, as `pg`'s
 * named statements do (bench/floor/): per request PostgreSQL spent more CPU planning than running
 * the service's statements. The name is a digest of the text; statements whose text varies with the
 * data (many parameters) and any past the process-wide cap stay unnamed, so nothing grows unbounded.
 *
 * A named statement runs its cached generic plan (GENERIC_PLANS). A statement carrying a long array
 * (a 10,000-row alignment, a 500-row arrival) stays unnamed instead: PostgreSQL plans it for its
 * actual size, and the work it does dwarfs the planning.
 */
export function statementName(query: { sql: string; args: unknown[] }): string {
  if (query.args.length > MAX_PREPARED_PARAMS) return "";
  for (const a of query.args) if (Array.isArray(a) && a.length > MAX_PREPARED_ARRAY) return "";
  let name = statementNames.get(query.sql);
  if (name === undefined) {
    if (statementNames.size >= MAX_PREPARED_STATEMENTS) return "";
    name = `b${createHash("sha1").update(query.sql).digest("hex").slice(0, 24)}`;
    statementNames.set(query.sql, name);
  }
  return name;
}

/**
 * Prepared statements always run their cached generic plan. In PostgreSQL's default (auto) mode a
 * statement with an array parameter (`= ANY($1::int[])`, `unnest($1::int[])`: most of the write path)
 * is re-planned at every execution, because its generic plan, costed for an array of unknown length,
 * always looks dearer than a custom plan for the one-element array at hand, and that planning was a large
 * share of PostgreSQL's CPU per request on the write path (the bench's single-row arrival).
 * Long arrays stay unnamed (statementName) and keep custom plans.
 */
const GENERIC_PLAN_SETTING = "plan_cache_mode=force_generic_plan";
export const GENERIC_PLANS = `-c ${GENERIC_PLAN_SETTING}`;

/**
 * The connection string and server options the service connects with. `pg` lets an `options`
 * parameter in the URL replace the configured one, which would silently drop GENERIC_PLANS: the URL's
 * options are moved after ours instead, so its own `-c` settings still win (PostgreSQL keeps the last).
 */
export function connectionSettings(connectionString: string): { connectionString: string; options: string } {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, options: GENERIC_PLANS }; // not a URL (a socket path): pg reads no options from it
  }
  const theirs = url.searchParams.get("options");
  if (theirs === null) return { connectionString, options: GENERIC_PLANS };
  url.searchParams.delete("options");
  return { connectionString: url.toString(), options: `${GENERIC_PLANS} ${theirs}` };
}

/**
 * The pool reaches PostgreSQL through a pooler in transaction mode (DATABASE_URL ≠ DATABASE_DIRECT_URL):
 * each transaction, or statement outside one, may run on another server connection. So no named prepared
 * statement (PgBouncer 1.18 forwards a Parse to whichever server the transaction got: the next use of the
 * name finds it missing there, or a second Parse finds it already there) and no startup `options` (PgBouncer
 * refuses the parameter). The generic-plan setting moves to the role (settingsForPooler).
 */
export interface PoolerOptions {
  pooler?: boolean;
}

// On the pool, under a global symbol, for the same reason as POOL below.
const UNNAMED = Symbol.for("banchina.unnamed");

/** Whether statements on this pool are prepared by name (not through a pooler). */
export function namesStatements(pool: pg.Pool): boolean {
  return !(pool as unknown as { [UNNAMED]?: true })[UNNAMED];
}

/**
 * Through a pooler, GENERIC_PLANS as the pooled role's default in its database, which every server
 * connection the pooler opens from then on starts with: no statement per transaction, and a role may set
 * its own defaults without owning the database. Set from the direct connection when missing; refused (a
 * role the provider does not let alter itself), the service says so and runs on the server's default
 * plans, which costs planning, never correctness (docs/deployment.md "Several instances behind a pooler").
 */
export async function settingsForPooler(directUrl: string, log: (m: string) => void): Promise<void> {
  const direct = new pg.Client({ connectionString: directUrl });
  await direct.connect();
  try {
    // The direct connection's role and database: the pooler logs in as the same role (docs/deployment.md). Read here
    // rather than through the pool, whose first server connection would open before the setting exists.
    const { rows } = await direct.query<{ role: string; db: string; set: boolean }>(
      `SELECT current_user AS role, current_database() AS db,
              EXISTS (SELECT 1 FROM pg_db_role_setting s
                       WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)
                         AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
                         AND $1 = ANY (s.setconfig)) AS set`,
      [GENERIC_PLAN_SETTING],
    );
    const who = rows[0]!;
    if (who.set) return;
    const statement = `ALTER ROLE ${direct.escapeIdentifier(who.role)} IN DATABASE ${direct.escapeIdentifier(who.db)} SET ${GENERIC_PLAN_SETTING}`;
    try {
      await direct.query(statement);
      log(`Pooler: ${GENERIC_PLAN_SETTING} impostato per il ruolo ${who.role} nel database ${who.db}.`);
    } catch (e) {
      log(
        `Pooler: impossibile impostare ${GENERIC_PLAN_SETTING} per il ruolo ${who.role} (${(e as Error).message}); ` +
          `le istruzioni useranno i piani predefiniti del server. Un amministratore può eseguire: ${statement};`,
      );
    }
  } finally {
    await direct.end();
  }
}

// On the client itself, under a global symbol: Next bundles its route handlers with their own copies of
// this module, and they must find the pool of the client the custom server made (see getDb).
const POOL = Symbol.for("banchina.pool");

/**
 * The client and its connection pool, which Prisma and the services' statements share (sql.ts runs the
 * Query convention on the pool directly, transaction.ts opens its transactions on it).
 */
export function createPrisma(connectionString: string, max = 10, opts: PoolerOptions = {}): PrismaClient {
  const pool = new pg.Pool({
    ...(opts.pooler ? { connectionString } : connectionSettings(connectionString)),
    max,
    // A statement may be sent before the previous one's answer: our transactions send BEGIN with their
    // first statement (sql.ts). Everything else awaits each statement, as without pipelining.
    pipeline: true,
    // Fail fast when the server is gone, so a request gets 503 instead of hanging.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that dies (PostgreSQL stopped or restarted) emits 'error' on the pool, which drops
  // it and opens another when needed; unheard, that event would end the process. Prisma's adapter adds its
  // own listener only once Prisma has run a query, and most statements no longer go through Prisma.
  pool.on("error", () => {});
  if (opts.pooler) Object.defineProperty(pool, UNNAMED, { value: true });
  const adapter = new PrismaPg(pool, opts.pooler ? {} : { statementNameGenerator: statementName });
  const prisma = new PrismaClient({ adapter });
  Object.defineProperty(prisma, POOL, { value: { pool, client: prisma } });
  return prisma;
}

/** Closes a client made by createPrisma and its pool (which Prisma alone would leave open). */
export async function closePrisma(db: PrismaClient): Promise<void> {
  await db.$disconnect();
  const pool = poolOf(db);
  if (pool && !pool.ending) await pool.end();
}

/**
 * The connection pool under a client made by createPrisma; undefined for anything else. A Prisma
 * transaction client reads the client's properties through a proxy, so the entry names its own client:
 * a statement in a Prisma transaction must stay on that transaction's connection.
 */
export function poolOf(db: object): pg.Pool | undefined {
  const entry = (db as { [POOL]?: { pool: pg.Pool; client: object } })[POOL];
  return entry?.client === db ? entry.pool : undefined;
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
    const direct = process.env.DATABASE_DIRECT_URL;
    holder.__banchinaDb = createPrisma(url, Number(process.env.DB_POOL_SIZE ?? 10), { pooler: Boolean(direct) && direct !== url });
  }
  return holder.__banchinaDb;
}
