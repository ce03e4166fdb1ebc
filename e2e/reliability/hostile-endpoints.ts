/**
 * Generators of hostile requests for every endpoint of the OpenAPI document (this file: the endpoints read
 * from it; hostile-values.ts: the values; hostile-requests.ts: the requests). Nothing here knows the
 * endpoints by name: names and types come from the document; `known` supplies values that exist in
 * the test database for the names the document uses (so that generated requests also get past
 * validation and reach the services and the database).
 */

export interface Endpoint {
  method: string;
  path: string;
  query: string[];
  pathParams: string[];
  idempotent: boolean;
  bodyProps: string[];
  rowProps: string[];
  required: string[];
}

type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; required?: string[]; $ref?: string };

export function endpointsOf(doc: {
  paths?: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
}): Endpoint[] {
  const out: Endpoint[] = [];
  // The rows of a call are a named schema (`RigaMovimentoIngresso`): their fields are read there.
  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? doc.components?.schemas?.[s.$ref.replace("#/components/schemas/", "")] : s;
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const params = (op.parameters ?? []) as { in: string; name: string }[];
      const schema = op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
      const rows = resolve(schema?.properties?.righe?.items);
      out.push({
        method: method.toUpperCase(),
        path,
        query: params.filter((p) => p.in === "query").map((p) => p.name),
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        idempotent: params.some((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key"),
        bodyProps: Object.keys(schema?.properties ?? {}),
        rowProps: Object.keys(rows?.properties ?? {}),
        required: schema?.required ?? [],
      });
    }
  }
  return out;
}

/** Values that exist in the test database (or plausibly could), by the field or parameter names of the document. */
export type Known = Record<string, unknown[]>;
