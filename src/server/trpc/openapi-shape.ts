import type { SchemaObject } from "openapi3-ts/oas31";
import { z } from "zod";
import { createSchema } from "zod-openapi";
import { locationRowCheck } from "../modules/locations/locations.schemas";
import { articleRowCheck, namedRowCheck, warehouseRowCheck } from "../modules/catalogue/master-data.schemas";
import { clientRowCheck } from "../modules/clients/clients-upsert.schemas";
import { alignRowInput } from "../modules/alignment/alignment.schemas";
import { arrivalRowInput } from "../modules/arrivals/arrivals.schemas";
import { writeMovementsRowInput } from "../modules/movements/movements.schemas";
import { palletDifferenceInput } from "../modules/arrivals/receiving.schemas";
import { noticeStrict } from "../modules/notices/notices.schemas";
import { returnRowInput } from "../modules/returns/returns.schemas";
import { purchaseOrderStrict } from "../modules/orders/orders.schemas";

/**
 * Rewrites of the generated document where what the service parses is not what a client should send or
 * read. The service's schemas stay as they are (query scalars as string pipes against trpc-to-openapi's
 * coercion; upsert rows loose so that a bad row is that row's outcome); the document states the contract.
 */

type Json = Record<string, unknown>;
export type Operation = {
  parameters?: Json[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses: Record<string, unknown>;
};

/**
 * Query and path parameters typed as what they mean: the pipes' output side (an integer with its bounds),
 * booleans as booleans. The service still parses the strings and answers a malformed one with
 * `filtro_non_valido`.
 */
export function typeParameters(op: Operation, input: z.ZodType | undefined): void {
  const shape = input instanceof z.ZodObject ? (input.shape as Record<string, z.ZodType>) : {};
  for (const param of op.parameters ?? []) {
    const schema = param.schema as Json | undefined;
    if (schema?.type !== "string") continue;
    const enumValues = schema.enum as unknown[] | undefined;
    if (enumValues?.length === 2 && enumValues.includes("true") && enumValues.includes("false")) {
      param.schema = { type: "boolean" };
      continue;
    }
    const field = shape[param.name as string];
    if (typeof schema.pattern !== "string" || !/^\^\\d\{1,\d+\}\$$/.test(schema.pattern) || !field) continue;
    const out = z.toJSONSchema(field, { io: "output", unrepresentable: "any" }) as Json;
    if (out.type !== "integer") continue;
    const bounds = ["minimum", "exclusiveMinimum", "maximum"].filter((k) => out[k] !== undefined).map((k) => [k, out[k]]);
    param.schema = { type: "integer", ...Object.fromEntries(bounds) };
    if (param.description === undefined && typeof out.description === "string") param.description = out.description;
  }
}

/**
 * The rows of every call with rows as the service checks each one (required fields, no other property, each
 * field's type), named in components. The request's own schema is loose on purpose (a bad row is refused
 * as that row, docs/api.md section 2, lib/rows.ts); its field descriptions are kept. Keyed by the procedure's path
 * in the root router, as procedure-codes.ts.
 */
const STRICT_ROWS: Record<string, { key: string; component: string; row: z.ZodType }> = {
  "masterData.upsertArticles": { key: "articoli", component: "RigaArticolo", row: articleRowCheck },
  "masterData.upsertSuppliers": { key: "fornitori", component: "RigaFornitore", row: namedRowCheck },
  "masterData.upsertWarehouses": { key: "magazzini", component: "RigaMagazzino", row: warehouseRowCheck },
  "masterData.upsertLocations": { key: "ubicazioni", component: "RigaUbicazione", row: locationRowCheck },
  "clientsUpsert.upsert": { key: "clienti", component: "RigaCliente", row: clientRowCheck },
  "orders.upsert": { key: "ordini", component: "OrdineAcquistoIngresso", row: purchaseOrderStrict },
  "notices.upsert": { key: "avvisi", component: "AvvisoSpedizioneIngresso", row: noticeStrict },
  "movements.write": { key: "righe", component: "RigaMovimentoIngresso", row: writeMovementsRowInput },
  "arrivals.register": { key: "righe", component: "RigaArrivoIngresso", row: arrivalRowInput },
  "alignment.align": { key: "righe", component: "RigaConteggioIngresso", row: alignRowInput },
  "notices.returnToSupplier": { key: "righe", component: "RigaResoIngresso", row: returnRowInput },
  "notices.receive": { key: "differenze", component: "DifferenzaColloIngresso", row: palletDifferenceInput },
};

export function strictRows(procedure: string | undefined, op: Operation, components: Record<string, SchemaObject>): void {
  const entry = procedure === undefined ? undefined : STRICT_ROWS[procedure];
  const body = op.requestBody?.content?.["application/json"]?.schema;
  const list = (body?.properties as Record<string, Json> | undefined)?.[entry?.key ?? ""];
  if (!entry || !list) return;
  const { schema } = createSchema(entry.row, { io: "input", openapiVersion: "3.1.0" });
  const strict = schema as Json;
  const loose = list.items as Json | undefined;
  const looseProps = (loose?.properties ?? {}) as Record<string, Json>;
  for (const [name, prop] of Object.entries((strict.properties ?? {}) as Record<string, Json>)) {
    const description = looseProps[name]?.description;
    if (description !== undefined && prop.description === undefined) prop.description = description;
  }
  if (loose?.description !== undefined && strict.description === undefined) strict.description = loose.description;
  components[entry.component] = strict as SchemaObject;
  list.items = { $ref: `#/components/schemas/${entry.component}` };
}

/**
 * A body the procedure parses with a strict object refuses every other property (`richiesta_non_valida`):
 * the document says so. (The generator loses the strictness of an object with refinements.)
 */
export function strictBody(op: Operation, input: z.ZodType | undefined): void {
  const body = op.requestBody?.content?.["application/json"]?.schema;
  if (body?.type !== "object" || !(input instanceof z.ZodObject)) return;
  if ((input._zod.def.catchall as z.ZodType | undefined)?._zod.def.type === "never") body.additionalProperties = false;
}

/**
 * An endpoint with several success statuses whose output is a union answers one member per status, in the
 * order of `successStatuses` (POST /arrivi: one row 201, several rows 200): each status gets its own shape.
 */
export function successByStatus(success: unknown, statuses: readonly number[]): Record<string, unknown> {
  const content = (success as { content?: Record<string, { schema?: Json }> } | undefined)?.content?.["application/json"];
  const members = (content?.schema?.anyOf ?? content?.schema?.oneOf) as Json[] | undefined;
  if (statuses.length < 2 || members?.length !== statuses.length) return Object.fromEntries(statuses.map((s) => [String(s), success]));
  return Object.fromEntries(
    statuses.map((s, i) => [
      String(s),
      {
        ...(success as Json),
        content: { ...(success as { content: Json }).content, "application/json": { ...content, schema: members[i] } },
      },
    ]),
  );
}

/**
 * `maxItems` of the body's arrays (docs/api.md section 8), by property path ("ordini.righe"), through $refs. A path
 * not found is skipped, not thrown: the document must build for the service to route (openapi.test.ts checks the limits).
 */
export function limitArrays(op: Operation, limits: Readonly<Record<string, number>>, components: Record<string, SchemaObject>): void {
  const resolve = (s: Json | undefined): Json | undefined =>
    typeof s?.$ref === "string" ? (components[s.$ref.replace("#/components/schemas/", "")] as Json | undefined) : s;
  for (const [path, max] of Object.entries(limits)) {
    let node = resolve(op.requestBody?.content?.["application/json"]?.schema);
    const steps = path.split(".");
    steps.forEach((step, i) => {
      const array = (node?.properties as Record<string, Json> | undefined)?.[step];
      if (!array) node = undefined;
      else if (i === steps.length - 1) array.maxItems = max;
      else node = resolve(array.items as Json);
    });
  }
}

/** Every `errore` of a per-row outcome in this schema gets the operation's row codes as its enum. */
export function typeRowErrors(schema: unknown, codes: readonly string[]): void {
  if (codes.length === 0 || schema === null || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    for (const s of schema) typeRowErrors(s, codes);
    return;
  }
  const o = schema as Json;
  const errore = (o.properties as Record<string, Json> | undefined)?.errore;
  const codice = (errore?.properties as Record<string, Json> | undefined)?.codice;
  if (codice) {
    codice.enum = [...codes];
    codice.description = "Perché la riga è stata rifiutata";
  }
  for (const child of Object.values(o)) typeRowErrors(child, codes);
}

/** Drops the components nothing references (trpc-to-openapi's own error schemas, among others). */
export function dropUnusedComponents(doc: { components?: { schemas?: Record<string, unknown> } }): void {
  const schemas = doc.components?.schemas;
  if (!schemas) return;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) visit(n);
    else if (node !== null && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")) {
          const name = v.slice("#/components/schemas/".length);
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else visit(v);
      }
    }
  };
  visit({ ...doc, components: { ...doc.components, schemas: undefined } });
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/**
 * The lists whose rows are the events' rows, by procedure: their items become the named component, so a client
 * has one type.
 */
const LIST_ROWS: Record<string, [key: string, component: string]> = {
  "movements.list": ["movimenti", "Movimento"],
  "feeds.articles": ["articoli", "Articolo"],
  "feeds.suppliers": ["fornitori", "Fornitore"],
  "feeds.warehouses": ["magazzini", "Magazzino"],
  "clients.list": ["clienti", "Cliente"],
  "feeds.purchaseOrders": ["ordini", "OrdineAcquisto"],
  "sales.list": ["documenti", "DocumentoVendita"],
};

/** The procedures the shape's tables name: the document refuses to build when one is not among its operations. */
export const SHAPED_PROCEDURES: readonly string[] = [...Object.keys(STRICT_ROWS), ...Object.keys(LIST_ROWS)];

/** Replaces a list's inline row with its component, only where both say the same (a drift keeps the inline row). */
export function shareListRows(operations: ReadonlyMap<string, Operation>, components: Record<string, unknown>): void {
  const resolved = (name: string): unknown => {
    const c = components[name] as Json | undefined;
    const target = typeof c?.$ref === "string" ? c.$ref.replace("#/components/schemas/", "") : undefined;
    return target ? components[target] : c;
  };
  for (const [procedure, [key, component]] of Object.entries(LIST_ROWS)) {
    const success = operations.get(procedure)?.responses["200"] as { content?: Record<string, { schema?: Json }> } | undefined;
    const list = (success?.content?.["application/json"]?.schema?.properties as Record<string, Json> | undefined)?.[key];
    if (list && JSON.stringify(list.items) === JSON.stringify(resolved(component)))
      list.items = { $ref: `#/components/schemas/${component}` };
  }
}

/**
 * A union whose every member is an object told apart by a constant `tipo` (a print request's label, a job's)
 * says so with a discriminator, so generators and validators pick the member by `tipo`.
 */
export function discriminateByTipo(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) discriminateByTipo(n);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const o = node as Json;
  const members = o.oneOf as Json[] | undefined;
  const tipo = (m: Json) => ((m.properties as Record<string, Json> | undefined)?.tipo as Json | undefined)?.const;
  if (Array.isArray(members) && o.discriminator === undefined && members.length > 1 && members.every((m) => typeof tipo(m) === "string"))
    o.discriminator = { propertyName: "tipo" };
  for (const child of Object.values(o)) discriminateByTipo(child);
}
