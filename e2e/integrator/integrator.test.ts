import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDb, type TestDb } from "../../src/server/testing/db";
import { cleanup, ensureBuild, launch, runCli, type Service } from "../reliability/harness";
import { IntegratorClient, type Keys } from "./client";
import { masterDataAndOrders } from "./master-data";
import { webhooksByRest } from "./webhooks";

/**
 * A new ERP integrator against a fresh service: keys made by an administrator with the CLI, then only the
 * REST contract. Every check is listed in the output; the test fails naming the ones that did not hold.
 */

let t: TestDb;
let service: Service;

beforeAll(async () => {
  await ensureBuild();
  t = await createTestDb();
  service = await launch({ databaseUrl: t.url, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
}, 600_000);

afterAll(async () => {
  await cleanup();
  await t?.drop();
}, 120_000);

async function key(name: string, scopes: string): Promise<string> {
  const r = await runCli(["api-key", "create", "--name", name, "--scopes", scopes], { databaseUrl: t.url });
  if (r.code !== 0) throw new Error(`api-key create ${scopes}: ${r.stderr}`);
  return r.stdout.trim();
}

test("an integrator's client, from the contract alone, passes every check", async () => {
  const keys: Keys = {
    writer: await key("erp", "lettura,scrittura"),
    hooks: await key("erp-webhook", "webhook,lettura"),
    otherHooks: await key("ecommerce-webhook", "webhook,lettura"),
  };
  const c = new IntegratorClient(service.base);
  const ctx = await masterDataAndOrders(c, keys, "I1");
  await webhooksByRest(c, keys, ctx);
  const failed = c.checks.filter((x) => !x.ok);
  console.log(`[integratore] ${c.checks.length - failed.length} di ${c.checks.length} controlli superati`);
  expect(failed).toEqual([]);
}, 240_000);
