import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect } from "vitest";
import { getConfig } from "../../config";
import type { TestDb } from "../../testing/db";
import { rest, seedKey } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { lastAudit, supplierEvent } from "./webhooks-testing";
import { createEndpoint } from "./webhooks.service";
import { startWebhookWorker, webhookSettings } from "./worker";

/**
 * Webhook endpoints by REST (docs/api.md section 10): a key with `webhook` and `lettura` manages its own, and only
 * its own; every refusal writes nothing; no answer carries a receiver's answer body.
 */

let t: TestDb;
let hook: { id: number; chiave: string };
let other: { id: number; chiave: string };
let writer: string;
let hookOnly: string;

// A documentation range (TEST-NET-3): public, and no name to resolve.
const URL_ERP = "https://203.0.113.10/banchina/eventi";
const BODY_OF_RECEIVER = "pagina interna: 10.0.0.7 admin";

test.beforeAll(async ({ db }) => {
  t = db;
  hook = await seedKey(t.prisma, ["lettura", "webhook"]);
  other = await seedKey(t.prisma, ["lettura", "webhook"]);
  writer = (await seedKey(t.prisma, ["lettura", "scrittura"])).chiave;
  hookOnly = (await seedKey(t.prisma, ["webhook"])).chiave;
});

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

async function expectNothingWritten<T>(fn: () => Promise<T>): Promise<T> {
  const before = await snapshot();
  const r = await fn();
  expect(await snapshot()).toEqual(before);
  return r;
}

function expectError(r: { status: number; body: any }, status: number, codice: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.codice).toBe(codice);
  expect(r.body.messaggio.length).toBeGreaterThan(10);
}

const create = (body: unknown, key = hook.chiave, headers: Record<string, string> = {}) => rest("POST", "/webhook", { key, body, headers });

describe("scopes", () => {
  test("without a key: 401 on every endpoint", async () => {
    for (const [method, path] of [
      ["GET", "/webhook"],
      ["POST", "/webhook"],
      ["GET", "/webhook/1"],
      ["PATCH", "/webhook/1"],
      ["DELETE", "/webhook/1"],
      ["POST", "/webhook/1/riprova"],
    ] as const) {
      const r = await expectNothingWritten(() => rest(method, path, method === "POST" || method === "PATCH" ? { body: { da: 1 } } : {}));
      expectError(r, 401, "non_autenticato");
    }
  });

  test("a key without `webhook` (even lettura + scrittura) is 403 permesso_negato naming the scope; nothing is written", async () => {
    for (const [method, path, body] of [
      ["GET", "/webhook", undefined],
      ["POST", "/webhook", { url: URL_ERP, eventi: ["movimenti.registrati"] }],
      ["GET", "/webhook/1", undefined],
      ["PATCH", "/webhook/1", { attivo: false }],
      ["DELETE", "/webhook/1", undefined],
      ["POST", "/webhook/1/riprova", { da: 1 }],
    ] as const) {
      const r = await expectNothingWritten(() => rest(method, path, { key: writer, body }));
      expectError(r, 403, "permesso_negato");
      expect(r.body.messaggio).toContain("'webhook'");
    }
  });

  test("`webhook` without `lettura` is 403 too: an endpoint receives data", async () => {
    const r = await expectNothingWritten(() => create({ url: URL_ERP, eventi: ["movimenti.registrati"] }, hookOnly));
    expectError(r, 403, "permesso_negato");
    expect(r.body.messaggio).toContain("'lettura'");
    expectError(await rest("GET", "/webhook", { key: hookOnly }), 403, "permesso_negato");
  });

  test("`webhook` is granted only explicitly: scrittura does not imply it, and it implies nothing", async () => {
    const { rows } = await t.pool.query("SELECT permessi FROM chiavi_api ORDER BY id");
    expect(rows.map((r) => r.permessi)).toEqual([["lettura", "webhook"], ["lettura", "webhook"], ["lettura", "scrittura"], ["webhook"]]);
    // A webhook-only key reads nothing else.
    expectError(await rest("GET", "/movimenti", { key: hookOnly }), 403, "permesso_negato");
  });
});

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

describe("refusals of POST /webhook write nothing", () => {
  test.each([
    ["a URL that is not http or https", { url: "ftp://203.0.113.10/x", eventi: ["movimenti.registrati"] }, "url"],
    ["a URL that is no URL", { url: "erp gestionale", eventi: ["movimenti.registrati"] }, "url"],
    ["a missing url", { eventi: ["movimenti.registrati"] }, "url"],
    ["an unknown event type", { url: URL_ERP, eventi: ["ordine.creato"] }, "eventi[0]"],
    ["no event type", { url: URL_ERP, eventi: [] }, "eventi"],
    ["eventi_per_richiesta 0", { url: URL_ERP, eventi: ["movimenti.registrati"], eventi_per_richiesta: 0 }, "eventi_per_richiesta"],
    ["eventi_per_richiesta 101", { url: URL_ERP, eventi: ["movimenti.registrati"], eventi_per_richiesta: 101 }, "eventi_per_richiesta"],
    ["eventi_per_richiesta as text", { url: URL_ERP, eventi: ["movimenti.registrati"], eventi_per_richiesta: "5" }, "eventi_per_richiesta"],
    ["an unknown consegna", { url: URL_ERP, eventi: ["movimenti.registrati"], consegna: "veloce" }, "consegna"],
    ["an unknown field", { url: URL_ERP, eventi: ["movimenti.registrati"], segreto: "whsec_mio" }, "segreto"],
    ["a loopback address", { url: "http://127.0.0.1:9000/hook", eventi: ["movimenti.registrati"] }, "url"],
    ["a private address", { url: "http://192.168.1.20/erp", eventi: ["movimenti.registrati"] }, "url"],
    ["a link-local address", { url: "http://169.254.169.254/latest/meta-data", eventi: ["movimenti.registrati"] }, "url"],
  ])("422 richiesta_non_valida: %s", async (_name, body, campo) => {
    const r = await expectNothingWritten(() => create(body));
    expectError(r, 422, "richiesta_non_valida");
    expect(r.body.campo).toBe(campo);
  });

  test("an Idempotency-Key is refused (a replay would show the secret twice), whatever its value", async () => {
    for (const value of ["crea-1", ""]) {
      const r = await expectNothingWritten(() =>
        create({ url: URL_ERP, eventi: ["movimenti.registrati"] }, hook.chiave, { "idempotency-key": value }),
      );
      expectError(r, 422, "richiesta_non_valida");
      expect(r.body.campo).toBe("Idempotency-Key");
    }
  });

  test("415 and 400 for a body that is not JSON", async () => {
    const r = await expectNothingWritten(() =>
      rest("POST", "/webhook", { key: hook.chiave, rawBody: "url=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
    );
    expectError(r, 415, "tipo_contenuto_non_supportato");
    const bad = await expectNothingWritten(() =>
      rest("POST", "/webhook", { key: hook.chiave, rawBody: "[]", headers: { "content-type": "application/json" } }),
    );
    expectError(bad, 400, "json_non_valido");
  });
});

describe("another's endpoint is 404", () => {
  test("an endpoint of another key, or made on the screen (no key), is 404 non_trovato for every endpoint; nothing is written", async () => {
    const theirs = (await create({ url: `${URL_ERP}/altro`, eventi: ["movimenti.registrati"] }, other.chiave)).body.webhook.id as number;
    const screen = (
      await createEndpoint(
        t.prisma,
        "riga_di_comando",
        { url: `${URL_ERP}/schermo`, eventi: ["movimenti.registrati"] },
        {
          allowPrivate: false,
          timeZone: "Europe/Rome",
        },
      )
    ).endpoint.id;
    for (const target of [theirs, screen, 999_999]) {
      for (const [method, path, body] of [
        ["GET", `/webhook/${target}`, undefined],
        ["PATCH", `/webhook/${target}`, { attivo: false }],
        ["DELETE", `/webhook/${target}`, undefined],
        ["POST", `/webhook/${target}/riprova`, { da: 1 }],
      ] as const) {
        const r = await expectNothingWritten(() => rest(method, path, { key: hook.chiave, body }));
        expectError(r, 404, "non_trovato");
      }
    }
    expect((await rest("GET", "/webhook", { key: hook.chiave })).body.webhook.map((w: any) => w.id)).not.toContain(theirs);
  });
});

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
