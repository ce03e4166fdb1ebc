import { describe, expect, test } from "vitest";
import { closePrisma, connectionSettings, createPrisma, GENERIC_PLANS, Prisma, settingsForPooler, statementName } from "./client";

describe("prepared statement names", () => {
  test("one name per statement text, the same on every call", () => {
    const a = statementName({ sql: "SELECT $1::int AS x", args: [1] });
    expect(a).toMatch(/^b[0-9a-f]{24}$/);
    expect(statementName({ sql: "SELECT $1::int AS x", args: [2] })).toBe(a);
    expect(statementName({ sql: "SELECT $1::int AS y", args: [1] })).not.toBe(a);
  });

  test("statements with many parameters (texts that vary with the data) are not prepared", () => {
    const args = Array.from({ length: 65 }, (_, i) => i);
    expect(statementName({ sql: `INSERT INTO t VALUES ${args.map((_, i) => `($${i + 1})`).join(",")}`, args })).toBe("");
  });

  test("a statement carrying a long array is not prepared: it is planned for its size", () => {
    const sql = "SELECT * FROM unnest($1::int[]) AS t(id)";
    expect(statementName({ sql, args: [Array.from({ length: 100 }, (_, i) => i)] })).toMatch(/^b/);
    expect(statementName({ sql, args: [Array.from({ length: 101 }, (_, i) => i)] })).toBe("");
  });

  test("past 2,000 distinct statements the rest run unprepared: nothing grows without bound", () => {
    const names = Array.from({ length: 2_100 }, (_, i) => statementName({ sql: `SELECT ${i} AS n`, args: [] }));
    expect(names.filter((n) => n === "").length).toBeGreaterThanOrEqual(100);
    expect(new Set(names.filter((n) => n !== "")).size).toBeLessThanOrEqual(2_000);
  });
});

describe("the service's connections", () => {
  test("run prepared statements on their cached generic plan, arrays included", async () => {
    const { createTestDb } = await import("../testing/db");
    const t = await createTestDb();
    try {
      const [mode] = await t.prisma.$queryRaw<{ m: string }[]>`SELECT current_setting('plan_cache_mode') AS m`;
      expect(mode!.m).toBe("force_generic_plan");
      // The same array statement, run more times than auto mode's five custom plans, answers for each array.
      for (let i = 1; i <= 8; i++) {
        const rows = await t.prisma.$queryRaw<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM unnest(${Array.from({ length: i }, (_, j) => j)}::int[])`;
        expect(rows[0]!.n).toBe(i);
      }
    } finally {
      await t.drop();
    }
  });

  test("an `options` parameter in DATABASE_URL adds to the generic-plan setting instead of replacing it", async () => {
    const { createTestDb } = await import("../testing/db");
    const t = await createTestDb();
    const url = new URL(t.url);
    url.searchParams.set("options", "-c statement_timeout=12345 -c application_name=banchina_prova");
    const prisma = createPrisma(url.toString(), 1);
    try {
      const [s] = await prisma.$queryRaw<{ mode: string; timeout: string; app: string }[]>`
        SELECT current_setting('plan_cache_mode') AS mode, current_setting('statement_timeout') AS timeout,
               current_setting('application_name') AS app`;
      expect(s).toEqual({ mode: "force_generic_plan", timeout: "12345ms", app: "banchina_prova" });
      // The URL's own -c settings come last, so an explicit plan_cache_mode there still wins.
      expect(connectionSettings("postgresql://u@h/db?options=-c%20plan_cache_mode%3Dauto").options).toBe(
        `${GENERIC_PLANS} -c plan_cache_mode=auto`,
      );
      expect(connectionSettings("postgresql://u@h/db?sslmode=disable")).toEqual({
        connectionString: "postgresql://u@h/db?sslmode=disable",
        options: GENERIC_PLANS,
      });
    } finally {
      await closePrisma(prisma);
      await t.drop();
    }
  });
});

describe("the service's connections through PgBouncer in transaction mode", () => {
  test("carry the generic-plan setting from the role, and no statement is prepared by name", async () => {
    const { createTestDb } = await import("../testing/db");
    const { startPgBouncer } = await import("../testing/pgbouncer");
    const { query, rows } = await import("./sql");
    const { inTransaction } = await import("./transaction");
    const t = await createTestDb();
    // Two server connections for eight clients: each client's statements land on either.
    const bouncer = await startPgBouncer(t.url, { poolSize: 2 });
    const logs: string[] = [];
    await settingsForPooler(t.url, (m) => logs.push(m));
    await settingsForPooler(t.url, (m) => logs.push(m));
    // Set once; the second start finds it in place.
    expect(logs).toEqual([
      `Pooler: plan_cache_mode=force_generic_plan impostato per il ruolo ${new URL(t.url).username} nel database ${t.name}.`,
    ]);
    const prisma = createPrisma(bouncer.url(t.url), 8, { pooler: true });
    try {
      const setting = query<{ mode: string; prepared: number }>(
        Prisma.sql`SELECT current_setting('plan_cache_mode') AS mode, (SELECT count(*)::int FROM pg_prepared_statements) AS prepared
                     FROM unnest(${[1, 2]}::int[]) LIMIT 1`,
      );
      // The same statements, many at once, more times than auto mode's five custom plans: had any been
      // named, a server connection would lack it or hold it already ("prepared statement … does not exist").
      const seen = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const [viaPg] = await rows(prisma, setting);
          const [viaPrisma] = await prisma.$queryRaw<
            { n: number }[]
          >`SELECT count(*)::int AS n FROM unnest(${Array.from({ length: (i % 7) + 1 }, (_, j) => j)}::int[])`;
          const inTx = await inTransaction(prisma, async (tx) => (await rows(tx, setting))[0]);
          expect(viaPrisma!.n).toBe((i % 7) + 1);
          return [viaPg!, inTx!];
        }),
      );
      for (const s of seen.flat()) expect(s).toEqual({ mode: "force_generic_plan", prepared: 0 });

      // A one-row movement through the service: the same two round trips as on PostgreSQL directly
      // (movements-write.test.ts), each statement parsed under no name.
      const { poolOf, setDb } = await import("./client");
      const { rest, seedArticle, seedKey, seedWarehouse } = await import("../testing/fixtures");
      const { parsedNamesIn, simpleQueriesIn, statementsIn, writesDuring } = await import("../testing/wire");
      const m1 = await seedWarehouse(t.prisma, "M1");
      await seedArticle(t.prisma, "VITE-M6");
      const { chiave } = await seedKey(t.prisma);
      setDb(prisma);
      try {
        const { answer, writes } = await writesDuring(poolOf(prisma)!, () =>
          rest("POST", "/movimenti", {
            key: chiave,
            body: { natura: "carico", magazzino: m1.id, righe: [{ codice: "VITE-M6", quantita: 1 }] },
          }),
        );
        expect(answer.body.scritte, JSON.stringify(answer.body)).toBe(1);
        const unit = writes.slice(-2);
        expect(simpleQueriesIn(unit[0]!)).toEqual(["BEGIN"]);
        expect(statementsIn(unit[0]!)).toBe(1);
        // The ledger append and the uncovering of reservations after it (ledger/uncover.ts), then COMMIT.
        expect(statementsIn(unit[1]!)).toBe(2);
        expect(simpleQueriesIn(unit[1]!)).toEqual(["COMMIT"]);
        const names = writes.flatMap(parsedNamesIn);
        expect(names.length).toBeGreaterThanOrEqual(2);
        expect(new Set(names)).toEqual(new Set([""]));
      } finally {
        setDb(t.prisma);
      }
      const servers = await bouncer.admin<{ database: string }>("SHOW SERVERS");
      expect(servers.filter((s) => s.database === t.name).length).toBeLessThanOrEqual(2);
    } finally {
      await closePrisma(prisma);
      await bouncer.stop();
      await t.drop();
    }
  });

  test("a role that may not set its default: the start goes on, saying what an administrator can run", async () => {
    const { createTestDb } = await import("../testing/db");
    const t = await createTestDb();
    try {
      const readOnly = new URL(t.url);
      readOnly.searchParams.set("options", "-c default_transaction_read_only=on");
      const logs: string[] = [];
      await settingsForPooler(readOnly.toString(), (m) => logs.push(m));
      expect(logs).toHaveLength(1);
      expect(logs[0]).toContain("impossibile impostare plan_cache_mode=force_generic_plan");
      expect(logs[0]).toContain(`ALTER ROLE "${new URL(t.url).username}" IN DATABASE "${t.name}" SET plan_cache_mode=force_generic_plan;`);
    } finally {
      await t.drop();
    }
  });
});
