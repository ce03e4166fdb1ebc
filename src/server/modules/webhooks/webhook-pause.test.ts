import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedKey } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { lastAudit, supplierEvent } from "./webhooks-testing";

/**
 * docs/api.md section 10: an endpoint disabled for more than 7 days stops collecting deliveries; enabled again it
 * resumes from then, and GET /webhook/{id} names the skipped range so that `riprova` can fill it. The time
 * of disabling is backdated in the database: nothing waits.
 */

let t: TestDb;
let hook: { id: number; chiave: string };
const URL_ERP = "https://203.0.113.10/banchina/eventi";

test.beforeAll(async ({ db }) => {
  t = db;
  hook = await seedKey(t.prisma, ["lettura", "webhook"]);
});

const create = (body: unknown) => rest("POST", "/webhook", { key: hook.chiave, body });

describe("the 7-day rule", () => {
  test("disabled more than 7 days: enabled again it resumes from now, names the skipped range, and riprova fills it", async () => {
    const id = (await create({ url: `${URL_ERP}/sette`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    expect((await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } })).status).toBe(200);
    const cursor = (await t.pool.query("SELECT cursore FROM webhook_endpoint WHERE id = $1", [id])).rows[0].cursore as number;
    const missed = [await supplierEvent(t.pool, "WH-7-A"), await supplierEvent(t.pool, "WH-7-B")];
    await t.pool.query("UPDATE webhook_endpoint SET disattivato_il = now() - interval '8 days' WHERE id = $1", [id]);
    const on = await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    const bound = (await t.pool.query("SELECT cursore FROM webhook_endpoint WHERE id = $1", [id])).rows[0].cursore as number;
    expect(bound).toBeGreaterThanOrEqual(missed[1]!);
    expect(on.body).toMatchObject({ attivo: true, disattivato_il: null, salto: { da: cursor + 1, a: bound }, ritardo_s: null });
    expect((await rest("GET", `/webhook/${id}`, { key: hook.chiave })).body.salto).toEqual({ da: cursor + 1, a: bound });
    expect(await lastAudit(t.pool)).toMatchObject({ azione: "webhook.riattivato", dettagli: expect.stringContaining("7 giorni") });
    // Nothing of the skipped range was collected.
    expect((await t.pool.query("SELECT count(*)::int AS n FROM webhook_consegne WHERE endpoint_id = $1", [id])).rows[0].n).toBe(0);
    const filled = await rest("POST", `/webhook/${id}/riprova`, { key: hook.chiave, body: { da: cursor + 1 } });
    expect(filled.body).toEqual({ riaccodate: 2 });
    const { rows } = await t.pool.query("SELECT evento_id FROM webhook_consegne WHERE endpoint_id = $1 ORDER BY evento_id", [id]);
    expect(rows.map((r) => r.evento_id)).toEqual(missed);
    expect((await rest("GET", `/webhook/${id}`, { key: hook.chiave })).body.salto).toBeNull();
  });

  test("disabled 7 days or less: enabled again it resumes where it stopped (nothing skipped)", async () => {
    const id = (await create({ url: `${URL_ERP}/sei`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } });
    const cursor = (await t.pool.query("SELECT cursore FROM webhook_endpoint WHERE id = $1", [id])).rows[0].cursore as number;
    await supplierEvent(t.pool, "WH-6-A");
    await t.pool.query("UPDATE webhook_endpoint SET disattivato_il = now() - interval '6 days 23 hours' WHERE id = $1", [id]);
    const on = await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: true } });
    expect(on.body).toMatchObject({ attivo: true, salto: null });
    expect(on.body.ritardo_s).not.toBeNull();
    expect((await t.pool.query("SELECT cursore FROM webhook_endpoint WHERE id = $1", [id])).rows[0].cursore).toBe(cursor);
  });

  test("disabling an endpoint already disabled keeps its disabling time", async () => {
    const id = (await create({ url: `${URL_ERP}/due-volte`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } });
    await t.pool.query("UPDATE webhook_endpoint SET disattivato_il = now() - interval '3 days' WHERE id = $1", [id]);
    await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } });
    const { rows } = await t.pool.query("SELECT disattivato_il < now() - interval '2 days' AS old FROM webhook_endpoint WHERE id = $1", [
      id,
    ]);
    expect(rows[0].old).toBe(true);
  });
});
