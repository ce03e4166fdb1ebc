import { describe, expect } from "vitest";
import type { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { getConfig } from "../../config";
import { createContextInner } from "../../trpc/context";
import { appRouter } from "../../trpc/router";
import { handleTrpcRequest } from "../../trpc/ui-handler";
import { createUser } from "../users/users.service";
import { hashSessionToken, readCookie, resolveSession, signIn, SIGN_IN_LIMITS } from "./sessions.service";

/** The UI channel over HTTP, as the browser reaches it: cookies, the CSRF header, statuses. */

let t: TestDb;
const PASSWORD = "password-di-prova";

test.beforeAll(async ({ db }) => {
  t = db;
  await createUser(t.prisma, { username: "mario", password: PASSWORD, ruolo: "operatore" });
  await createUser(t.prisma, { username: "lucia", password: PASSWORD, ruolo: "responsabile" });
});

let addressSeq = 0;
/** Every test its own client address, so the per-address bucket of one never slows another. */
const newAddress = () => `10.0.0.${++addressSeq}`;

interface Call {
  status: number;
  body: any;
  headers: Headers;
}

async function trpc(
  path: string,
  opts: { input?: unknown; mutation?: boolean; cookie?: string; csrf?: string; headers?: Record<string, string>; address?: string } = {},
): Promise<Call> {
  const headers: Record<string, string> = { "x-banchina-indirizzo": opts.address ?? "10.0.0.250", ...opts.headers };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.csrf) headers["x-csrf-token"] = opts.csrf;
  let url = `http://localhost/api/trpc/${path}`;
  let init: RequestInit = { method: "GET", headers };
  if (opts.mutation) {
    headers["content-type"] = "application/json";
    // As @trpc/client sends it: a mutation without input posts no body at all.
    init = { method: "POST", headers, body: opts.input === undefined ? undefined : JSON.stringify(opts.input) };
  } else if (opts.input !== undefined) {
    url += `?input=${encodeURIComponent(JSON.stringify(opts.input))}`;
  }
  const res = await handleTrpcRequest(new Request(url, init));
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The sign-in procedure with the service configured for (or without) a trusted proxy; the Set-Cookie it would send. */
async function signInThrough(headers: Record<string, string>, opts: { trustProxy: boolean }) {
  const config = { ...getConfig(), TRUST_PROXY: opts.trustProxy ? "true" : "false" } as const;
  const ctx = createContextInner({
    db: t.prisma,
    config,
    channel: "trpc",
    headers: new Headers({ "x-banchina-indirizzo": newAddress(), ...headers }),
  });
  await appRouter.createCaller(ctx).session.signIn({ username: "mario", password: PASSWORD });
  return { setCookie: ctx.response.headers["Set-Cookie"] ?? "" };
}

async function login(username: string, password = PASSWORD, extra: { headers?: Record<string, string>; address?: string } = {}) {
  const r = await trpc("session.signIn", { mutation: true, input: { username, password }, ...extra });
  const setCookie = r.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0]!;
  return { ...r, setCookie, cookie, csrf: r.body.result?.data?.csrf as string };
}

describe("sign-in and the session cookie", () => {
  test("a good password opens a session: httpOnly, SameSite=Strict cookie; the table keeps only its hash", async () => {
    const r = await login("Mario ", PASSWORD, { address: newAddress() });
    expect(r.status).toBe(200);
    expect(r.body.result.data).toMatchObject({ utente: { username: "mario", ruolo: "operatore" }, csrf: expect.any(String) });
    expect(r.setCookie).toMatch(/^banchina_sessione=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Expires=/);
    expect(r.setCookie).not.toMatch(/Secure/);
    const token = r.cookie.split("=")[1]!;
    const stored = await t.pool.query("SELECT id, csrf FROM sessioni");
    expect(stored.rows.map((s) => s.id)).toContain(hashSessionToken(token));
    expect(stored.rows.map((s) => s.id)).not.toContain(token);

    const me = await trpc("session.me", { cookie: r.cookie });
    expect(me.status).toBe(200);
    expect(me.body.result.data).toMatchObject({ utente: { username: "mario", ruolo: "operatore" }, csrf: r.csrf });
  });

  test("a user name holding U+0000 is a validation error on the UI channel, not a database failure", async () => {
    const r = await login("mario\u0000", PASSWORD, { address: newAddress() });
    expect(r.status).toBe(422);
    expect(r.body.error.data).toMatchObject({ codice: "richiesta_non_valida", campo: "username" });
    expect(r.setCookie).toBe("");
  });

  test.each([
    ["not JSON", "{nome"],
    ["empty", ""],
    ["cut short", '{"username":"mario"'],
  ])("a body that is not JSON (%s) is json_non_valido on the UI channel, not an internal error", async (_name, body) => {
    const res = await handleTrpcRequest(
      new Request("http://localhost/api/trpc/session.signIn", {
        method: "POST",
        headers: { "content-type": "application/json", "x-banchina-indirizzo": newAddress() },
        body,
      }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      message: "Il corpo della richiesta non è JSON valido.",
      data: { codice: "json_non_valido" },
    });
  });

  test("behind a trusted proxy saying https (X-Forwarded-Proto) the cookie is Secure; without TRUST_PROXY the header is ignored", async () => {
    const behindProxy = await signInThrough({ "x-forwarded-proto": "https" }, { trustProxy: true });
    expect(behindProxy.setCookie).toMatch(/; Secure$/);
    const direct = await login("mario", PASSWORD, { headers: { "x-forwarded-proto": "https" }, address: newAddress() });
    expect(direct.status).toBe(200);
    expect(direct.setCookie).not.toMatch(/Secure/);
  });

  test("a wrong password and an unknown user get the same answer", async () => {
    const address = newAddress();
    const wrong = await login("mario", "non-la-sua", { address });
    const unknown = await login("nessuno", "non-la-sua", { address });
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ message: "Nome utente o password non corretti.", data: { codice: "non_autenticato" } });
      expect(r.setCookie).toBe("");
    }
  });

  test("a sign-in posted from another site is refused (login CSRF)", async () => {
    const r = await login("mario", PASSWORD, { headers: { origin: "http://malevolo.example", host: "localhost" }, address: newAddress() });
    expect(r.status).toBe(403);
    const same = await login("mario", PASSWORD, {
      headers: { origin: "http://localhost:3000", host: "localhost:3000" },
      address: newAddress(),
    });
    expect(same.status).toBe(200);
  });

  test("TRUST_PROXY=false: X-Forwarded-Host is anyone's header and cannot vouch for a foreign Origin", async () => {
    const forged = await login("mario", PASSWORD, {
      headers: { origin: "http://malevolo.example", host: "localhost:3000", "x-forwarded-host": "malevolo.example" },
      address: newAddress(),
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.data.codice).toBe("permesso_negato");
    // Direct, Host decides; the forwarded header is ignored either way.
    const direct = await login("mario", PASSWORD, {
      headers: { origin: "http://localhost:3000", host: "localhost:3000", "x-forwarded-host": "altro.example" },
      address: newAddress(),
    });
    expect(direct.status).toBe(200);
  });

  test("TRUST_PROXY=true: the proxy's X-Forwarded-Host is the host the browser asked for", async () => {
    const proxied = { host: "127.0.0.1:3000", "x-forwarded-host": "banchina.example" };
    expect((await signInThrough({ ...proxied, origin: "https://banchina.example" }, { trustProxy: true })).setCookie).toMatch(
      /^banchina_sessione=/,
    );
    await expect(signInThrough({ ...proxied, origin: "http://malevolo.example" }, { trustProxy: true })).rejects.toMatchObject({
      cause: { codice: "permesso_negato" },
    });
    // The same request without a trusted proxy: the Origin names a host that is not ours (Host is 127.0.0.1:3000).
    await expect(signInThrough({ ...proxied, origin: "https://banchina.example" }, { trustProxy: false })).rejects.toMatchObject({
      cause: { codice: "permesso_negato" },
    });
  });

  test("no cookie, a forged cookie, an expired session: 401", async () => {
    expect((await trpc("session.me")).status).toBe(401);
    expect((await trpc("session.me", { cookie: "banchina_sessione=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" })).status).toBe(401);
    const r = await login("mario", PASSWORD, { address: newAddress() });
    await t.pool.query("UPDATE sessioni SET scade_il = now() - interval '1 second' WHERE id = $1", [
      hashSessionToken(r.cookie.split("=")[1]!),
    ]);
    const expired = await trpc("catalogue.warehouses", { cookie: r.cookie });
    expect(expired.status).toBe(401);
    expect(expired.body.error.data.codice).toBe("non_autenticato");
  });

  test("sign-out ends the session on the server and clears the cookie", async () => {
    const r = await login("mario", PASSWORD, { address: newAddress() });
    const out = await trpc("session.signOut", { mutation: true, cookie: r.cookie, csrf: r.csrf });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^banchina_sessione=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/);
    expect((await trpc("session.me", { cookie: r.cookie })).status).toBe(401);
  });

  test("a deactivated user's open session stops working at once; a role change applies at once", async () => {
    await createUser(t.prisma, { username: "temporaneo", password: PASSWORD, ruolo: "responsabile" });
    const r = await login("temporaneo", PASSWORD, { address: newAddress() });
    expect((await trpc("availability.list", { cookie: r.cookie, input: {} })).status).toBe(200);
    await t.pool.query("UPDATE utenti SET ruolo = 'operatore' WHERE username = 'temporaneo'");
    expect((await trpc("availability.list", { cookie: r.cookie, input: {} })).status).toBe(403);
    await t.pool.query("UPDATE utenti SET attivo = false WHERE username = 'temporaneo'");
    expect((await trpc("session.me", { cookie: r.cookie })).status).toBe(401);
    expect((await login("temporaneo", PASSWORD, { address: newAddress() })).status).toBe(401);
  });
});

describe("CSRF", () => {
  test("a mutation with the session cookie but without, or with a wrong, CSRF token is refused before it runs", async () => {
    const r = await login("lucia", PASSWORD, { address: newAddress() });
    const before = (await t.pool.query("SELECT count(*)::int AS n FROM movimenti")).rows[0].n;
    const write = { natura: "carico", magazzino: 1, righe: [{ codice: "X", quantita: 1 }] };
    for (const csrf of [undefined, "sbagliato", r.csrf.slice(0, -1)]) {
      const res = await trpc("movements.write", { mutation: true, input: write, cookie: r.cookie, csrf });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ data: { codice: "permesso_negato" }, message: expect.stringMatching(/CSRF/) });
    }
    // Another session's token is no better than none.
    const other = await login("lucia", PASSWORD, { address: newAddress() });
    expect((await trpc("movements.write", { mutation: true, input: write, cookie: r.cookie, csrf: other.csrf })).status).toBe(403);
    expect((await t.pool.query("SELECT count(*)::int AS n FROM movimenti")).rows[0].n).toBe(before);
    // With its own token the same call reaches the procedure (and is refused there: no such warehouse).
    const ok = await trpc("movements.write", { mutation: true, input: write, cookie: r.cookie, csrf: r.csrf });
    expect(ok.body.error.data.codice).toBe("magazzino_non_trovato");
  });

  test("queries need no token; the REST facade never reads the cookie", async () => {
    const r = await login("lucia", PASSWORD, { address: newAddress() });
    expect((await trpc("catalogue.warehouses", { cookie: r.cookie })).status).toBe(200);
    const { rest } = await import("../../testing/fixtures");
    const viaRest = await rest("GET", "/clienti", { headers: { cookie: r.cookie } });
    expect(viaRest.status).toBe(401);
  });
});

describe("sign-in rate limit", () => {
  test("after 5 failed attempts on a username from one address the 6th waits, with an Italian message and Retry-After; a success refills", async () => {
    await createUser(t.prisma, { username: "bersaglio", password: PASSWORD, ruolo: "operatore" });
    const address = newAddress();
    for (let i = 0; i < 5; i++) expect((await login("bersaglio", `errata-${i}`, { address })).status).toBe(401);
    const blocked = await login("bersaglio", PASSWORD, { address });
    expect(blocked.status).toBe(429);
    // The five attempts took a moment (argon2): the bucket has refilled by that much.
    const wait = Number(blocked.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(20);
    expect(wait).toBeLessThanOrEqual(30);
    expect(blocked.body.error).toMatchObject({
      message: `Troppi tentativi di accesso. Riprovare tra ${wait} secondi.`,
      data: { codice: "troppe_richieste" },
    });
    // The bucket is in the database (every instance shares it): half a minute later one attempt is allowed.
    await t.pool.query(
      "UPDATE limiti_richieste SET aggiornato_il = aggiornato_il - interval '31 seconds' WHERE chiave LIKE 'accesso:utente:bersaglio:%'",
    );
    expect((await login("bersaglio", PASSWORD, { address })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await login("bersaglio", `errata-${i}`, { address })).status).toBe(401);
  });

  test("lockout is no denial of service: one wrong attempt every 30 s from one address never keeps the user out of another", async () => {
    await createUser(t.prisma, { username: "capo", password: PASSWORD, ruolo: "amministratore" });
    const attacker = newAddress();
    const own = newAddress();
    const halfAMinute = () =>
      t.pool.query("UPDATE limiti_richieste SET aggiornato_il = aggiornato_il - interval '30 seconds' WHERE chiave LIKE 'accesso:%'");
    // A burst empties the bucket, then one attempt every 30 s spends each token as it comes back.
    for (let i = 0; i < 5; i++) expect((await login("capo", `raffica-${i}`, { address: attacker })).status).toBe(401);
    for (let round = 0; round < 4; round++) {
      await halfAMinute();
      expect((await login("capo", `tentativo-${round}`, { address: attacker })).status).toBe(401);
      // Right after the attacker's attempt, the administrator at their own terminal with the right password.
      const admin = await login("capo", PASSWORD, { address: own });
      expect(admin.status, JSON.stringify(admin.body)).toBe(200);
      await trpc("session.signOut", { mutation: true, cookie: admin.cookie, csrf: admin.csrf });
    }
    // The attacker's own address stays limited for that username: 5 tries, then one every 30 s.
    expect((await login("capo", "ancora", { address: attacker })).status).toBe(429);
    expect((await login("capo", PASSWORD, { address: attacker })).status).toBe(429);
  });

  test("one address trying many usernames is slowed too", async () => {
    const address = newAddress();
    const limits = { username: SIGN_IN_LIMITS.username, address: { burst: 3, perSecond: 1 / 5 } };
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) {
      try {
        await signIn(t.prisma, { username: `nome${i}`, password: "x", address }, limits);
      } catch (e) {
        codes.push((e as DomainError).codice);
      }
    }
    expect(codes).toEqual(["non_autenticato", "non_autenticato", "non_autenticato", "troppe_richieste"]);
  });

  test("concurrent attempts cannot spend the same token twice", async () => {
    await createUser(t.prisma, { username: "assalto", password: PASSWORD, ruolo: "operatore" });
    const address = newAddress();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        signIn(t.prisma, { username: "assalto", password: `x${i}`, address }).catch((e: DomainError) => e.codice),
      ),
    );
    expect(results.filter((c) => c === "non_autenticato")).toHaveLength(5);
    expect(results.filter((c) => c === "troppe_richieste")).toHaveLength(7);
  });

  test("a malformed cookie is a missing session, never a server error", async () => {
    expect(readCookie("a=1; banchina_sessione=%E0%A4%A", "banchina_sessione")).toBe("%E0%A4%A");
    expect((await trpc("session.me", { cookie: "banchina_sessione=%E0%A4%A" })).status).toBe(401);
  });

  test("resolveSession refuses malformed tokens without a query", async () => {
    expect(await resolveSession(t.prisma, "corto")).toBeNull();
    expect(await resolveSession(t.prisma, `${"x".repeat(40)}'; --`)).toBeNull();
  });
});
