/**
 * The ceiling of an HTTP service on this machine (scenario `tetto-node`, bench/scenarios/bare-node.ts):
 * POST /api/v1/movimenti, one row, answered by plain `node:http` and `pg` with nothing of ours in
 * between: no tRPC, trpc-to-openapi, zod, Prisma types, request context or error mapping. It does the
 * least any such service must: the Bearer key's hash looked up in memory, the JSON body parsed and its
 * fields checked by hand, the article looked up by code (the service's statement, the warehouse check
 * included), the ledger appended (the service's statement, which commits on its own in autocommit: one
 * round trip, as the service's append carries its COMMIT), and a JSON answer. Two round trips to
 * PostgreSQL, as the service's. And GET /api/v1/movimenti?limite=&dopo= (the movement scan): the sync
 * bound and the page sent together (pg's pipeline mode: one round trip, as the service's), the rows
 * shaped as the contract shows them (toMovementOutput), JSON. And GET
 * /api/v1/giacenze-ubicazioni?magazzino=&limite=&dopo= (the location-stock scan) the same way,
 * with the service's statement and row mapping (toLocationStockOutput); and GET
 * /api/v1/disponibilita?limite=&dopo= (the availability scan, or `articolo=` one article) with toAvailabilityOutput. And POST /api/v1/prenotazioni,
 * one reservation (bench/floor/reservations.ts: the service's statements, in its order). Not a product: a
 * measuring stick for what the stack itself costs.
 *
 *   DATABASE_URL=… PORT=… SERVICE_TIME_ZONE=… node --import tsx bench/bare-server.ts
 */
import http from "node:http";
import pg from "pg";
import type { Query } from "../src/server/db/sql";
import { businessDate } from "../src/server/lib/dates";
import { hashApiKey } from "../src/server/modules/auth/api-keys.service";
import * as availability from "../src/server/modules/availability/availability.queries";
import { toAvailabilityOutput } from "../src/server/modules/availability/availability.service";
import * as catalogue from "../src/server/modules/catalogue/catalogue.queries";
import { ledgerAppend } from "../src/server/modules/ledger/ledger.service";
import { uncoverAfterAppend } from "../src/server/modules/ledger/uncover";
import { SYNC_TABLES } from "../src/server/db/advisory-locks";
import { cutPage } from "../src/server/modules/lists/lists";
import * as lists from "../src/server/modules/lists/lists.queries";
import { toLocationStockOutput } from "../src/server/modules/locations/locations-stock.service";
import * as locationStock from "../src/server/modules/locations/locations-stock.queries";
import * as movements from "../src/server/modules/movements/movements.queries";
import { toMovementOutput } from "../src/server/modules/movements/movements.service";
import { reserve } from "./floor/reservations";

const TIME_ZONE = process.env.SERVICE_TIME_ZONE ?? "Europe/Rome";
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, pipeline: true } as pg.PoolConfig);
const keys = new Map(
  (await pool.query<{ hash: string; id: number }>("SELECT hash, id FROM chiavi_api WHERE revocata_il IS NULL")).rows.map((r) => [
    r.hash,
    r.id,
  ]),
);

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Answers with what `work` resolves to; anything it throws is a 500. */
function reply(res: http.ServerResponse, work: Promise<[number, unknown]>): void {
  work.then(
    ([status, out]) => answer(res, status, out),
    (e: unknown) => answer(res, 500, { codice: "errore_interno", messaggio: (e as Error).message }),
  );
}

async function writeMovement(keyId: number, body: Record<string, unknown>): Promise<[number, unknown]> {
  const row = (body.righe as Record<string, unknown>[] | undefined)?.[0];
  const natura = body.natura;
  const magazzino = body.magazzino;
  if ((natura !== "carico" && natura !== "scarico") || typeof magazzino !== "number" || !row)
    return [400, { codice: "richiesta_non_valida" }];
  if (typeof row.codice !== "string" || typeof row.quantita !== "number" || typeof row.prezzo !== "string") {
    return [400, { codice: "richiesta_non_valida" }];
  }
  const c = await pool.connect();
  try {
    const lookup = catalogue.articlesAndWarehouses({ codici: [row.codice], eans: [], warehouseIds: [magazzino] }, false);
    const found = await c.query({ name: "lookup", text: lookup.sql.text, values: lookup.sql.values });
    const article = found.rows.find((r) => r.id !== null);
    if (!article) return [422, { codice: "articolo_non_trovato" }];
    const quantita = natura === "carico" ? String(row.quantita) : `-${row.quantita}`;
    const append = ledgerAppend(
      {
        operazione: "nuova",
        origine: "api",
        causale: null,
        data: businessDate(TIME_ZONE),
        actor: { kind: "chiave", id: keyId, nome: "bench", permessi: ["scrittura"] },
      },
      [{ natura, magazzino, articolo: article.id as number, quantita, prezzo: row.prezzo, lotto: null }],
    );
    // With the uncovering of the reservations on that stock, in the same round trip, as the stock writer sends it.
    const uncover = uncoverAfterAppend([{ articolo: article.id as number, magazzino }], businessDate(TIME_ZONE));
    const [written] = await Promise.all([
      c.query({ name: "append", text: append.sql.text, values: append.sql.values }),
      c.query({ name: "uncover", text: uncover.sql.text, values: uncover.sql.values }),
    ]);
    const id = (written.rows[0] as { id: number }).id;
    return [200, { scritte: 1, rifiutate: 0, righe: [{ indice: 0, esito: "scritta", movimento: id }] }];
  } finally {
    c.release();
  }
}

/** `limite` and `dopo` of a page, checked by hand; null when either is not a valid number. */
function pageParams(search: URLSearchParams, defaultLimit: number, maxLimit: number): { limite: number; dopo: number } | null {
  const limite = Number(search.get("limite") ?? defaultLimit);
  const dopo = Number(search.get("dopo") ?? 0);
  return Number.isInteger(limite) && limite >= 1 && limite <= maxLimit && Number.isInteger(dopo) && dopo >= 0 ? { limite, dopo } : null;
}

/**
 * A page of a synced list as the service reads it (lists.ts boundAndRows): the sync bound and the page sent
 * together (pg's pipeline mode: one round trip), then cut. `first` is the statement's first row, which carries
 * `magazzino_trovato` where the list takes a warehouse.
 */
async function syncPage<Row extends pg.QueryResultRow & { id: number | null }>(
  table: keyof typeof SYNC_TABLES,
  name: string,
  page: Query<Row>,
  { limite, dopo }: { limite: number; dopo: number },
) {
  const { tag, seq } = SYNC_TABLES[table];
  const bound = lists.syncBound(tag, seq);
  const c = await pool.connect();
  try {
    const [b, rows] = await Promise.all([
      c.query<{ b: string | null }>({ name: `bound_${tag}`, text: bound.sql.text, values: bound.sql.values }),
      c.query<Row>({ name, text: page.sql.text, values: page.sql.values }),
    ]);
    const found = rows.rows.filter((r): r is Row & { id: number } => r.id !== null);
    return { first: rows.rows[0], ...cutPage(found, limite, Number(b.rows[0]?.b ?? 0), dopo) };
  } finally {
    c.release();
  }
}

const INVALID: [number, unknown] = [400, { codice: "filtro_non_valido" }];

async function movementPage(search: URLSearchParams): Promise<[number, unknown]> {
  const p = pageParams(search, 100, 1000);
  if (!p) return INVALID;
  const cut = await syncPage("movimenti", "page", movements.movementsPage(p.dopo, {}, p.limite + 1), p);
  return [200, { movimenti: cut.rows.map((r) => toMovementOutput(r, TIME_ZONE)), altri: cut.altri, cursore: cut.cursore }];
}

async function locationStockPage(search: URLSearchParams): Promise<[number, unknown]> {
  const magazzino = Number(search.get("magazzino"));
  const p = pageParams(search, 500, 1000);
  if (!p || !Number.isInteger(magazzino)) return INVALID;
  const statement = locationStock.locationStockPage(magazzino, p.dopo, {}, p.limite + 1);
  const cut = await syncPage("giacenze_ubicazioni", `location_stock_${p.limite}`, statement, p);
  if (cut.first && !cut.first.magazzino_trovato) return [404, { codice: "magazzino_non_trovato" }];
  return [200, { giacenze: cut.rows.map(toLocationStockOutput), altri: cut.altri, cursore: cut.cursore }];
}

/** The availability scan, or with `articolo` one article's row (the service asks whether it exists only when none came). */
async function availabilityPage(search: URLSearchParams): Promise<[number, unknown]> {
  const p = pageParams(search, 500, 500);
  const articolo = search.has("articolo") ? Number(search.get("articolo")) : undefined;
  if (!p || (articolo !== undefined && !Number.isInteger(articolo))) return INVALID;
  const filters = articolo === undefined ? {} : { articolo };
  const name = `availability_${p.limite}${articolo === undefined ? "" : "_one"}`;
  const cut = await syncPage("articoli", name, availability.availabilityPage(p.dopo, p.limite + 1, null, filters), p);
  if (articolo !== undefined && cut.rows.length === 0) return [404, { codice: "non_trovato" }];
  return [200, { disponibilita: cut.rows.map((r) => toAvailabilityOutput(r, true)), altri: cut.altri, cursore: cut.cursore }];
}

/** One reservation of rows without lot, checked by hand; each row holds what is free up to its quantity. */
async function writeReservation(keyId: number, body: Record<string, unknown>): Promise<[number, unknown]> {
  const p = (body.prenotazioni as Record<string, unknown>[] | undefined)?.[0];
  const righe = p?.righe as Record<string, unknown>[] | undefined;
  if (!p || typeof p.riferimento !== "string" || typeof p.magazzino !== "string" || typeof p.cliente !== "string" || !righe)
    return [400, { codice: "richiesta_non_valida" }];
  if (!righe.every((r) => typeof r.codice === "string" && typeof r.quantita === "number" && typeof r.numero_riga === "number"))
    return [400, { codice: "richiesta_non_valida" }];
  const c = await pool.connect();
  try {
    const r = { riferimento: p.riferimento, magazzino: p.magazzino, cliente: p.cliente };
    const rows = righe.map((x) => ({ codice: x.codice as string, quantita: x.quantita as number }));
    const out = await reserve(c, { chiave: keyId, ...r, righe: rows, oggi: businessDate(TIME_ZONE) });
    const esiti = righe.map((x, i) => ({ numero_riga: x.numero_riga, richiesta: String(x.quantita), prenotata: out.prenotata[i] }));
    const righeOut = [{ indice: 0, riferimento: r.riferimento, id: out.id, esito: "creata", righe: esiti }];
    return [200, { create: 1, aggiornate: 0, invariate: 0, rifiutate: 0, righe: righeOut }];
  } finally {
    c.release();
  }
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (b: Buffer) => chunks.push(b));
  req.on("end", () => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const keyId = token === undefined ? undefined : keys.get(hashApiKey(token));
    if (keyId === undefined) return answer(res, 401, { codice: "non_autenticato" });
    if (req.method === "GET" && req.url?.startsWith("/api/v1/movimenti?")) {
      return reply(res, movementPage(new URLSearchParams(req.url.slice(req.url.indexOf("?")))));
    }
    if (req.method === "GET" && req.url?.startsWith("/api/v1/disponibilita?")) {
      return reply(res, availabilityPage(new URLSearchParams(req.url.slice(req.url.indexOf("?")))));
    }
    if (req.method === "GET" && req.url?.startsWith("/api/v1/giacenze-ubicazioni?")) {
      return reply(res, locationStockPage(new URLSearchParams(req.url.slice(req.url.indexOf("?")))));
    }
    if (req.method !== "POST" || (req.url !== "/api/v1/movimenti" && req.url !== "/api/v1/prenotazioni"))
      return answer(res, 404, { codice: "non_trovato" });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      return answer(res, 400, { codice: "json_non_valido" });
    }
    reply(res, req.url === "/api/v1/prenotazioni" ? writeReservation(keyId, body) : writeMovement(keyId, body));
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("pronto"));
process.on("SIGTERM", () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
