import fs from "node:fs";
import { afterAll, describe, expect } from "vitest";
import { createUser } from "../../src/server/modules/users/users.service";
import type { TestDb } from "../../src/server/testing/db";
import { test } from "../../src/server/testing/test";
import { call, cleanup, ensureBuild, launch, stop, type Service } from "./harness";
import { createKey } from "./seed";
import { PASSWORD, revocationAcross, type Signed, signInOn, trpc, untilListening as untilListeningOn } from "./sessions";

/**
 * The authentication cache across two real service processes on one database: each caches
 * keys and sessions and hears changes through LISTEN/NOTIFY. An administrator's change on instance A
 * must be refused by instance B as soon as the notice reaches it, with no TTL to wait out; with the
 * listeners gone, requests go to the database and nothing is missed.
 */

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestDb;
let a: Service;
let b: Service;
let admin: Signed;

const untilListening = (n: number) => untilListeningOn(t.pool, n);

test.beforeAll(async ({ db }) => {
  await ensureBuild((m) => console.log(`[affidabilità] ${m}`));
  t = db;
  await createUser(t.prisma, { username: "amministratore-cache", password: PASSWORD, ruolo: "amministratore" });
  [a, b] = await Promise.all([launch({ databaseUrl: t.url }), launch({ databaseUrl: t.url })]);
  await untilListening(2);
  admin = await signInOn(a, "amministratore-cache");
}, 600_000);

afterAll(async () => {
  await cleanup();
}, 120_000);

describe("two instances, one database", () => {
  test("B answers from its cache, and only the notice makes it stop: without it a revoked key would pass", async () => {
    const k = await createKey(t.pool, ["lettura"]);
    for (const s of [a, b]) expect((await call(s.base, "GET", "/clienti", { key: k.chiave })).status).toBe(200);
    // Revoked with the notice silenced: the instances keep answering from what they cached.
    await t.pool.query("ALTER TABLE chiavi_api DISABLE TRIGGER chiavi_api_avviso_modifica");
    try {
      await t.pool.query("UPDATE chiavi_api SET revocata_il = now() WHERE id = $1", [k.id]);
    } finally {
      await t.pool.query("ALTER TABLE chiavi_api ENABLE TRIGGER chiavi_api_avviso_modifica");
    }
    for (const s of [a, b]) expect((await call(s.base, "GET", "/clienti", { key: k.chiave })).status).toBe(200);
    // The notice the trigger would have sent.
    await t.pool.query("SELECT pg_notify('banchina_autenticazione', $1)", [`chiave:${k.id}`]);
    await sleep(200);
    for (const s of [a, b]) expect((await call(s.base, "GET", "/clienti", { key: k.chiave })).status).toBe(401);
  });

  test("a key revoked by an administrator on A is refused by B as soon as the notice reaches it, never a TTL later (20 times)", async () => {
    const { servedBeforeTheNotice, slowest } = await revocationAcross(t.pool, a, b, admin, 20);
    report("revoca vista dall'altra istanza", { giri: 20, richiesteServitePrimaDellAvviso: servedBeforeTheNotice, msMassimi: slowest });
  });

  test("a user's session on B: a new role given on A counts at once; deactivated on A, refused at the next request", async () => {
    const created = await createUser(t.prisma, { username: "operatore-cache", password: PASSWORD, ruolo: "operatore" });
    const session = await signInOn(b, "operatore-cache");
    for (let i = 0; i < 2; i++) {
      const me = await trpc(b, "session.me", { as: session, query: true });
      expect(me.status, me.text).toBe(200);
      expect(me.body.result.data.utente.ruolo).toBe("operatore");
    }
    expect((await trpc(a, "users.update", { input: { id: created.id, ruolo: "responsabile" }, as: admin })).status).toBe(200);
    const promoted = await trpc(b, "session.me", { as: session, query: true });
    expect(promoted.body.result.data.utente.ruolo).toBe("responsabile");

    expect((await trpc(a, "users.update", { input: { id: created.id, attivo: false }, as: admin })).status).toBe(200);
    const refused = await trpc(b, "session.me", { as: session, query: true });
    expect(refused.status).toBe(401);
  });

  test("the listeners killed: requests go to the database, a revocation meanwhile is not missed, both listen again", async () => {
    const kept = await createKey(t.pool, ["lettura"]);
    const revoked = await createKey(t.pool, ["lettura"]);
    for (const s of [a, b])
      for (const k of [kept, revoked]) expect((await call(s.base, "GET", "/clienti", { key: k.chiave })).status).toBe(200);

    const killed = await t.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'banchina-autenticazione'",
    );
    expect(killed.rowCount).toBe(2);
    // Committed while the listeners are gone or coming back: the notice may reach nobody.
    await t.pool.query("UPDATE chiavi_api SET revocata_il = now() WHERE id = $1", [revoked.id]);
    for (const s of [a, b]) {
      expect((await call(s.base, "GET", "/clienti", { key: kept.chiave })).status).toBe(200);
      expect((await call(s.base, "GET", "/clienti", { key: revoked.chiave })).status).toBe(401);
    }
    await untilListening(2);
    for (const s of [a, b]) {
      expect((await call(s.base, "GET", "/clienti", { key: revoked.chiave })).status).toBe(401);
      expect((await call(s.base, "GET", "/clienti", { key: kept.chiave })).status).toBe(200);
      expect(s.output()).toContain("Autenticazione: ascolto delle modifiche interrotto");
      expect(s.output()).toContain("Autenticazione: ascolto delle modifiche ripreso");
    }
    report("ascolto interrotto e ripreso", { istanze: 2 });
  });
});

/** CPU time (user and system) a process has used, in ms. */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

describe("a service whose output is closed", () => {
  test("drops what it cannot log and goes on serving, without spinning on the failed writes", async () => {
    const c = await launch({ databaseUrl: t.url });
    await untilListening(3);
    // Whoever read its output goes away (the terminal closed, a `| tee` killed).
    c.proc.stdout!.destroy();
    c.proc.stderr!.destroy();
    // Something to log: the listeners cut ("ascolto delle modifiche interrotto", then "ripreso").
    await t.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'banchina-autenticazione'",
    );
    await untilListening(3);
    const before = cpuMsOf(c.pid);
    await sleep(3_000);
    const spent = cpuMsOf(c.pid) - before;
    report("uscita chiusa", { cpuMsIn3s: spent });
    // Idle, it spends next to nothing; the loop of failed writes it used to enter kept a core busy.
    expect(spent).toBeLessThan(300);
    const k = await createKey(t.pool, ["lettura"]);
    expect((await call(c.base, "GET", "/clienti", { key: k.chiave })).status).toBe(200);
    await stop(c);
  });
});
