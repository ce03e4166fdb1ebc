import { afterAll, describe, expect } from "vitest";
import { createUser } from "../../src/server/modules/users/users.service";
import type { TestDb } from "../../src/server/testing/db";
import { PGBOUNCER_BIN, type PgBouncer, pgbouncerInstalled, startPgBouncer } from "../../src/server/testing/pgbouncer";
import { test } from "../../src/server/testing/test";
import { call, cleanup, ensureBuild, launch, type Service, sleep, verify, waitUntil } from "./harness";
import { type Across, overReceipt, sameKeyRace, syncReader } from "./promises";
import { reservationRace } from "./reservation-promises";
import { ARTICLES, closeReceivers, createFor, eventsAfter, Receiver, writeMany } from "./receiver";
import { deleteWhileDelivering, expectNoSuspendedDeliveries } from "./webhook-delete";
import { createKey, seedArticles, seedSupplier, seedWarehouse } from "./seed";
import { PASSWORD, revocationAcross, type Signed, signInOn, untilListening } from "./sessions";

/**
 * Two service processes whose pools reach PostgreSQL through a real PgBouncer in transaction mode
 * (DATABASE_URL = the pooler), and what needs a session of its own through DATABASE_DIRECT_URL
 * (migrations, the authentication cache's LISTEN, the webhook workers' endpoint locks). PgBouncer gets
 * fewer server connections than the two pools have clients, so their transactions share server
 * connections. Every promise of the two-instance suite must hold as it does on PostgreSQL directly.
 *
 * PgBouncer is Debian's package (`apt-get install -y pgbouncer`; .ci/run installs it): without it this
 * file fails, it does not skip. PGBOUNCER_BIN names another binary.
 */

const report = (what: string, data: unknown) => console.log(`[affidabilità] ${what}: ${JSON.stringify(data)}`);

/** Server connections PgBouncer may open to the database: fewer than the two instances' 2 × 10 pool clients. */
const POOLER_SERVERS = 6;

let t: TestDb;
let bouncer: PgBouncer;
let a: Service;
let b: Service;
let key: string;
let keyId: number;
let admin: Signed;
let m1: number;
let m2: number;
let f1: number;
let plain: number[];

const on = (i: number) => [a, b][i % 2]!.base;
const across = (): Across => ({ pool: t.pool, key, on, m1, m2, f1, plain });

/** This database's PostgreSQL connections by who holds them: the pooler's, the instances' own, the test's. */
async function serverConnections(): Promise<Record<string, number>> {
  const { rows } = await t.pool.query<{ who: string; n: number }>(
    `SELECT CASE WHEN application_name = 'banchina-autenticazione' THEN 'ascolto'
                 WHEN pid = ANY ($1::int[]) THEN 'pgbouncer'
                 ELSE 'altre' END AS who, count(*)::int AS n
       FROM pg_stat_activity WHERE datname = current_database() GROUP BY 1`,
    [(await bouncer.admin<{ remote_pid: string }>("SHOW SERVERS")).map((s) => Number(s.remote_pid))],
  );
  return Object.fromEntries(rows.map((r) => [r.who, r.n]));
}

test.beforeAll(async ({ db }) => {
  if (!pgbouncerInstalled())
    throw new Error(
      `PgBouncer non è installato (${PGBOUNCER_BIN}): questo file lo avvia davanti al PostgreSQL dei test. ` +
        "Installarlo con `apt-get install -y pgbouncer` (.ci/run lo installa), o indicare il binario con PGBOUNCER_BIN.",
    );
  await ensureBuild((m) => console.log(`[affidabilità] ${m}`));
  t = db;
  m1 = await seedWarehouse(t.pool, "M1");
  m2 = await seedWarehouse(t.pool, "M2");
  f1 = await seedSupplier(t.pool, "F1");
  plain = await seedArticles(t.pool, "DP", 5);
  await seedArticles(t.pool, "WH", ARTICLES);
  ({ chiave: key, id: keyId } = await createKey(t.pool, ["scrittura"]));
  await createUser(t.prisma, { username: "amministratore-pooler", password: PASSWORD, ruolo: "amministratore" });
  bouncer = await startPgBouncer(t.url, { poolSize: POOLER_SERVERS });
  const env = { DATABASE_DIRECT_URL: t.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };
  [a, b] = await Promise.all([launch({ databaseUrl: bouncer.url(t.url), env }), launch({ databaseUrl: bouncer.url(t.url), env })]);
  await untilListening(t.pool, 2);
  for (const s of [a, b]) {
    expect((await call(s.base, "GET", "/clienti", { key })).status).toBe(200);
    expect((await call(s.base, "POST", "/arrivi/cerca", { key, body: { fornitore: f1 } })).status).toBe(200);
  }
  admin = await signInOn(a, "amministratore-pooler");
}, 600_000);

afterAll(async () => {
  await closeReceivers();
  await cleanup();
  await bouncer?.stop();
}, 120_000);

describe("two instances through PgBouncer in transaction mode", () => {
  test("the pools go through the pooler, the sessions to PostgreSQL; the pooler's connections carry the generic-plan setting", async () => {
    for (const s of [a, b]) expect(s.output()).toContain("Database: il pooler di DATABASE_URL (modalità transaction)");
    const clients = await bouncer.admin<{ database: string }>("SHOW CLIENTS");
    expect(clients.filter((c) => c.database === t.name).length).toBeGreaterThanOrEqual(2);
    const pools = await bouncer.admin<{ database: string; pool_mode: string }>("SHOW POOLS");
    expect(pools.find((p) => p.database === t.name)?.pool_mode).toBe("transaction");
    const { rows } = await t.pool.query<{ setconfig: string[] }>(
      `SELECT s.setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
        WHERE d.datname = current_database() AND s.setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)`,
    );
    expect(rows[0]?.setconfig).toContain("plan_cache_mode=force_generic_plan");
    const connections = await serverConnections();
    report("connessioni a PostgreSQL dopo l'avvio", connections);
    expect(connections.ascolto).toBe(2);
    expect(connections.pgbouncer ?? 0).toBeLessThanOrEqual(POOLER_SERVERS);
  });

  test("over-receipt: 20 parallel arrivals of 1 on a row of 10 split across the instances: 10 accepted", () => overReceipt(across()));

  test("idempotency: 20 identical requests with one Idempotency-Key across the instances: one effect", () => sameKeyRace(across()));

  test("reservations: 20 reservations of 1, 10 unloads and 10 transfers out naming none, racing for the last 10 pieces: 10 succeed", () =>
    reservationRace(across(), "PB"));

  test("sync: a reader on one instance while writers write on both sees every movement exactly once, in order", () => syncReader(across()));

  test("revocation: a key revoked on A is refused by B as soon as the notice reaches B's LISTEN on PostgreSQL (10 times)", async () => {
    const seen = await revocationAcross(t.pool, a, b, admin, 10);
    report("revoca vista dall'altra istanza, attraverso PgBouncer", { giri: 10, ...seen });
  });

  test("webhooks: 300 events written on both instances reach the receiver once each, in order, one logged attempt per delivery", async () => {
    const rx = new Receiver();
    await rx.open();
    const ep = await createFor(t, rx);
    const n = 300;
    const started = Date.now();
    await writeMany([a.base, b.base], { t, key, keyId, m1 }, n, 8);
    await waitUntil(`${n} consegne`, () => rx.distinctIds().size >= n, 120_000, 100);
    const deliveredMs = Date.now() - started;
    await sleep(1_500); // a late second attempt would show here
    const events = await eventsAfter(a.base, key, ep.cursore, "movimenti.registrati");
    expect(events).toHaveLength(n);
    expect(rx.got).toHaveLength(n);
    expect(rx.got.map((x) => x.id)).toEqual(events.map((e) => e.id));
    for (const x of rx.got) expect(x.verified, x.verifyError).toBe(true);
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS tentativi, count(DISTINCT consegna_id)::int AS consegne,
              count(*) FILTER (WHERE esito = 'consegnato')::int AS consegnati
         FROM webhook_tentativi WHERE endpoint_id = $1`,
      [ep.id],
    );
    expect(rows[0]).toEqual({ tentativi: n, consegne: n, consegnati: n });
    report("webhook attraverso PgBouncer", { eventi: n, msDallaPrimaScrittura: deliveredMs });
    await rx.close();
  }, 180_000);

  test("webhooks: a DELETE sent to both instances while a parallel endpoint delivers: no 5xx, every event counted, nothing after", async () => {
    const control = new Receiver();
    await control.open();
    await createFor(t, control);
    const hookKey = (await createKey(t.pool, ["webhook"])).chiave;
    const c = { t, key, keyId, m1 };
    await deleteWhileDelivering(c, [a, b], hookKey, control, 0, true);
    await deleteWhileDelivering(c, [a, b], hookKey, control, 1, false);
    expectNoSuspendedDeliveries([a, b]);
    await control.close();
  }, 300_000);

  test("under all of it the pooler kept to its server connections, and the ledger check passes", async () => {
    const connections = await serverConnections();
    const servers = await bouncer.admin<{ database: string }>("SHOW SERVERS");
    report("connessioni a PostgreSQL alla fine", { ...connections, serverDelPooler: servers.filter((s) => s.database === t.name).length });
    expect(servers.filter((s) => s.database === t.name).length).toBeLessThanOrEqual(POOLER_SERVERS);
    expect(bouncer.log()).not.toMatch(/prepared statement|unsupported startup parameter/i);
    const v = await verify({ databaseUrl: t.url });
    expect(v.code, v.stdout + v.stderr).toBe(0);
  }, 120_000);
});
