import { describe, expect, test } from "vitest";
import { statementName } from "./client";

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

  test("past 2,000 distinct statements the rest run unprepared: nothing grows without bound", () => {
    const names = Array.from({ length: 2_100 }, (_, i) => statementName({ sql: `SELECT ${i} AS n`, args: [] }));
    expect(names.filter((n) => n === "").length).toBeGreaterThanOrEqual(100);
    expect(new Set(names.filter((n) => n !== "")).size).toBeLessThanOrEqual(2_000);
  });
});
