import { expect } from "vitest";
import type { TestDb } from "../testing/db";
import { rest, seedKey } from "../testing/fixtures";
import { stockSnapshot } from "../testing/locations";
import { test } from "../testing/test";

/**
 * docs/api.md section 1 and the OpenAPI document: a POST the document draws without a request body takes no
 * body, an empty one or `{}` alike (the procedure then answers on its path alone), and a body that names
 * a field is still that field's refusal. Walked over the document, so a new bodiless POST is covered too.
 */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db }) => {
  t = db;
  key = (await seedKey(t.prisma, ["lettura", "scrittura", "webhook"])).chiave;
});

/** A well-formed SSCC that no notice announces (check digit 1). */
const UNKNOWN_SSCC = "080012340000000011";

function bodilessPosts(doc: any): string[] {
  return Object.entries<any>(doc.paths)
    .filter(([, item]) => item.post && item.post.requestBody === undefined)
    .map(([path]) => path);
}

const written = async () => {
  const { rows } = await t.pool.query(
    "SELECT (SELECT count(*) FROM operazioni) || '|' || (SELECT count(*) FROM idempotenza) || '|' || (SELECT count(*) FROM registro_amministrativo) AS s",
  );
  return `${rows[0].s}|${await stockSnapshot(t)}`;
};

test("every POST the document declares bodiless answers alike with no body, an empty body and {}", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  const paths = bodilessPosts(doc);
  expect(paths).toEqual(expect.arrayContaining(["/arrivi/{id}/annulla", "/colli/{sscc}/annulla"]));
  for (const documented of paths) {
    const path = documented.replace("{sscc}", UNKNOWN_SSCC).replace(/\{\w+\}/g, "999999");
    const before = await written();
    const none = await rest("POST", path, { key });
    const empty = await rest("POST", path, { key, rawBody: "", headers: { "content-type": "application/json" } });
    const braces = await rest("POST", path, { key, body: {} });
    // The procedure answered, on its path alone: the target is unknown, never a fault of the body.
    expect(none.status, documented).toBeGreaterThanOrEqual(404);
    expect(["json_non_valido", "tipo_contenuto_non_supportato", "richiesta_non_valida"], documented).not.toContain(none.body.codice);
    expect([empty.status, empty.body.codice], `${documented} empty`).toEqual([none.status, none.body.codice]);
    expect([braces.status, braces.body.codice], `${documented} {}`).toEqual([none.status, none.body.codice]);
    const extra = await rest("POST", path, { key, body: { nota: "x" } });
    expect([extra.status, extra.body.codice, extra.body.campo], `${documented} with a field`).toEqual([
      422,
      "richiesta_non_valida",
      "nota",
    ]);
    expect(await written(), documented).toBe(before);
  }
});

test("a body that is not a JSON object is still json_non_valido on a bodiless POST, and another content type 415", async () => {
  const before = await written();
  const path = `/colli/${UNKNOWN_SSCC}/annulla`;
  const array = await rest("POST", path, { key, rawBody: "[]", headers: { "content-type": "application/json" } });
  expect([array.status, array.body.codice]).toEqual([400, "json_non_valido"]);
  const text = await rest("POST", path, { key, rawBody: "", headers: { "content-type": "text/plain" } });
  expect([text.status, text.body.codice]).toEqual([415, "tipo_contenuto_non_supportato"]);
  expect(await written()).toBe(before);
});
