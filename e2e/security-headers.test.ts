import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanup, ensureBuild, launch, tempDir, type Service } from "./reliability/harness";

/**
 * The security headers as a browser receives them from the real service (`src/server/main.ts`, the
 * production build): every page carries a nonce-based Content-Security-Policy that Next's own scripts
 * carry too, framing is refused, and every API answer is `nosniff` and `no-store`.
 */

let service: Service;
let key: string;
let cookie: string;

const SCREENS = [
  "/ricevimento",
  "/ricevimento/fornitore",
  "/inventario",
  "/ordini",
  "/ordini/1/etichette",
  "/disponibilita",
  "/movimenti",
  "/movimenti/nuovo",
  "/vendite",
  "/vendite/nuovo",
  "/utenti",
  "/chiavi-api",
];

beforeAll(async () => {
  await ensureBuild();
  const dataDir = tempDir("banchina-sec-");
  service = await launch({ dataDir, env: { DEMO_DATA: "true" } });
  key = fs.readFileSync(path.join(dataDir, "chiave-demo.txt"), "utf8").trim();
  const admin = fs
    .readFileSync(path.join(dataDir, "utenti-demo.txt"), "utf8")
    .split("\n")
    .map((l) => l.split("\t"))
    .find((f) => f[2] === "amministratore")!;
  const res = await fetch(`${service.base}/api/trpc/session.signIn`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: service.base },
    body: JSON.stringify({ username: admin[0], password: admin[1] }),
  });
  expect(res.status).toBe(200);
  cookie = res.headers.get("set-cookie")!.split(";")[0]!;
}, 600_000);
afterAll(cleanup);

const get = (p: string, headers: Record<string, string> = {}) => fetch(`${service.base}${p}`, { headers, redirect: "manual" });

function directives(csp: string | null): Map<string, string[]> {
  expect(csp, "Content-Security-Policy").toBeTruthy();
  return new Map(
    csp!
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
}

/** The page policy, and that every script of the page carries its nonce (Next stamps them). */
async function expectPagePolicy(res: Response): Promise<void> {
  expect(res.headers.get("content-type")).toMatch(/text\/html/);
  const csp = directives(res.headers.get("content-security-policy"));
  const scriptSrc = csp.get("script-src")!;
  expect(scriptSrc).toContain("'strict-dynamic'");
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(scriptSrc).not.toContain("'unsafe-eval'");
  const nonce = scriptSrc.find((s) => s.startsWith("'nonce-"))!.slice(7, -1);
  expect(nonce.length).toBeGreaterThanOrEqual(16);
  expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
  expect(csp.get("object-src")).toEqual(["'none'"]);
  expect(csp.get("base-uri")).toEqual(["'none'"]);
  expect(csp.get("default-src")).toEqual(["'self'"]);
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  const html = await res.text();
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag, tag).toContain(`nonce="${nonce}"`);
}

function expectApiHeaders(res: Response, cache = "no-store"): void {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("cache-control")).toBe(cache);
  expect(res.headers.get("content-security-policy")).toBeNull();
}

describe("security headers of the real service", () => {
  test.each(SCREENS)("the screen %s: nonce-based CSP on every script, no framing", async (p) => {
    const res = await get(p, { cookie });
    expect(res.status).toBe(200);
    await expectPagePolicy(res);
  });

  test("sign-in, the API documentation and an unknown page carry the page policy too", async () => {
    for (const p of ["/accesso", "/api/docs", "/non-esiste"]) {
      const res = await get(p);
      expect([200, 404], p).toContain(res.status);
      await expectPagePolicy(res);
    }
  });

  test("a fresh nonce per answer", async () => {
    const a = (await get("/accesso")).headers.get("content-security-policy");
    const b = (await get("/accesso")).headers.get("content-security-policy");
    expect(a).not.toBe(b);
  });

  test("a Content-Security-Policy sent by the client is never the one Next stamps", async () => {
    const res = await get("/accesso", {
      "content-security-policy": "script-src 'nonce-AAAAAAAAAAAAAAAAAAAAAAAA'",
      "x-nonce": "AAAAAAAAAAAAAAAAAAAAAAAA",
    });
    expect(await res.clone().text()).not.toContain("AAAAAAAAAAAAAAAAAAAAAAAA");
    await expectPagePolicy(res);
  });

  test("signed in, the redirect of /accesso goes only to a known screen", async () => {
    for (const dopo of ["/%5Cevil.example", "/%09/evil.example", "//evil.example", "/\\evil.example"]) {
      const res = await get(`/accesso?dopo=${encodeURIComponent(dopo)}`, { cookie });
      expect(res.status, dopo).toBe(307);
      expect(res.headers.get("location"), dopo).toBe("/");
    }
    const ok = await get(`/accesso?dopo=${encodeURIComponent("/movimenti?articolo=1")}`, { cookie });
    expect(ok.headers.get("location")).toBe("/movimenti?articolo=1");
  });

  test("API answers: nosniff and no-store (REST, the UI's tRPC, the export, health)", async () => {
    const bearer = { authorization: `Bearer ${key}` };
    const cases: [string, Record<string, string>, number][] = [
      ["/api/v1/movimenti?limite=1", bearer, 200],
      ["/api/v1/disponibilita?limite=1", bearer, 200],
      ["/api/v1/clienti", {}, 401],
      ["/api/v1/non-esiste", bearer, 404],
      ["/api/trpc/session.me", { cookie }, 200],
      ["/api/trpc/session.me", {}, 401],
      ["/api/esportazioni/disponibilita", { cookie }, 200],
      ["/api/health", {}, 200],
    ];
    for (const [p, headers, status] of cases) {
      const res = await get(p, headers);
      expect(res.status, p).toBe(status);
      expectApiHeaders(res);
      await res.arrayBuffer();
    }
    const search = await fetch(`${service.base}/api/v1/arrivi/cerca`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ barcode: "0000000000000" }),
    });
    expect(search.status).toBe(200);
    expectApiHeaders(search);
    // The OpenAPI document is public and carries no data: revalidated, not forbidden to caches.
    const doc = await get("/api/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.headers.get("x-content-type-options")).toBe("nosniff");
    expect(doc.headers.get("cache-control")).toBe("no-cache");
  });
});
