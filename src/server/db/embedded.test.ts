import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { startEmbedded, type EmbeddedServer } from "./embedded";

const started: { server: EmbeddedServer; dir: string }[] = [];
afterAll(async () => {
  for (const { server, dir } of started) {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A fresh directory the `postgres` user can enter (PostgreSQL runs as it when the tests run as root). */
function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  return dir;
}

async function start(dir: string) {
  const server = await startEmbedded({ dataDir: dir, mode: "own", log: () => {} });
  started.push({ server, dir });
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    const [row] = (
      await client.query<{ unix: boolean; cache: string }>(
        "SELECT inet_server_addr() IS NULL AS unix, pg_size_bytes(current_setting('shared_buffers'))::text AS cache",
      )
    ).rows;
    return { url: server.url, unix: row!.unix, cache: Number(row!.cache) };
  } finally {
    await client.end();
  }
}

describe("embedded PostgreSQL connection", () => {
  test("over the Unix socket in the data directory", async () => {
    const dir = tempDir("bnc-sock-");
    const { url, unix } = await start(dir);
    expect(new URL(url).searchParams.get("host")).toBe(path.join(dir, "pg"));
    expect(unix).toBe(true);
  });

  test("over TCP when the data directory's path is too long for a socket name", async () => {
    const base = tempDir("bnc-tcp-");
    const dir = path.join(base, "una-cartella-dal-nome-molto-lungo-".repeat(3), "dati");
    const { url, unix } = await start(dir);
    expect(new URL(url).searchParams.get("host")).toBeNull();
    expect(unix).toBe(false);
    started.at(-1)!.dir = base;
  });
});

test("its cache is sized to the machine: an eighth of the memory, from PostgreSQL's 128 MB to 4 GB", async () => {
  const { cache } = await start(tempDir("bnc-cache-"));
  const MB = 2 ** 20;
  const eighth = Math.min(4096 * MB, Math.max(128 * MB, os.totalmem() / 8));
  // Whole megabytes, rounded down.
  expect(cache).toBeGreaterThan(eighth - MB);
  expect(cache).toBeLessThanOrEqual(eighth);
});
