import type { ModelDb } from "../db/client";
import type { Actor, Role, Scope } from "../modules/auth/actor";
import { createApiKey } from "../modules/auth/api-keys.service";
import { SESSION_COOKIE, signIn } from "../modules/auth/sessions.service";
import { createUser } from "../modules/users/users.service";
import { createContextInner } from "../trpc/context";
import { appRouter } from "../trpc/router";
import { handleRestRequest } from "../http/rest-handler";
import type { TestDb } from "./db";

/** Small builders for master data; each returns ids. */
export async function seedWarehouse(db: ModelDb, codice = "MAG1") {
  return db.magazzino.create({ data: { codice, nome: `Magazzino ${codice}` } });
}

export async function seedArticle(
  db: ModelDb,
  codice: string,
  opts: { ean?: string; lotti?: boolean; costo?: string; modelloId?: number; haVarianti?: boolean } = {},
) {
  return db.articolo.create({
    data: {
      codice,
      descrizione: `Articolo ${codice}`,
      ean: opts.ean ?? null,
      gestione_lotti: opts.lotti ?? false,
      costo_standard: opts.costo ?? null,
      modello_id: opts.modelloId ?? null,
      ha_varianti: opts.haVarianti ?? false,
    },
  });
}

export async function seedKey(db: ModelDb, scopes: Scope[] = ["lettura", "scrittura"], opts: { perSecond?: number; burst?: number } = {}) {
  return createApiKey(db, {
    nome: `test-${scopes.join("-")}`,
    permessi: scopes,
    limiteAlSecondo: opts.perSecond ?? 100_000,
    raffica: opts.burst ?? 100_000,
  });
}

/** A user of that role, signed in: the Cookie header and CSRF token the UI would send. */
export async function seedSession(db: ModelDb, username: string, ruolo: Role): Promise<{ cookie: string; csrf: string }> {
  await createUser(db, { username, password: "password-lunga", ruolo });
  const opened = await signIn(db, { username, password: "password-lunga", address: `sessione-${username}` });
  return { cookie: `${SESSION_COOKIE}=${opened.token}`, csrf: opened.csrf };
}

/** A tRPC caller as the UI or the CLI would use it, with the actor given directly. */
export function caller(t: TestDb, actor: Actor, channel: "rest" | "trpc" = "rest", headers: Record<string, string> = {}) {
  return appRouter.createCaller(createContextInner({ db: t.prisma, channel, actor, headers: new Headers(headers) }));
}

export interface RestResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A request through the REST facade, exactly as the HTTP route hands it over. */
export async function rest<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<RestResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Uint8Array | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await handleRestRequest(
    new Request(`http://localhost/api/v1${path}`, { method, headers, body: body as BodyInit | undefined }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Stock per (article, warehouse) from the ledger and from the maintained balance: they must agree. */
export async function stockOf(t: TestDb, articolo: number, magazzino: number) {
  const { rows } = await t.pool.query(
    `SELECT COALESCE((SELECT sum(quantita) FROM movimenti WHERE articolo_id = $1 AND magazzino_id = $2), 0)::text AS ledger,
            COALESCE((SELECT quantita FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2), 0)::text AS balance`,
    [articolo, magazzino],
  );
  return { ledger: Number(rows[0].ledger), balance: Number(rows[0].balance) };
}

export async function countRows(t: TestDb, table: string): Promise<number> {
  const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0].n;
}

export async function seedSupplier(db: ModelDb, codice: string) {
  return db.fornitore.create({ data: { codice, nome: `Fornitore ${codice}` } });
}

/** A purchase order with rows; returns the order and its row ids in position order. */
export async function seedOrder(
  db: ModelDb,
  opts: {
    numero: string;
    fornitore: number;
    magazzino: number;
    data: string;
    righe: { articolo: number; quantita: string; prezzo: string }[];
  },
) {
  const order = await db.ordineAcquisto.create({
    data: {
      numero: opts.numero,
      fornitore_id: opts.fornitore,
      magazzino_id: opts.magazzino,
      data: new Date(`${opts.data}T00:00:00Z`),
      righe: { create: opts.righe.map((r, i) => ({ posizione: i + 1, articolo_id: r.articolo, ordinata: r.quantita, prezzo: r.prezzo })) },
    },
    include: { righe: { orderBy: { posizione: "asc" }, select: { id: true } } },
  });
  return { id: order.id, righe: order.righe.map((r) => r.id) };
}
