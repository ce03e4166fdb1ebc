import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire, Module } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { lintFromString, loadConfig } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { EVENT_TYPES } from "../../lib/domain-lists";
import { ERROR_STATUS } from "../lib/errors";
import { openApiDocument } from "./openapi";
import { PROCEDURE_CODES, operationCodes } from "./procedure-codes";
import { appRouter } from "./router";

/**
 * The OpenAPI document as an integrator uses it: valid, lint-clean, and tight enough that a client generated
 * from it (openapi-typescript + openapi-fetch, as an integrator would) type-checks real use and refuses
 * a misspelled field, a string for an integer, or a code the endpoint cannot answer.
 */

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname, "../../..");
const doc = openApiDocument();
// The document as a client reads it: plain JSON.
const api: any = doc;

describe("the document", () => {
  test("is valid OpenAPI (swagger-parser) and has no Redocly lint problem under redocly.yaml", async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    const config = await loadConfig({ configPath: join(root, "redocly.yaml") });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: join(root, "openapi.json"), config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} ${p.location[0]?.pointer ?? ""}`)).toEqual([]);
  });

  test("error codes are an enum per status; row codes per operation; limits as maxItems; integers as integers", () => {
    const post = api.paths["/movimenti"].post;
    const codes = (s: string) => post.responses[s].content["application/json"].schema.properties.codice.enum;
    expect(codes("422")).toEqual([
      "filtro_non_valido",
      "richiesta_non_valida",
      "chiave_idempotenza_riutilizzata",
      "magazzino_non_trovato",
      "operazione_non_trovata",
      "troppe_righe",
    ]);
    expect(codes("409")).toEqual(["idempotenza_in_corso", "chiave_idempotenza_abbandonata"]);
    expect(post.responses["401"]).toEqual({ $ref: "#/components/responses/non_autenticato" });
    const body = post.requestBody.content["application/json"].schema;
    expect(body.properties.righe.maxItems).toBe(500);
    const rowError = post.responses["200"].content["application/json"].schema.properties.righe.items.properties.errore;
    expect(rowError.properties.codice.enum).toContain("lotto_insufficiente");
    const list = api.paths["/movimenti"].get;
    const param = (name: string) => list.parameters.find((p: any) => p.name === name).schema;
    expect(param("limite")).toEqual({ type: "integer", minimum: 1, maximum: 100 });
    expect(param("dopo")).toEqual({ type: "integer", minimum: 0, maximum: 2_147_483_647 });
    expect(api.paths["/articoli"].get.parameters.find((p: any) => p.name === "attivo").schema).toEqual({ type: "boolean" });
    const schemas = api.components.schemas;
    expect(schemas.RigaArticolo).toMatchObject({ required: ["codice"], additionalProperties: false });
    expect(schemas.OrdineAcquistoIngresso.properties.righe.maxItems).toBe(500);
    expect(Object.keys(schemas).filter((n) => n.startsWith("error."))).toEqual([]);
    // A list's row and an event's are one named schema.
    expect(list.responses["200"].content["application/json"].schema.properties.movimenti.items).toEqual({
      $ref: "#/components/schemas/Movimento",
    });
    for (const key of ["articoli", "fornitori", "clienti", "magazzini"])
      expect(api.paths[`/${key}`].post.requestBody.content["application/json"].schema.properties[key].maxItems, key).toBe(500);
    expect(api.paths["/giacenze/allinea"].post.requestBody.content["application/json"].schema.properties.righe.maxItems).toBe(10_000);
    expect(api.paths["/arrivi"].post.requestBody.content["application/json"].schema.properties.righe.maxItems).toBe(500);
    expect(api.paths["/ordini-acquisto"].post.requestBody.content["application/json"].schema.properties.ordini.maxItems).toBe(100);
  });

  test("as strict as the service: closed bodies and rows, formats and patterns, one shape per status, labels by tipo", () => {
    const body = (p: string) => api.paths[p].post.requestBody.content["application/json"].schema;
    const ref = (s: { $ref?: string }) => api.components.schemas[String(s.$ref).replace("#/components/schemas/", "")];
    for (const p of ["/movimenti", "/arrivi", "/arrivi/cerca", "/giacenze/allinea", "/resi-fornitore", "/colli/{sscc}/ricevi"])
      expect(body(p).additionalProperties, p).toBe(false);
    const rows: [string, string, string[]][] = [
      ["/movimenti", "righe", ["quantita"]],
      ["/arrivi", "righe", ["riga"]],
      ["/giacenze/allinea", "righe", ["codice", "contato"]],
      ["/resi-fornitore", "righe", ["quantita", "motivo"]],
      ["/colli/{sscc}/ricevi", "differenze", ["indice", "quantita", "motivo"]],
      ["/avvisi-spedizione", "avvisi", ["numero", "fornitore", "magazzino", "colli"]],
    ];
    for (const [p, key, required] of rows) {
      const row = ref(body(p).properties[key].items);
      expect(row, p).toMatchObject({ type: "object", additionalProperties: false });
      expect(row.required, p).toEqual(expect.arrayContaining(required));
    }
    const movement = ref(body("/movimenti").properties.righe.items).properties;
    expect(movement.scadenza.format).toBe("date");
    expect(movement.prezzo.pattern).toBe("^\\d{1,14}(\\.\\d{1,4})?$");
    const listed = api.components.schemas.Movimento.properties;
    expect(listed.data.format).toBe("date");
    expect(listed.registrato_il.format).toBe("date-time");
    expect(new RegExp(listed.quantita.pattern).test("-3.125") && !new RegExp(listed.quantita.pattern).test("1e3")).toBe(true);
    // Everywhere: a string named as a date or an instant has its format, one named as a quantity or an amount its pattern.
    const unmarked: string[] = [];
    const walk = (node: any, at: string): void => {
      if (!node || typeof node !== "object") return;
      for (const [name, prop] of Object.entries<any>(node.properties ?? {})) {
        const s = prop.anyOf?.find((x: any) => x.type === "string") ?? prop;
        if (s.type !== "string" || s.enum || s.const) continue;
        if (/^(data|data_prevista|scadenza|il|.+_il)$/.test(name) && !s.format) unmarked.push(`${at}.${name}`);
        if (/^(quantita|residua|arrivata|ordinata|chiusa|prezzo|giacenza|attuale|contato|delta|totale|importo)$/.test(name) && !s.pattern)
          unmarked.push(`${at}.${name}`);
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(api, "");
    expect(unmarked).toEqual([]);
    // POST /arrivi: 201 one row, 200 several.
    const arrivi = api.paths["/arrivi"].post.responses;
    expect(Object.keys(arrivi["201"].content["application/json"].schema.properties)).toContain("movimento");
    expect(Object.keys(arrivi["201"].content["application/json"].schema.properties)).not.toContain("righe");
    expect(Object.keys(arrivi["200"].content["application/json"].schema.properties)).toContain("righe");
    // A print request's label and a job's: one member per `tipo`; the fill rate's differences by reason.
    const label = body("/stampanti/{id}/stampa").properties.etichetta;
    expect(label.discriminator).toEqual({ propertyName: "tipo" });
    expect(label.oneOf.map((m: any) => m.properties.tipo.const)).toEqual(["lotto", "ubicazione", "collo", "riga"]);
    const job = api.paths["/stampe/{id}"].get.responses["200"].content["application/json"].schema.properties.etichetta;
    expect(job.discriminator).toEqual({ propertyName: "tipo" });
    const rate = api.paths["/differenze-ricevimento/tasso-riempimento"].get.responses["200"].content["application/json"].schema;
    expect(rate.properties.fornitori.items.properties.differenze).toMatchObject({
      additionalProperties: false,
      properties: { mancante: {}, danneggiato: {}, eccedente: {}, errato: {} },
    });
    // The row codes of POST /resi-fornitore in a warehouse with locations.
    const returned = api.paths["/resi-fornitore"].post.responses["200"].content["application/json"].schema;
    expect(returned.properties.righe.items.properties.errore.properties.codice.enum).toEqual(
      expect.arrayContaining([
        "campo_non_valido",
        "ubicazione_obbligatoria",
        "ubicazione_non_trovata",
        "quantita_insufficiente_ubicazione",
        "ubicazione_non_prevista",
      ]),
    );
  });

  test("the code table names only procedures of the document; one it does not know gets its method's, path's and meta's codes", () => {
    const procs = appRouter._def.procedures as unknown as Record<
      string,
      { _def: { meta?: { openapi?: { method: string; path: string } } } }
    >;
    for (const key of Object.keys(PROCEDURE_CODES)) {
      const openapi = procs[key]?._def.meta?.openapi;
      expect(openapi, key).toBeDefined();
      expect(api.paths[openapi?.path ?? ""]?.[openapi?.method.toLowerCase() ?? ""], key).toBeDefined();
    }
    const patch = operationCodes({ method: "patch", path: "/webhook/{id}", idempotent: false, query: [] });
    expect(Object.fromEntries(patch.byStatus)).toEqual({
      400: ["json_non_valido"],
      401: ["non_autenticato"],
      403: ["permesso_negato"],
      404: ["non_trovato"],
      405: ["metodo_non_consentito"],
      413: ["richiesta_troppo_grande"],
      415: ["tipo_contenuto_non_supportato"],
      422: ["filtro_non_valido", "richiesta_non_valida"],
      429: ["troppe_richieste"],
      500: ["errore_interno"],
      503: ["servizio_non_disponibile"],
    });
    const list = operationCodes({ method: "get", path: "/webhook", idempotent: false, query: ["limite", "dopo"] });
    // A stored cursor beyond anything issued: listed as soon as the service knows the code.
    expect(list.byStatus.get(422)).toEqual(["filtro_non_valido", ...("cursore_non_valido" in ERROR_STATUS ? ["cursore_non_valido"] : [])]);
    const idempotent = operationCodes({ method: "post", path: "/webhook/{id}/riprova", idempotent: true, query: [] });
    expect(idempotent.byStatus.get(409)).toEqual(["idempotenza_in_corso", "chiave_idempotenza_abbandonata"]);
  });

  test("every event type is in the union of GET /eventi and in the webhooks, plus the batch", () => {
    const evento = api.components.schemas.Evento;
    expect(evento.discriminator.propertyName).toBe("tipo");
    for (const tipo of EVENT_TYPES) expect(Object.keys(evento.discriminator.mapping)).toContain(tipo);
    expect(Object.keys(evento.discriminator.mapping)).toContain("magazzino.modificato");
    const webhooks = api.webhooks;
    expect(Object.keys(webhooks)).toEqual([...Object.keys(evento.discriminator.mapping), "eventi"]);
    expect(webhooks.eventi.post.parameters.map((p: any) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
  });
});

/**
 * openapi-typescript 7 builds its output with TypeScript 5's compiler API, which TypeScript 7 (the project's
 * `typescript`, a native compiler) does not have: its CommonJS build is given TypeScript 5 (`typescript-5`)
 * in place of the `typescript` it requires. Only this test process loads it.
 */
function openapiTypescript(): typeof import("openapi-typescript") {
  const generatorRequire = createRequire(require.resolve("openapi-typescript"));
  const tsPath = generatorRequire.resolve("typescript");
  const ts5 = new Module(tsPath);
  ts5.filename = tsPath;
  ts5.loaded = true;
  ts5.exports = require("typescript-5");
  require.cache[tsPath] = ts5;
  return require("openapi-typescript");
}

const PROGRAM = `
import createClient from "openapi-fetch";
import type { paths, webhooks } from "./api";

const client = createClient<paths>({ baseUrl: "http://localhost:3000/api/v1", headers: { Authorization: "Bearer k" } });

export async function movements(): Promise<string | undefined> {
  const { data, error } = await client.GET("/movimenti", { params: { query: { limite: 100, dopo: 0, magazzino: 1 } } });
  if (error) {
    const codice: "filtro_non_valido" | "non_autenticato" | "permesso_negato" | "metodo_non_consentito" | "troppe_richieste" | "errore_interno" | "servizio_non_disponibile" | "cursore_non_valido" = error.codice;
    return codice;
  }
  const quantita: string | undefined = data.movimenti[0]?.quantita;
  return quantita;
}

export async function articles(): Promise<void> {
  const { data, error } = await client.POST("/articoli", {
    body: { articoli: [{ codice: "VITE-M6", descrizione: "Vite M6", ean: null, costo: "0.12", attivo: true }] },
    headers: { "Idempotency-Key": "k-1" },
  });
  if (error) {
    if (error.codice === "troppe_righe" || error.codice === "chiave_idempotenza_riutilizzata") throw new Error(error.messaggio);
    return;
  }
  for (const riga of data.righe) {
    if (riga.errore?.codice === "ean_in_uso" || riga.errore?.codice === "codice_ripetuto") console.log(riga.indice, riga.errore.messaggio);
  }
}

export async function events(): Promise<void> {
  const { data } = await client.GET("/eventi", { params: { query: { dopo: 0 } } });
  for (const e of data?.eventi ?? []) {
    if (e.tipo === "movimenti.registrati") {
      const q: string | undefined = e.dati.movimenti[0]?.quantita;
      console.log(q);
    } else if (e.tipo === "articolo.modificato") {
      const codice: string = e.dati.codice;
      console.log(codice);
    } else if (e.tipo === "magazzino.modificato") {
      console.log(e.dati.nome);
    }
  }
}

type Batch = webhooks["eventi"]["post"]["requestBody"]["content"]["application/json"];
export const firstSequence = (b: Batch): number | undefined => b.eventi[0]?.sequenza;

// Rows: a malformed row is that row's campo_non_valido, naming the field; a warehouse with locations answers its row codes.
export async function writeRows(): Promise<void> {
  const moved = await client.POST("/movimenti", { body: { natura: "carico", magazzino: 1, righe: [{ codice: "A", quantita: 1, prezzo: "1.5", scadenza: "2027-01-01", lotto: "L1" }] } });
  for (const riga of moved.data?.righe ?? []) if (riga.errore?.codice === "campo_non_valido") console.log(riga.errore.campo);
  const returned = await client.POST("/resi-fornitore", {
    body: { fornitore: "F1", magazzino: 1, righe: [{ codice: "A", quantita: 1, motivo: "Rotto", ubicazione: "A-01" }] },
  });
  for (const riga of returned.data?.righe ?? []) {
    const codice = riga.errore?.codice;
    if (codice === "ubicazione_obbligatoria" || codice === "ubicazione_non_trovata" || codice === "quantita_insufficiente_ubicazione" || codice === "ubicazione_non_prevista" || codice === "campo_non_valido")
      console.log(riga.indice, riga.errore?.campo);
  }
  await client.POST("/giacenze/allinea", { body: { magazzino: 1, righe: [{ codice: "A", contato: 0, ubicazione: "A-01" }] } });
  await client.POST("/colli/{sscc}/ricevi", {
    params: { path: { sscc: "380012340000000014" } },
    body: { ddt: "D-1", differenze: [{ indice: 0, quantita: 1, motivo: "mancante" }] },
  });
  await client.POST("/avvisi-spedizione", {
    body: { avvisi: [{ numero: "AV-1", fornitore: "F1", magazzino: "M1", data_prevista: "2026-12-01", colli: [{ sscc: "380012340000000014", righe: [{ ordine: "O-1", numero_riga: 1, quantita: 4, lotto: "L1", scadenza: "2027-01-01" }] }] }] },
  });
}

// POST /arrivi: one row answers 201 with the movement, several rows 200 with an outcome per row.
type Created = paths["/arrivi"]["post"]["responses"][201]["content"]["application/json"];
type Several = paths["/arrivi"]["post"]["responses"][200]["content"]["application/json"];
export const createdMovement = (c: Created): number | null => c.movimento;
export const refusedRows = (s: Several): (number | null)[] => s.righe.filter((r) => r.esito === "rifiutata").map((r) => r.riga);

export async function printing(): Promise<void> {
  await client.POST("/stampanti/{id}/stampa", { params: { path: { id: 1 } }, body: { etichetta: { tipo: "collo", sscc: "380012340000000014" }, copie: 2 } });
  const job = await client.GET("/stampe/{id}", { params: { path: { id: 1 } } });
  if (job.data?.etichetta.tipo === "lotto") {
    const lotto: string = job.data.etichetta.lotto;
    console.log(lotto);
  }
  const rates = await client.GET("/differenze-ricevimento/tasso-riempimento", { params: { query: { da: "2026-11-01", a: "2026-11-30" } } });
  const mancante: string | undefined = rates.data?.fornitori[0]?.differenze.mancante;
  console.log(mancante);
}
`;

/**
 * Each must not type-check: a misspelled field, a string for an integer, a code POST /articoli cannot answer,
 * a field of another event type, a row without `codice`, an event type that does not exist. (An extra
 * property in a row is not among them: openapi-fetch infers its request argument, so TypeScript's excess
 * property check never runs on it, whatever the document says.)
 */
const WRONG = {
  misspelled: `const r = await client.GET("/movimenti"); if (r.data) console.log(r.data.movimenti[0]?.quantitá);`,
  stringInteger: `await client.GET("/movimenti", { params: { query: { limite: "100" } } });`,
  unknownCode: `const r = await client.POST("/articoli", { body: { articoli: [{ codice: "A" }] } }); if (r.error?.codice === "lotto_insufficiente") console.log(1);`,
  otherEventField: `const r = await client.GET("/eventi"); const e = r.data?.eventi[0]; if (e?.tipo === "movimenti.registrati") console.log(e.dati.codice);`,
  rowWithoutCode: `await client.POST("/articoli", { body: { articoli: [{ descrizione: "senza codice" }] } });`,
  unknownEventType: `const r = await client.GET("/eventi"); if (r.data?.eventi[0]?.tipo === "magazzino.cancellato") console.log(1);`,
  // The rows stay typed although the service parses them one by one.
  movementRowString: `await client.POST("/movimenti", { body: { natura: "carico", magazzino: 1, righe: [{ codice: "A", quantita: "1" }] } });`,
  returnUnknownCode: `const r = await client.POST("/resi-fornitore", { body: { fornitore: "F", magazzino: 1, righe: [] } }); if (r.data?.righe[0]?.errore?.codice === "ubicazione_sconosciuta") console.log(1);`,
  noticeWithoutFields: `await client.POST("/avvisi-spedizione", { body: { avvisi: [{ numero: "AV-1" }] } });`,
  createdWithRows: `const c: paths["/arrivi"]["post"]["responses"][201]["content"]["application/json"] = { operazione: 1, registrate: 1, rifiutate: 0, righe: [] }; console.log(c);`,
  printWrongLabel: `await client.POST("/stampanti/{id}/stampa", { params: { path: { id: 1 } }, body: { etichetta: { tipo: "collo", articolo: 1 } } });`,
  printJobOpenLabel: `const r = await client.GET("/stampe/{id}", { params: { path: { id: 1 } } }); console.log(r.data?.etichetta.colore);`,
  fillRateUnknownReason: `const r = await client.GET("/differenze-ricevimento/tasso-riempimento", { params: { query: { da: "2026-11-01", a: "2026-11-30" } } }); console.log(r.data?.fornitori[0]?.differenze.smarrito);`,
};

describe("a client generated with openapi-typescript", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "banchina-openapi-client-"));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // tsc over the generated client takes seconds; more on a loaded machine.
  test("type-checks a program of real use and refuses each misuse", { timeout: 180_000 }, async () => {
    const { default: generate, astToString } = openapiTypescript();
    await writeFile(join(dir, "api.ts"), astToString(await generate(structuredClone(doc) as never)));
    // The project's node_modules (openapi-fetch and its types) as the program's own.
    await symlink(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    await writeFile(join(dir, "program.ts"), PROGRAM);
    const header = `import createClient from "openapi-fetch";\nimport type { paths } from "./api";\nconst client = createClient<paths>({ baseUrl: "http://x" });\n`;
    for (const [name, line] of Object.entries(WRONG))
      await writeFile(join(dir, `wrong-${name}.ts`), `${header}export async function f(): Promise<void> {\n  ${line}\n}\n`);
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          module: "esnext",
          moduleResolution: "bundler",
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          noEmit: true,
          types: [],
        },
        include: ["*.ts"],
      }),
    );
    const tsc = join(root, "node_modules", ".bin", "tsc");
    const out = await promisify(execFile)(tsc, ["-p", join(dir, "tsconfig.json"), "--pretty", "false"], { cwd: dir }).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    const diagnostics = out.split("\n").filter((l) => /error TS\d+/.test(l));
    expect(diagnostics.filter((l) => l.startsWith("program.ts") || l.startsWith("api.ts"))).toEqual([]);
    for (const name of Object.keys(WRONG))
      expect(
        diagnostics.some((l) => l.startsWith(`wrong-${name}.ts(5,`)),
        `${name}\n${out}`,
      ).toBe(true);
    expect(diagnostics).toHaveLength(Object.keys(WRONG).length);
  });
});
