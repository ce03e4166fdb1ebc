import { describe, expect } from "vitest";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { create, expectError, expectNothingWritten, hook, seedWebhookKeysBeforeAll, t, URL_ERP } from "./webhooks-rest-testing";
import { lastAudit, supplierEvent } from "./webhooks-testing";

/** Webhook endpoints by REST (docs/api.md section 10): DELETE and riprova. */

seedWebhookKeysBeforeAll();

describe("delete and replay", () => {
  test("DELETE drops the pending deliveries (with their attempts), keeps the delivered ones, and hides the endpoint everywhere", async () => {
    const id = (await create({ url: `${URL_ERP}/via`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    const a = await supplierEvent(t.pool, "WH-DEL-1");
    const b = await supplierEvent(t.pool, "WH-DEL-2");
    const c = await supplierEvent(t.pool, "WH-DEL-3");
    await t.pool.query("UPDATE webhook_endpoint SET cursore = $2 WHERE id = $1", [id, c]);
    const { rows } = await t.pool.query(
      `INSERT INTO webhook_consegne (endpoint_id, evento_id, stato, tentativi, concluso_il)
       VALUES ($1, $2, 'consegnata', 1, now()), ($1, $3, 'in_attesa', 1, NULL), ($1, $4, 'in_attesa', 0, NULL) RETURNING id`,
      [id, a, b, c],
    );
    await t.pool.query(
      `INSERT INTO webhook_tentativi (consegna_id, endpoint_id, iniziato_il, durata_ms, stato_http, esito)
       VALUES ($1, $3, now(), 5, 200, 'consegnato'), ($2, $3, now(), 5, 503, 'rifiutato')`,
      [rows[0].id, rows[1].id, id],
    );
    const r = await rest("DELETE", `/webhook/${id}`, { key: hook.chiave });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ id, eliminato: true, consegne_scartate: 2 });
    const left = await t.pool.query("SELECT evento_id, stato FROM webhook_consegne WHERE endpoint_id = $1", [id]);
    expect(left.rows).toEqual([{ evento_id: a, stato: "consegnata" }]);
    const row = (await t.pool.query("SELECT attivo, eliminato_il FROM webhook_endpoint WHERE id = $1", [id])).rows[0];
    expect(row).toEqual({ attivo: false, eliminato_il: expect.any(Date) });
    expect(await lastAudit(t.pool)).toMatchObject({ autore_tipo: "chiave", azione: "webhook.eliminato", oggetto_id: id });
    expectError(await rest("GET", `/webhook/${id}`, { key: hook.chiave }), 404, "non_trovato");
    expectError(await rest("DELETE", `/webhook/${id}`, { key: hook.chiave }), 404, "non_trovato");
    expect((await rest("GET", "/webhook", { key: hook.chiave })).body.webhook.map((w: any) => w.id)).not.toContain(id);
    const { caller } = await import("../../testing/fixtures");
    const admin = caller(t, { kind: "utente", id: 1, username: "admin", ruolo: "amministratore" }, "trpc");
    expect((await admin.webhooks.list()).endpoint.map((e) => e.id)).not.toContain(id);
  });

  test("a disabled endpoint counts in in_attesa the events it has not collected; deleting it discards them all", async () => {
    const id = (await create({ url: `${URL_ERP}/ferma`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    expect((await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } })).status).toBe(200);
    const seqs: number[] = [];
    for (let i = 1; i <= 5; i++) seqs.push(await supplierEvent(t.pool, `WH-FERMO-${i}`));
    // The first two as a worker leaves them before the endpoint was disabled: copied, still pending.
    await t.pool.query("UPDATE webhook_endpoint SET cursore = $2 WHERE id = $1", [id, seqs[1]]);
    await t.pool.query("INSERT INTO webhook_consegne (endpoint_id, evento_id) VALUES ($1, $2), ($1, $3)", [id, seqs[0], seqs[1]]);
    const r = await rest("GET", `/webhook/${id}`, { key: hook.chiave });
    expect(r.body).toMatchObject({ attivo: false, in_attesa: 5, fallite: 0 });
    expect(r.body.ritardo_s).toBeGreaterThanOrEqual(0);
    expect((await rest("GET", "/webhook", { key: hook.chiave })).body.webhook.find((w: any) => w.id === id).in_attesa).toBe(5);
    const gone = await rest("DELETE", `/webhook/${id}`, { key: hook.chiave });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(gone.body).toEqual({ id, eliminato: true, consegne_scartate: 5 });
    expect(await lastAudit(t.pool)).toMatchObject({
      azione: "webhook.eliminato",
      oggetto_id: id,
      dettagli: "consegne in attesa scartate: 5",
    });
  });

  test("riprova from a sequence above any issued is 422 cursore_non_valido naming `da`, and changes nothing", async () => {
    const id = (await create({ url: `${URL_ERP}/oltre`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    const seq = await supplierEvent(t.pool, "WH-OLTRE");
    await t.pool.query("UPDATE webhook_endpoint SET cursore = $2 WHERE id = $1", [id, seq]);
    await t.pool.query(
      "INSERT INTO webhook_consegne (endpoint_id, evento_id, stato, tentativi, concluso_il) VALUES ($1, $2, 'consegnata', 1, now())",
      [id, seq],
    );
    const issued = (await t.pool.query("SELECT pg_sequence_last_value('eventi_id_seq'::regclass)::int AS n")).rows[0].n as number;
    for (const da of [issued + 1, 999_999_999]) {
      const r = await expectNothingWritten(() => rest("POST", `/webhook/${id}/riprova`, { key: hook.chiave, body: { da } }));
      expectError(r, 422, "cursore_non_valido");
      expect(r.body.campo).toBe("da");
      expect(r.body.messaggio).toContain(String(issued));
    }
    // The last sequence issued is a valid start: the events from it are queued again.
    const ok = await rest("POST", `/webhook/${id}/riprova`, { key: hook.chiave, body: { da: seq } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ riaccodate: 1 });
  });

  test("a DELETE takes no body and no parameters", async () => {
    const id = (await create({ url: `${URL_ERP}/corpo`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    const withBody = await expectNothingWritten(() => rest("DELETE", `/webhook/${id}`, { key: hook.chiave, body: { forza: true } }));
    expectError(withBody, 422, "richiesta_non_valida");
    const withQuery = await expectNothingWritten(() => rest("DELETE", `/webhook/${id}?forza=true`, { key: hook.chiave }));
    expectError(withQuery, 422, "filtro_non_valido");
    expect((await rest("DELETE", `/webhook/${id}`, { key: hook.chiave, body: {} })).status).toBe(200);
  });

  test("riprova {da} queues the endpoint's events again, and an Idempotency-Key replays its answer", async () => {
    const id = (await create({ url: `${URL_ERP}/riprova`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    const seq = await supplierEvent(t.pool, "WH-RIPROVA");
    await t.pool.query("UPDATE webhook_endpoint SET cursore = $2 WHERE id = $1", [id, seq]);
    await t.pool.query(
      "INSERT INTO webhook_consegne (endpoint_id, evento_id, stato, tentativi, concluso_il) VALUES ($1, $2, 'consegnata', 1, now())",
      [id, seq],
    );
    const first = await rest("POST", `/webhook/${id}/riprova`, {
      key: hook.chiave,
      body: { da: seq },
      headers: { "idempotency-key": "r-1" },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ riaccodate: 1 });
    expect((await t.pool.query("SELECT stato FROM webhook_consegne WHERE endpoint_id = $1", [id])).rows).toEqual([{ stato: "in_attesa" }]);
    expect(await lastAudit(t.pool)).toMatchObject({ autore_tipo: "chiave", azione: "webhook.riconsegna", oggetto_id: id });
    const again = await expectNothingWritten(() =>
      rest("POST", `/webhook/${id}/riprova`, { key: hook.chiave, body: { da: seq }, headers: { "idempotency-key": "r-1" } }),
    );
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual({ riaccodate: 1 });
    for (const body of [{}, { da: 0 }, { da: "1" }, { da: 1, a: 5 }]) {
      expectError(
        await expectNothingWritten(() => rest("POST", `/webhook/${id}/riprova`, { key: hook.chiave, body })),
        422,
        "richiesta_non_valida",
      );
    }
  });
});
