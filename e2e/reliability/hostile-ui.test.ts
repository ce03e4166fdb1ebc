import fc from "fast-check";
import { describe, expect } from "vitest";
import { exportAvailabilityCsv } from "../../src/server/http/availability-export";
import { ERROR_STATUS } from "../../src/server/lib/errors";
import type { TestDb } from "../../src/server/testing/db";
import { seedSession } from "../../src/server/testing/fixtures";
import { test } from "../../src/server/testing/test";
import { appRouter } from "../../src/server/trpc/router";
import { handleTrpcRequest } from "../../src/server/trpc/ui-handler";
import { encodeLoosely } from "./hostile-requests";
import { hostileString, hostileValue, serialise } from "./hostile-values";
import { seedArticles, seedWarehouse } from "./seed";

/**
 * Hostile input on the operator UI's channel (/api/trpc), which hostile.test.ts does not reach: every
 * procedure of the router, signed in as an administrator (every procedure open to it), called with
 * generated inputs, bodies that are not JSON, the wrong method, batches and unknown paths. Never a
 * 5xx; every refusal carries a contract code and the status that code has. The same for the
 * availability export's query string (/api/esportazioni/disponibilita).
 * The seed is random unless RELIABILITY_SEED is set, and is printed.
 */

const RUNS = Number(process.env.RELIABILITY_UI_RUNS ?? 600);
const SEED = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

// Signing out would end the session the rest of the run uses.
const PROCEDURES = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: "query" | "mutation" } }>)
  .filter(([path]) => path !== "session.signOut")
  .map(([path, p]) => ({ path, type: p._def.type }));

let t: TestDb;
let cookie: string;
let csrf: string;

test.beforeAll(async ({ db }) => {
  t = db;
  await seedWarehouse(t.pool, "M1");
  await seedArticles(t.pool, "UI", 2);
  ({ cookie, csrf } = await seedSession(t.prisma, "fuzz", "amministratore"));
});

interface UiCall {
  paths: readonly string[];
  method: "GET" | "POST" | "PUT";
  batch: boolean;
  /** The text sent: as `input=` on a GET, as the body on a POST; undefined sends none. */
  text: string | undefined;
}

const input = fc.oneof(
  { weight: 3, arbitrary: hostileValue.map(serialise) },
  {
    weight: 2,
    arbitrary: fc
      .dictionary(
        fc.constantFrom("id", "username", "password", "cerca", "limite", "dopo", "magazzino", "righe", "codice", "nome"),
        hostileValue,
        { maxKeys: 4 },
      )
      .map(serialise),
  },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.constantFrom("", "{", '{"a":', "[1", "nul", "\u0000", '{"0":{"json":1}}', '{"0":', "{}", "[]") },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const methodOf = (path: string) => (PROCEDURES.find((p) => p.path === path)?.type === "query" ? "GET" : "POST");

const call: fc.Arbitrary<UiCall> = fc
  .record({
    paths: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...PROCEDURES.map((p) => p.path)).map((p) => [p]) },
      { weight: 1, arbitrary: fc.array(fc.constantFrom(...PROCEDURES.map((p) => p.path)), { minLength: 2, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constantFrom(["nessuna.procedura"], ["session"], [""], ["__proto__"], ["session.signIn.x"]) },
    ),
    // Mostly the procedure's own method, so that most calls reach its input validation.
    wrongMethod: fc.constantFrom(undefined, undefined, undefined, undefined, "GET", "POST", "PUT"),
    batch: fc.boolean(),
    text: input,
  })
  .map(({ paths, wrongMethod, batch, text }) => ({ paths, method: (wrongMethod ?? methodOf(paths[0]!)) as UiCall["method"], batch, text }));

async function send(c: UiCall): Promise<{ status: number; text: string }> {
  const query = new URLSearchParams();
  if (c.batch) query.set("batch", "1");
  if (c.method === "GET" && c.text !== undefined) query.set("input", c.text);
  const qs = query.toString();
  const url = `http://localhost/api/trpc/${c.paths.map(encodeURIComponent).join(",")}${qs ? `?${qs}` : ""}`;
  const headers = { cookie, "x-csrf-token": csrf, "content-type": "application/json", "x-banchina-indirizzo": "10.9.9.10" };
  const body = c.method === "GET" ? undefined : c.text;
  const res = await handleTrpcRequest(new Request(url, { method: c.method, headers, body }));
  return { status: res.status, text: await res.text() };
}

/** Each answer of a call (a batch answers with an array): a refusal must be a contract code with its status. */
function checkAnswer(c: UiCall, res: { status: number; text: string }) {
  const where = `${c.method} ${c.paths.join(",")}${c.batch ? " (batch)" : ""} ${JSON.stringify(c.text?.slice(0, 120))} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  const parsed = JSON.parse(res.text) as unknown;
  for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
    const error = (item as { error?: { message?: unknown; data?: { codice?: string; httpStatus?: number } } }).error;
    if (!error) continue;
    expect(typeof error.message, where).toBe("string");
    const codice = error.data?.codice as keyof typeof ERROR_STATUS;
    expect(Object.hasOwn(ERROR_STATUS, codice), where).toBe(true);
    expect(error.data?.httpStatus, where).toBe(ERROR_STATUS[codice]);
    expect(error.data!.httpStatus!, where).toBeLessThan(500);
  }
}

describe("the operator UI's channel under hostile input", () => {
  test("every procedure: never a 5xx, every refusal a contract code with its status", async () => {
    const seen: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(call, async (c) => {
        const res = await send(c);
        seen[res.status] = (seen[res.status] ?? 0) + 1;
        checkAnswer(c, res);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    console.log(
      `[affidabilità] canale dell'interfaccia: ${JSON.stringify({ seed: SEED, procedure: PROCEDURES.length, provate: RUNS, status: seen })}`,
    );
    // The session stayed usable: the run reached the procedures, not only the sign-in wall.
    expect(seen["200"] ?? 0).toBeGreaterThan(0);
  }, 300_000);

  test("the availability export: generated query strings never get a 5xx", async () => {
    const name = fc.oneof(fc.constantFrom("cerca", "magazzino", "a", "limite", "dopo", "__proto__", ""), hostileString);
    const value = fc.oneof(hostileString, fc.constantFrom("1", "2", "999999", "2026-11-22", "vite"));
    const seen: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(name, value), { maxLength: 3 }), async (params) => {
        const query = params.map(([k, v]) => `${encodeLoosely(k)}=${encodeLoosely(v)}`).join("&");
        const res = await exportAvailabilityCsv(
          new Request(`http://localhost/api/esportazioni/disponibilita?${query}`, { headers: { cookie } }),
        );
        const text = await res.text(); // a 200 streams the whole catalogue: read to the end, where a late failure would show
        seen[res.status] = (seen[res.status] ?? 0) + 1;
        const where = `?${query} → ${res.status} ${text.slice(0, 300)}`;
        expect(res.status, where).toBeLessThan(500);
        if (res.status === 200)
          expect(text, where).toMatch(/^codice;descrizione;/); // text() drops the byte-order mark
        else expect(Object.hasOwn(ERROR_STATUS, (JSON.parse(text) as { codice: string }).codice), where).toBe(true);
      }),
      { numRuns: Math.ceil(RUNS / 3), seed: SEED },
    );
    console.log(
      `[affidabilità] esportazione della disponibilità: ${JSON.stringify({ seed: SEED, provate: Math.ceil(RUNS / 3), status: seen })}`,
    );
    expect(seen["200"] ?? 0).toBeGreaterThan(0);
  }, 300_000);
});
