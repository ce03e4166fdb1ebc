import { expect } from "vitest";
import { rest } from "../testing/fixtures";
import { test } from "../testing/test";
import { seedRestContractBeforeAll } from "./rest-contract-testing";

/** The OpenAPI document: served without a key, every endpoint with the contract's errors, every integer bounded. */

seedRestContractBeforeAll();

test("the OpenAPI document is served without a key and lists every endpoint with the contract's errors", async () => {
  const r = await rest("GET", "/openapi.json");
  expect(r.status).toBe(200);
  expect(Object.keys(r.body.paths).sort()).toEqual(
    [
      "/articoli/{id}/lotti",
      "/clienti",
      "/cursori",
      "/movimenti",
      "/arrivi/cerca",
      "/arrivi",
      "/arrivi/{id}/annulla",
      "/giacenze/allinea",
      "/documenti-vendita",
      "/disponibilita",
      "/articoli",
      "/fornitori",
      "/magazzini",
      "/ubicazioni",
      "/giacenze-ubicazioni",
      "/articoli/{id}/ubicazioni",
      "/da-stoccare",
      "/ordini-acquisto",
      "/ordini-acquisto/{id}/chiudi",
      "/avvisi-spedizione",
      "/colli/{sscc}/ricevi",
      "/colli/{sscc}/annulla",
      "/differenze-ricevimento",
      "/differenze-ricevimento/{id}/foto",
      "/differenze-ricevimento/{id}/foto/{n}",
      "/differenze-ricevimento/tasso-riempimento",
      "/resi-fornitore",
      "/prenotazioni",
      "/prenotazioni/{id}/annulla",
      "/eventi",
      "/webhook",
      "/webhook/{id}",
      "/webhook/{id}/riprova",
      "/etichette/lotto",
      "/etichette/collo/{sscc}",
      "/etichette/ubicazione",
      "/ordini-acquisto/{id}/etichette",
      "/stampanti",
      "/stampanti/{id}/stampa",
      "/stampe/{id}",
    ].sort(),
  );
  expect(Object.keys(r.body.paths["/arrivi"].post.responses)).toEqual(expect.arrayContaining(["200", "201", "409", "422"]));
  expect(r.body.paths["/arrivi/cerca"].post.parameters?.some((p: any) => p.name === "Idempotency-Key") ?? false).toBe(false);
  const post = r.body.paths["/movimenti"].post;
  for (const s of ["200", "400", "401", "403", "409", "413", "415", "422", "429", "500", "503"]) {
    expect(post.responses[s], s).toBeDefined();
  }
  // The contract's error body, `codice` an enum of what this endpoint can answer with that status.
  const refused = post.responses["422"].content["application/json"].schema;
  expect(refused.required).toEqual(["codice", "messaggio"]);
  expect(refused.properties.codice.enum).toContain("troppe_righe");
  expect(r.body.components.responses.non_autenticato.content["application/json"].schema.properties.codice.enum).toEqual([
    "non_autenticato",
  ]);
  expect(post.parameters.some((p: any) => p.name === "Idempotency-Key" && p.in === "header")).toBe(true);
  // zod's implicit ±(2^53 - 1) bounds are gone; bounds the contract sets are kept.
  expect(JSON.stringify(r.body)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  expect(post.requestBody.content["application/json"].schema.properties.causale).toMatchObject({ type: "string", maxLength: 200 });
  expect(post.responses["200"].content["application/json"].schema.properties.operazione.anyOf[0]).toEqual({ type: "integer" });
});

test("every integer a client sends has a maximum within PostgreSQL's integer: beyond it the database, not the edge, would refuse it (a 500)", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  const unbounded: string[] = [];
  let seen = 0;
  const walk = (s: any, where: string): void => {
    if (!s || typeof s !== "object") return;
    if (s.$ref) {
      walk(doc.components.schemas[s.$ref.split("/").pop()], where);
      return;
    }
    // Versions (`modificati_dopo`) come from a bigint sequence: JSON's exact integers bound them, not int4.
    if (s.type === "integer" && !where.endsWith(" modificati_dopo")) {
      seen++;
      if (!(s.maximum <= 2_147_483_647)) unbounded.push(`${where} (maximum ${s.maximum})`);
    }
    for (const [name, child] of Object.entries(s.properties ?? {})) walk(child, `${where}.${name}`);
    walk(s.items, `${where}[]`);
    for (const k of ["anyOf", "oneOf", "allOf"]) for (const child of s[k] ?? []) walk(child, where);
  };
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      for (const p of op.parameters ?? []) walk(p.schema, `${method.toUpperCase()} ${path} ${p.name}`);
      // A photo's body is the image itself (POST /differenze-ricevimento/{id}/foto): no JSON schema to walk.
      walk(op.requestBody?.content["application/json"]?.schema, `${method.toUpperCase()} ${path} corpo`);
    }
  }
  expect(seen).toBeGreaterThan(10);
  expect(unbounded).toEqual([]);
});
