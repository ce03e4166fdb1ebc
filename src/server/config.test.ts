import { describe, expect, test } from "vitest";
import { getConfig } from "./config";

const configOf = (env: Record<string, string>) => getConfig(env as unknown as NodeJS.ProcessEnv);

describe("DATABASE_DIRECT_URL", () => {
  test("names PostgreSQL behind the pooler of DATABASE_URL; alone it is refused at start", () => {
    const env = { DATABASE_URL: "postgres://u:p@pgbouncer:6432/banchina", DATABASE_DIRECT_URL: "postgres://u:p@db:5432/banchina" };
    expect(configOf(env).DATABASE_DIRECT_URL).toBe(env.DATABASE_DIRECT_URL);
    expect(configOf({ DATABASE_URL: env.DATABASE_URL }).DATABASE_DIRECT_URL).toBeUndefined();
    expect(() => configOf({ DATABASE_DIRECT_URL: env.DATABASE_DIRECT_URL })).toThrow(
      "DATABASE_DIRECT_URL: vale solo insieme a DATABASE_URL",
    );
    expect(() => configOf({ ...env, DATABASE_DIRECT_URL: "mysql://db/banchina" })).toThrow(
      "DATABASE_DIRECT_URL: deve iniziare con postgres:// o postgresql://",
    );
  });
});
