import { describe, expect, test } from "vitest";
import { closePrisma, connectionSettings, createPrisma, GENERIC_PLANS, statementName } from "./client";

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
