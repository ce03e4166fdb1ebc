import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedKey } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * What the webhook REST test files share (webhooks-rest-refusals, webhooks-rest-manage, webhooks-rest-delete-replay):
 * the keys of one file's database and the request and assertion helpers. The bindings are filled by the
 * `test.beforeAll` that `seedWebhookKeysBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let hook: { id: number; chiave: string };
export let other: { id: number; chiave: string };
export let writer: string;
export let hookOnly: string;

// A documentation range (TEST-NET-3): public, and no name to resolve.
export const URL_ERP = "https://203.0.113.10/banchina/eventi";
export const BODY_OF_RECEIVER = "pagina interna: 10.0.0.7 admin";

/** Registers the file's keys: two with lettura and webhook (`hook`, `other`), a lettura + scrittura one, a webhook-only one. */
export function seedWebhookKeysBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    hook = await seedKey(t.prisma, ["lettura", "webhook"]);
    other = await seedKey(t.prisma, ["lettura", "webhook"]);
    writer = (await seedKey(t.prisma, ["lettura", "scrittura"])).chiave;
    hookOnly = (await seedKey(t.prisma, ["webhook"])).chiave;
  });
}

/** Everything a webhook request could write: endpoints, deliveries, attempts, the administrative log, stored responses. */
async function snapshot() {
  const { rows } = await t.pool.query(`
    SELECT (SELECT coalesce(json_agg(w ORDER BY w.id), '[]') FROM webhook_endpoint w) AS endpoint,
           (SELECT count(*)::int FROM webhook_consegne) AS consegne,
           (SELECT count(*)::int FROM webhook_tentativi) AS tentativi,
           (SELECT count(*)::int FROM registro_amministrativo) AS registro,
           (SELECT count(*)::int FROM idempotenza) AS idempotenza`);
  return rows[0];
}

export async function expectNothingWritten<T>(fn: () => Promise<T>): Promise<T> {
  const before = await snapshot();
  const r = await fn();
  expect(await snapshot()).toEqual(before);
  return r;
}

// biome-ignore lint/suspicious/noExplicitAny: the body is JSON read by the assertions, as the tests read every body.
export function expectError(r: { status: number; body: any }, status: number, codice: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.codice).toBe(codice);
  expect(r.body.messaggio.length).toBeGreaterThan(10);
}

export const create = (body: unknown, key = hook.chiave, headers: Record<string, string> = {}) =>
  rest("POST", "/webhook", { key, body, headers });
