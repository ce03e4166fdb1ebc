import { describe, expect, test } from "vitest";
import { getConfig } from "./config";

describe("DATABASE_DIRECT_URL", () => {
  test("names PostgreSQL behind the pooler of DATABASE_URL; alone it is refused at start", () => {
    const env = { DATABASE_URL: "postgres://u:p@pgbouncer:6432/banchina", DATABASE_DIRECT_URL: "postgres://u:p@db:5432/banchina" };
    expect(getConfig(env as NodeJS.ProcessEnv).DATABASE_DIRECT_URL).toBe(env.DATABASE_DIRECT_URL);
    expect(getConfig({ DATABASE_URL: env.DATABASE_URL } as NodeJS.ProcessEnv).DATABASE_DIRECT_URL).toBeUndefined();
    expect(() => getConfig({ DATABASE_DIRECT_URL: env.DATABASE_DIRECT_URL } as NodeJS.ProcessEnv)).toThrow(
      "DATABASE_DIRECT_URL: vale solo insieme a DATABASE_URL",
    );
    expect(() => getConfig({ ...env, DATABASE_DIRECT_URL: "mysql://db/banchina" } as NodeJS.ProcessEnv)).toThrow(
      "DATABASE_DIRECT_URL: deve iniziare con postgres:// o postgresql://",
    );
  });
});
