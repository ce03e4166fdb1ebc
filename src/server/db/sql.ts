import pg from "pg";
import { type Db, namesStatements, Prisma, poolOf, statementName } from "./client";
import { isPgTx, type PgTx } from "./pg-tx";

/**
 * A statement and the shape of its rows, declared once in its module's `<module>.queries.ts`.
 *
 * The statement is a `Prisma.sql` value. The service runs it (`rows`, `first`, `execute`) on `pg`
 * directly, as a named prepared statement (unnamed through a pooler: client.ts), whenever it can: on the
 * client's pool outside a transaction, on the connection of our own transactions (transaction.ts) inside
 * one; only inside a Prisma transaction (the services that use Prisma's model API) does it go through
 * Prisma. The rows come back in the types Prisma gives a raw query (numeric as Decimal, bigint as BigInt,
 * date as a Date at UTC midnight), so the row types hold either way. The benchmark's floor (bench/floor/) runs the very same text and values.
 */
export interface Query<Row> {
  readonly sql: Prisma.Sql;
  /** Never set: carries the row type. */
  readonly row?: Row;
}

export function query<Row>(sql: Prisma.Sql): Query<Row> {
  return { sql };
}

/**
 * `LIMIT n` written into the statement's text rather than bound as a parameter. The service's
 * statements run their generic plan (GENERIC_PLANS in client.ts), and a generic plan costed for an
 * unknown limit expects a third of the table: on a large ledger it chose a parallel Gather
 * Merge for a 100-row page, paying the workers' start-up on every page (the movement scan fell far below
 * its goal). Knowing the limit, the planner walks the index for the rows asked. A page size is one of a few
 * values a client picks, so the statements stay few (and client.ts caps how many are kept).
 */
export function limit(n: number): Prisma.Sql {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`LIMIT non valido: ${n}`);
  return Prisma.raw(`LIMIT ${n}`);
}

const NUMERIC = 1700;
const NUMERIC_ARRAY = 1231;
const INT8 = 20;
const INT8_ARRAY = 1016;
const DATE = 1082;
const DATE_ARRAY = 1182;

const parseArray = (parse: (s: string) => unknown) => (value: string) =>
  (pg.types.getTypeParser(1009 as never) as (v: string) => (string | null)[])(value).map((v) => (v === null ? null : parse(v)));
const decimal = (s: string) => new Prisma.Decimal(s);
const date = (s: string) => new Date(`${s}T00:00:00Z`);
// Built once: pg asks for a parser per column of every result.
const decimalArray = parseArray(decimal);
const bigintArray = parseArray(BigInt);
const dateArray = parseArray(date);

/** Prisma's types for a raw query's columns (what the row types declare), pg's own for the rest. */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    switch (oid) {
      case NUMERIC:
        return decimal;
      case NUMERIC_ARRAY:
        return decimalArray;
      case INT8:
        return BigInt;
      case INT8_ARRAY:
        return bigintArray;
      case DATE:
        return date;
      case DATE_ARRAY:
        return dateArray;
      default:
        return pg.types.getTypeParser(oid, format);
    }
  },
} as pg.CustomTypesConfig;

/** Parameters as Prisma would send them: decimals and big integers as their text. */
function param(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(param);
  if (typeof v === "bigint") return v.toString();
  if (Prisma.Decimal.isDecimal(v)) return (v as Prisma.Decimal).toString();
  return v;
}

/** Where a statement runs on pg: our transaction, the client's pool; undefined in a Prisma transaction. */
function onPg(db: Db): PgTx | pg.Pool | undefined {
  return isPgTx(db) ? db : poolOf(db);
}

type Result<Row> = pg.QueryResult<Row & pg.QueryResultRow>;

/** Through a pooler (client.ts namesStatements) a statement is never named. */
function statementOf(q: Query<unknown>, named: boolean): pg.QueryConfig {
  const values = q.sql.values.map(param);
  const name = named ? statementName({ sql: q.sql.text, args: values }) || undefined : undefined;
  return { name, text: q.sql.text, values, types } as pg.QueryConfig;
}

const named = (on: PgTx | pg.Pool) => (isPgTx(on) ? on.namesStatements : namesStatements(on));

/**
 * Statements sent on one connection in one write, answered in order (the pool's connections pipeline,
 * client.ts). Each still runs after the one before it has finished, as its own statement: only the round
 * trips between them are saved. A transaction's first statements carry its BEGIN, which cannot fail on a
 * healthy idle connection; a lost connection fails them all, and the work with them. With `commit`, the
 * transaction's COMMIT follows them: when one of them fails, PostgreSQL answers that COMMIT with a
 * rollback, and the statement's error is what comes back. Through PgBouncer in transaction mode they
 * stay on one server connection too, in or out of a transaction: it hands a server to another client only
 * once nothing sent to it is unanswered (600 of 600 pipelined triples on one backend, 2 servers for 30
 * clients; pgbouncer.test.ts runs the sync reader's bound-and-page this way).
 */
async function sendTogether(
  client: pg.PoolClient,
  tx: PgTx | undefined,
  statements: pg.QueryConfig[],
  commit = false,
): Promise<Result<unknown>[]> {
  const stream = (client as unknown as { connection: { stream: { cork?(): void; uncork?(): void } } }).connection.stream;
  const sent: Promise<Result<unknown>>[] = [];
  if (tx && commit) {
    tx.commitSent = true;
    tx.committing();
  }
  stream.cork?.();
  try {
    if (tx?.beginPending) {
      tx.beginPending = false;
      sent.push(client.query("BEGIN"));
    }
    for (const s of statements) sent.push(client.query(s));
    if (commit) sent.push(client.query("COMMIT"));
  } finally {
    stream.uncork?.();
  }
  const answers = await Promise.all(sent);
  const end = answers.length - (commit ? 1 : 0);
  return answers.slice(end - statements.length, end);
}

/** Runs statements in order on our transaction's connection, or on one connection of the pool. */
async function onOneConnection(on: PgTx | pg.Pool, statements: pg.QueryConfig[], last = false): Promise<Result<unknown>[]> {
  if (isPgTx(on)) {
    if (on.commitSent) throw new Error("istruzione dopo il COMMIT dell'unità di lavoro: rowsThenCommit va usata solo per l'ultima");
    const commit = last && on.commitWithLast;
    if (statements.length === 1 && !on.beginPending && !commit) return [await on.client.query(statements[0]!)];
    return sendTogether(on.client, on, statements, commit);
  }
  if (statements.length === 1) return [await on.query(statements[0]!)];
  const client = await on.connect();
  try {
    const answers = await sendTogether(client, undefined, statements);
    client.release();
    return answers;
  } catch (e) {
    // As pool.query does: a connection that failed a statement is not reused.
    client.release(e as Error);
    throw e;
  }
}

async function pgQuery<Row>(on: PgTx | pg.Pool, q: Query<Row>): Promise<Result<Row>> {
  return (await onOneConnection(on, [statementOf(q, named(on))]))[0] as Result<Row>;
}

/** Every row of a query. */
export async function rows<Row>(db: Db, q: Query<Row>): Promise<Row[]> {
  const on = onPg(db);
  if (on) return (await pgQuery(on, q)).rows;
  return (db as Prisma.TransactionClient).$queryRaw<Row[]>(q.sql);
}

/**
 * The rows of several statements, each run after the one before it has finished, all sent in one write:
 * one round trip instead of one each. For a list's sync bound and its page (lists.ts boundAndRows), which
 * must be read in that order, each as of its own start; and for reads that do not depend on each other's
 * answers (the arrival search's order, row, arrivals and totals).
 */
export async function rowsInOrder<T extends unknown[]>(
  db: Db,
  ...qs: { [K in keyof T]: Query<T[K]> }
): Promise<{ [K in keyof T]: T[K][] }> {
  return (await rowsOfEach(db, qs, false)) as { [K in keyof T]: T[K][] };
}

/**
 * The rows of the unit of work's last statements, as rowsInOrder. On our transaction (PgTx) its COMMIT
 * goes out in the same write, unless the unit's owner still has statements to run (the Idempotency-Key
 * record): a write that ends this way costs one round trip less. Nothing that can fail may follow them
 * in the work: the transaction has committed when the rows come back. Elsewhere it is `rowsInOrder`.
 */
export async function rowsThenCommit<T extends unknown[]>(
  db: Db,
  ...qs: { [K in keyof T]: Query<T[K]> }
): Promise<{ [K in keyof T]: T[K][] }> {
  return (await rowsOfEach(db, qs, true)) as { [K in keyof T]: T[K][] };
}

/** rowsInOrder and rowsThenCommit: on pg in one write (`last`: with the COMMIT), in a Prisma transaction one by one. */
async function rowsOfEach(db: Db, qs: Query<unknown>[], last: boolean): Promise<unknown[][]> {
  const on = onPg(db);
  if (on)
    return (
      await onOneConnection(
        on,
        qs.map((q) => statementOf(q, named(on))),
        last,
      )
    ).map((r) => r.rows);
  const out: unknown[][] = [];
  for (const q of qs) out.push(await rows(db, q));
  return out;
}

/**
 * Runs `work` on a unit of work whose owner still has statements to run after it (the Idempotency-Key
 * record): a statement the work marks as its last (rowsThenCommit) does not carry the COMMIT.
 */
export async function holdingCommit<T>(db: Db, work: () => Promise<T>): Promise<T> {
  if (!isPgTx(db)) return work();
  const before = db.commitWithLast;
  db.commitWithLast = false;
  try {
    return await work();
  } finally {
    db.commitWithLast = before;
  }
}

/** The first row of a query, if any. */
export async function first<Row>(db: Db, q: Query<Row>): Promise<Row | undefined> {
  return (await rows(db, q))[0];
}

/** A statement run for its effect: the number of rows it touched. */
export async function execute(db: Db, q: Query<unknown>): Promise<number> {
  const on = onPg(db);
  if (on) return (await pgQuery(on, q)).rowCount ?? 0;
  return (db as Prisma.TransactionClient).$executeRaw(q.sql);
}
