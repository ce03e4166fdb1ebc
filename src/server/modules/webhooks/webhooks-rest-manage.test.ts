import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect } from "vitest";
import { getConfig } from "../../config";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import {
  BODY_OF_RECEIVER,
  create,
  expectError,
  expectNothingWritten,
  hook,
  other,
  seedWebhookKeysBeforeAll,
  t,
  URL_ERP,
} from "./webhooks-rest-testing";
import { lastAudit, supplierEvent } from "./webhooks-testing";
import { startWebhookWorker, webhookSettings } from "./worker";

/**
 * Webhook endpoints by REST (docs/api.md section 10), made, read and changed by the key that owns them; no answer
 * carries a receiver's answer body.
 */

seedWebhookKeysBeforeAll();

describe("create, read, change", () => {
  let id: number;

  test("POST /webhook: 201 with the secret once, the key as owner, the settings, the administrative log", async () => {
    const r = await create({
      url: URL_ERP,
      eventi: ["fornitore.modificato", "movimenti.registrati"],
      eventi_per_richiesta: 25,
      consegna: "parallela",
      descrizione: "Gestionale",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.segreto).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(r.body.webhook).toMatchObject({
      url: URL_ERP,
      descrizione: "Gestionale",
      eventi: ["fornitore.modificato", "movimenti.registrati"],
      eventi_per_richiesta: 25,
      consegna: "parallela",
      attivo: true,
      disattivato_il: null,
      in_attesa: 0,
      fallite: 0,
      ritardo_s: null,
      eventi_al_secondo: 0,
      salto: null,
      ultimo_errore: null,
      ultimi_tentativi: [],
    });
    id = r.body.webhook.id;
    const row = (await t.pool.query("SELECT chiave_id, segreto, eventi_per_richiesta, consegna FROM webhook_endpoint WHERE id = $1", [id]))
      .rows[0];
    expect(row).toEqual({ chiave_id: hook.id, segreto: r.body.segreto, eventi_per_richiesta: 25, consegna: "parallela" });
    expect(await lastAudit(t.pool)).toMatchObject({ autore_tipo: "chiave", autore_id: hook.id, azione: "webhook.creato", oggetto_id: id });
  });

  test("defaults: 1 event per request, ordered", async () => {
    const r = await create({ url: `${URL_ERP}/2`, eventi: ["arrivo.registrato"] });
    expect(r.status).toBe(201);
    expect(r.body.webhook).toMatchObject({ eventi_per_richiesta: 1, consegna: "ordinata" });
    expect((await rest("DELETE", `/webhook/${r.body.webhook.id}`, { key: hook.chiave })).status).toBe(200);
  });

  test("GET /webhook lists the key's own endpoints, never the secret; GET /webhook/{id} shows one", async () => {
    const list = await rest("GET", "/webhook", { key: hook.chiave });
    expect(list.status).toBe(200);
    expect(list.body.webhook.map((w: any) => w.id)).toEqual([id]);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    const one = await rest("GET", `/webhook/${id}`, { key: hook.chiave });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id, url: URL_ERP, ultimi_tentativi: [] });
    expect(JSON.stringify(one.body)).not.toContain("whsec_");
    // The other key sees none of them.
    expect((await rest("GET", "/webhook", { key: other.chiave })).body).toEqual({ webhook: [] });
  });

  test("lag counts events not yet copied into deliveries; the rate counts events delivered in the last minute", async () => {
    await t.pool.query("UPDATE webhook_endpoint SET cursore = (SELECT coalesce(max(id), 0) FROM eventi) WHERE id = $1", [id]);
    const seq = await supplierEvent(t.pool, "WH-LAG");
    // Events are append-only: the lag is the age of this one, not yet copied into a delivery.
    const lagging = (await rest("GET", `/webhook/${id}`, { key: hook.chiave })).body;
    expect(lagging.ritardo_s).toBeGreaterThanOrEqual(0);
    expect(lagging.in_attesa).toBe(1);
    // As a worker leaves it: copied, delivered just now.
    await t.pool.query("UPDATE webhook_endpoint SET cursore = $2 WHERE id = $1", [id, seq]);
    await t.pool.query(
      "INSERT INTO webhook_consegne (endpoint_id, evento_id, stato, tentativi, concluso_il) VALUES ($1, $2, 'consegnata', 1, now())",
      [id, seq],
    );
    const done = (await rest("GET", `/webhook/${id}`, { key: hook.chiave })).body;
    expect(done.ritardo_s).toBeNull();
    expect(done.in_attesa).toBe(0);
    expect(done.eventi_al_secondo).toBe(Math.round((1 / 60) * 1000) / 1000);
  });

  test("no REST answer carries the receiver's answer body: attempts show status and duration only", async () => {
    const seq = await supplierEvent(t.pool, "WH-BODY");
    const { rows } = await t.pool.query(
      "INSERT INTO webhook_consegne (endpoint_id, evento_id, tentativi) VALUES ($1, $2, 1) RETURNING id",
      [id, seq],
    );
    // As the worker logs an attempt whose receiver answered 500 with a body (the first kilobyte is kept).
    await t.pool.query(
      `INSERT INTO webhook_tentativi (consegna_id, endpoint_id, iniziato_il, durata_ms, stato_http, esito, risposta)
       VALUES ($1, $2, now(), 37, 500, 'rifiutato', $3)`,
      [rows[0].id, id, BODY_OF_RECEIVER],
    );
    const answers = [
      await rest("GET", "/webhook", { key: hook.chiave }),
      await rest("GET", `/webhook/${id}`, { key: hook.chiave }),
      await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { eventi_per_richiesta: 30 } }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.stringify(a.body)).not.toContain("10.0.0.7");
      expect(JSON.stringify(a.body)).not.toContain("risposta");
    }
    expect(answers[1]!.body.ultimi_tentativi).toEqual([
      { id: expect.any(Number), sequenza: seq, iniziato_il: expect.any(String), durata_ms: 37, stato_http: 500, esito: "rifiutato" },
    ]);
    expect(answers[1]!.body.ultimo_errore).toEqual({ il: expect.any(String), stato_http: 500, esito: "rifiutato" });
    // The administrator's screen still shows it.
    const { caller } = await import("../../testing/fixtures");
    const admin = caller(t, { kind: "utente", id: 1, username: "admin", ruolo: "amministratore" }, "trpc");
    const screen = await admin.webhooks.list();
    expect(screen.endpoint.find((e) => e.id === id)?.ultimo_errore?.risposta).toBe(BODY_OF_RECEIVER);
    expect(screen.endpoint.find((e) => e.id === id)?.creato_da).toEqual({ tipo: "chiave", nome: "test-lettura-webhook" });
  });

  test("the same through the delivery worker and a receiver that answers 500 with a body", async () => {
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(500, { "content-type": "text/plain" }).end(BODY_OF_RECEIVER));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const local = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const own = (await create({ url: `${URL_ERP}/vero`, eventi: ["fornitore.modificato"] })).body.webhook.id as number;
    // REST refuses a loopback address (as it should): the row is pointed at the receiver directly.
    await t.pool.query("UPDATE webhook_endpoint SET url = $2 WHERE id = $1", [own, local]);
    await supplierEvent(t.pool, "WH-VERO");
    const worker = startWebhookWorker(
      t.prisma,
      t.url,
      { ...webhookSettings(getConfig()), workers: 1, allowPrivate: true, backoffBaseMs: 60_000, backoffMaxMs: 60_000 },
      () => {},
    );
    try {
      const logged = async () =>
        (await t.pool.query("SELECT risposta FROM webhook_tentativi WHERE endpoint_id = $1", [own])).rows as { risposta: string }[];
      for (let i = 0; i < 300 && (await logged()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await logged())[0]?.risposta).toContain(BODY_OF_RECEIVER);
    } finally {
      await worker.stop();
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
    for (const a of [await rest("GET", "/webhook", { key: hook.chiave }), await rest("GET", `/webhook/${own}`, { key: hook.chiave })]) {
      expect(a.status).toBe(200);
      expect(JSON.stringify(a.body)).not.toContain("10.0.0.7");
    }
    const detail = (await rest("GET", `/webhook/${own}`, { key: hook.chiave })).body;
    expect(detail.ultimi_tentativi[0]).toMatchObject({ stato_http: 500, esito: "rifiutato", durata_ms: expect.any(Number) });
    expect(Object.keys(detail.ultimi_tentativi[0]).sort()).toEqual(["durata_ms", "esito", "id", "iniziato_il", "sequenza", "stato_http"]);
    expect((await rest("DELETE", `/webhook/${own}`, { key: hook.chiave })).status).toBe(200);
  });

  test("PATCH changes only the fields sent, logs it, and answers the endpoint", async () => {
    const r = await rest("PATCH", `/webhook/${id}`, {
      key: hook.chiave,
      body: { eventi: ["arrivo.registrato"], eventi_per_richiesta: 100, consegna: "ordinata" },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ id, url: URL_ERP, descrizione: "Gestionale", eventi: ["arrivo.registrato"], eventi_per_richiesta: 100 });
    expect(r.body.consegna).toBe("ordinata");
    expect(await lastAudit(t.pool)).toMatchObject({ autore_tipo: "chiave", azione: "webhook.modificato", oggetto_id: id });
    const off = await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } });
    expect(off.body).toMatchObject({ attivo: false, disattivato_il: expect.any(String), eventi_per_richiesta: 100 });
    expect(await lastAudit(t.pool)).toMatchObject({ azione: "webhook.disattivato", oggetto_id: id });
    const on = await rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body: { attivo: true } });
    expect(on.body).toMatchObject({ attivo: true, disattivato_il: null, salto: null });
  });

  test("refusals of a PATCH: 422 for a bad value, an unknown field or nothing to change; 400/415 for a body that is not JSON", async () => {
    for (const body of [
      {},
      { eventi_per_richiesta: 0 },
      { eventi_per_richiesta: 101 },
      { eventi_per_richiesta: 2.5 },
      { eventi_per_richiesta: "10" },
      { consegna: "veloce" },
      { eventi: [] },
      { eventi: ["ordine.creato"] },
      { attivo: "no" },
      { url: "https://203.0.113.11/" },
    ]) {
      const r = await expectNothingWritten(() => rest("PATCH", `/webhook/${id}`, { key: hook.chiave, body }));
      expectError(r, 422, "richiesta_non_valida");
    }
    const text = await expectNothingWritten(() =>
      rest("PATCH", `/webhook/${id}`, { key: hook.chiave, rawBody: "attivo=false", headers: { "content-type": "text/plain" } }),
    );
    expectError(text, 415, "tipo_contenuto_non_supportato");
    for (const raw of ["", "[1]", "{attivo:"]) {
      const r = await expectNothingWritten(() =>
        rest("PATCH", `/webhook/${id}`, { key: hook.chiave, rawBody: raw, headers: { "content-type": "application/json" } }),
      );
      expectError(r, 400, "json_non_valido");
    }
  });

  test("405 for a method the path does not have, with Allow", async () => {
    const r = await expectNothingWritten(() => rest("PUT", `/webhook/${id}`, { key: hook.chiave, body: { attivo: false } }));
    expectError(r, 405, "metodo_non_consentito");
    expect(r.headers.get("allow")).toBe("GET, PATCH, DELETE");
  });
});
