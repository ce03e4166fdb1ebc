import { describe, expect } from "vitest";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import {
  create,
  expectError,
  expectNothingWritten,
  hook,
  hookOnly,
  other,
  seedWebhookKeysBeforeAll,
  t,
  URL_ERP,
  writer,
} from "./webhooks-rest-testing";
import { createEndpoint } from "./webhooks.service";

/**
 * Webhook endpoints by REST (docs/api.md section 10), what is refused: without the scopes, a bad POST, another's
 * endpoint; every refusal writes nothing.
 */

seedWebhookKeysBeforeAll();

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
