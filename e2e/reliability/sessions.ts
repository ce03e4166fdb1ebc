import type pg from "pg";
import { expect } from "vitest";
import { call, type Service, sleep } from "./harness";
import { createKey } from "./seed";

/**
 * Users' sessions and the authentication cache across instances, for auth-cache.test.ts and
 * pgbouncer.test.ts: the UI's channel as a browser calls it, and the listeners' connections.
 */

export const PASSWORD = "Lampione-verde-93-Zq7!";

export interface Signed {
  cookie: string;
  csrf: string;
}

/** A procedure of the UI's channel, as the browser calls it. */
export function trpc(s: Service, path: string, opts: { input?: unknown; as?: Signed; query?: boolean } = {}) {
  const headers: Record<string, string> = {};
  if (opts.as) Object.assign(headers, { cookie: opts.as.cookie, "x-csrf-token": opts.as.csrf });
  return opts.query
    ? call(s.base, "GET", `/api/trpc/${path}`, { headers })
    : call(s.base, "POST", `/api/trpc/${path}`, { headers, body: opts.input ?? {} });
}

export async function signInOn(s: Service, username: string): Promise<Signed> {
  const r = await trpc(s, "session.signIn", { input: { username, password: PASSWORD } });
  expect(r.status, r.text).toBe(200);
  return { cookie: r.headers.get("set-cookie")!.split(";")[0]!, csrf: r.body.result.data.csrf };
}

/** The instances' LISTEN connections on this database (pool: PostgreSQL itself). */
export const listeners = async (pool: pg.Pool) =>
  (
    await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'banchina-autenticazione'",
    )
  ).rows[0]!.n;

export async function untilListening(pool: pg.Pool, n: number): Promise<void> {
  const end = Date.now() + 30_000;
  while ((await listeners(pool)) !== n) {
    if (Date.now() > end) throw new Error(`in ascolto: ${await listeners(pool)} connessioni invece di ${n}`);
    await sleep(50);
  }
}

/**
 * A key revoked by an administrator on A, `rounds` times: B refuses it as soon as the notice reaches it,
 * never a TTL later; so does A, whose own notice comes the same way. An instance can know of the commit
 * only once its notice arrives: a request that reaches it before is served as one in flight during the
 * revocation would be. Counted, and bounded far below the TTL (30 s).
 */
export async function revocationAcross(
  pool: pg.Pool,
  a: Service,
  b: Service,
  admin: Signed,
  rounds: number,
): Promise<{ servedBeforeTheNotice: number; slowest: number }> {
  let servedBeforeTheNotice = 0;
  let slowest = 0;
  for (let i = 0; i < rounds; i++) {
    const k = await createKey(pool, ["lettura", "scrittura"]);
    for (const s of [a, b, b]) expect((await call(s.base, "GET", "/clienti", { key: k.chiave })).status).toBe(200);
    const revoked = await trpc(a, "apiKeys.revoke", { input: { id: k.id }, as: admin });
    expect(revoked.status, revoked.text).toBe(200);
    const since = Date.now();
    for (const s of [b, a]) {
      for (;;) {
        const next = await call(s.base, "GET", "/clienti", { key: k.chiave });
        if (next.status === 401) {
          expect(next.body.codice).toBe("non_autenticato");
          break;
        }
        expect(next.status).toBe(200);
        servedBeforeTheNotice++;
        // Half the TTL: a cache that waited for its entries to expire fails this, a busy machine does not.
        expect(Date.now() - since, `giro ${i}`).toBeLessThan(15_000);
      }
    }
    slowest = Math.max(slowest, Date.now() - since);
  }
  return { servedBeforeTheNotice, slowest };
}
