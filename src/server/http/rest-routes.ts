import {
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
} from "trpc-to-openapi";
import { ZodArray } from "zod/v4";
import type { Context } from "../trpc/context";
import { createCallerFactory, type Meta } from "../trpc/init";
import { appRouter } from "../trpc/router";

/**
 * The REST routes, worked out once at start from the procedures' OpenAPI meta, the way trpc-to-openapi's
 * node handler reads them (its `createProcedureCache`, `getInputOutputParsers`, `unwrapZodType`,
 * `coerceSchema`) — but that handler repeats the work on every request: a `new URL`, a scan of every
 * procedure's pattern, the input schema unwrapped and walked to set `coerce` again, the array parameters
 * found again, a caller proxy built to reach one procedure (bench/layers.ts shows the whole as a large
 * share of the stack's cost per request). Here each is done once; a request matches its path, builds its
 * input as the library does, and calls the procedure through tRPC's caller (`createCallerFactory`, its
 * supported server-side entry point: no internal signature to follow across upgrades; ARCHITECTURE.md).
 * The library still draws the OpenAPI document (trpc/openapi.ts), so what is documented and what is served
 * come from one meta.
 */

export interface RestProcedure {
  /** The procedure's dotted path in the router (`movements.list`). */
  path: string;
  /** The path's segments, walked on the caller. */
  segments: string[];
  /** The procedure's meta: what the transport does per route is read from here, never from its path. */
  meta: Meta;
  /** The input is void: the procedure takes none (trpc-to-openapi leaves it undefined). */
  noInput: boolean;
  /**
   * The document declares no request body: the input is void or every field of it is a path parameter,
   * the rule by which trpc-to-openapi leaves `requestBody` out. Such a write takes no body, an empty one
   * or `{}` alike, so what the document promises and what is served come from the same meta and input.
   */
  bodiless: boolean;
  /** Query parameters declared as arrays: a single value is wrapped, as the library does. */
  arrayParams: string[];
}

export interface RestRoute {
  /** The path's pattern, path parameters as named groups. Case-sensitive, as the document's paths are. */
  pattern: RegExp;
  /** Path without parameters: matched by string comparison first. */
  literal: string | undefined;
  methods: Map<string, RestProcedure>;
  /** For 405's Allow header. */
  allow: string[];
}

function arrayParamsOf(schema: unknown): string[] {
  if (!instanceofZodTypeObject(schema as never)) return [];
  const keys: string[] = [];
  for (const [key, shape] of Object.entries((schema as { shape: Record<string, unknown> }).shape)) {
    const inner = instanceofZodTypeOptional(shape as never) ? (shape as { unwrap(): unknown }).unwrap() : shape;
    if (inner instanceof ZodArray) keys.push(key);
  }
  return keys;
}

/** Whether the document draws this operation without a request body (trpc-to-openapi's getRequestBodyObject). */
function declaresNoBody(path: string, schema: unknown, noInput: boolean): boolean {
  if (noInput) return true;
  if (!instanceofZodTypeObject(schema as never)) return false;
  const params = new Set([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  const keys = Object.keys((schema as { shape: Record<string, unknown> }).shape);
  return params.size > 0 && keys.every((k) => params.has(k));
}

function build(): RestRoute[] {
  const byPath = new Map<string, RestRoute>();
  forEachOpenApiProcedure(appRouter._def.procedures as never, ({ path, type, procedure, meta }) => {
    if (type === "subscription") return;
    const openapi = (meta as { openapi: { method: string; path: string } }).openapi;
    const documented = normalizePath(openapi.path);
    let route = byPath.get(documented);
    if (!route) {
      const literal = documented.includes("{") ? undefined : documented;
      const pattern = new RegExp(`^${documented.replace(/\{(\w+)\}/g, (_, key: string) => `(?<${key}>[^/]+)`)}$`);
      route = { pattern, literal, methods: new Map(), allow: [] };
      byPath.set(documented, route);
    }
    const { inputParser } = getInputOutputParsers(procedure as never);
    const unwrapped = unwrapZodType(inputParser as never, true);
    // What the library sets on every request, once: number and boolean fields take strings.
    if (instanceofZodTypeObject(unwrapped)) coerceSchema(unwrapped as never);
    const method = openapi.method.toUpperCase();
    const noInput = instanceofZodTypeLikeVoid(unwrapped);
    route.methods.set(method, {
      path,
      segments: path.split("."),
      meta: meta as Meta,
      noInput,
      bodiless: declaresNoBody(documented, unwrapped, noInput),
      arrayParams: method === "GET" ? arrayParamsOf(unwrapped) : [],
    });
    route.allow.push(method);
  });
  return [...byPath.values()];
}

const createCaller = createCallerFactory(appRouter);

let routes: RestRoute[] | undefined;
let literals: Map<string, RestRoute> | undefined;

/** The route of a path (without /api/v1 and the query), with its path parameters; undefined: unknown path. */
export function matchRoute(path: string): { route: RestRoute; params: Record<string, string> } | undefined {
  routes ??= build();
  literals ??= new Map(routes.filter((r) => r.literal !== undefined).map((r) => [r.literal as string, r]));
  const exact = literals.get(path);
  if (exact) return { route: exact, params: {} };
  for (const route of routes) {
    if (route.literal !== undefined) continue;
    const m = route.pattern.exec(path);
    if (m) return { route, params: { ...m.groups } };
  }
  return undefined;
}

/**
 * Calls the procedure with the request's input as trpc-to-openapi builds it: the body (or the query, one
 * value per parameter, arrays wrapped) with the path parameters over it. Resolves with the procedure's output;
 * rejects with tRPC's error (its cause the domain error), which the REST core maps to the contract's body.
 */
export function callRestProcedure(
  entry: RestProcedure,
  ctx: Context,
  params: Record<string, string>,
  body: Record<string, unknown> | undefined,
  query: Record<string, string>,
): Promise<unknown> {
  let input: Record<string, unknown> | undefined;
  if (!entry.noInput) {
    input = { ...(body ?? query), ...params };
    for (const key of entry.arrayParams) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
  }
  // The caller is a proxy over the router: walked by the path's segments, it reaches the procedure by name.
  let target: unknown = createCaller(ctx);
  for (const segment of entry.segments) target = (target as Record<string, unknown>)[segment];
  return (target as (input: unknown) => Promise<unknown>)(input);
}
