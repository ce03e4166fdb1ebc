import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { EVENT_TYPES } from "../../src/lib/domain-lists";
import { createEndpoint } from "../../src/server/modules/webhooks/webhooks.service";
import type { TestDb } from "../../src/server/testing/db";
import { call } from "./harness";
import { articleCode } from "./seed";

/**
 * Webhook receivers for the reliability files (webhook-*.test.ts, pgbouncer.test.ts): node:http servers on
 * 127.0.0.1 that verify every delivery with the Standard Webhooks library and keep what they saw, and the
 * writes and reads the tests compare them with.
 */
export interface Arrival {
  /** Date.now() when the request's body was complete. */
  at: number;
  headers: Record<string, string>;
  body: string;
  /** webhook-id */
  id: string;
  /** The event's sequenza (-1 for a batch). */
  sequenza: number;
  /** The sequenze the request carried: the event's alone, or the batch's in body order. */
  sequenze: number[];
  creatoMs: number;
  verified: boolean;
  verifyError?: string;
  /** The status written back (null: never answered, the request hung or its connection died first). */
  answered: number | null;
  /** When the connection was closed (by the service: a timeout cut, or its process killed). */
  closedAt?: number;
  /** Which service process sent it (sampled: see Receiver.identify). */
  by?: string;
}

/** `after`: answered once it resolves (a test holds requests in flight for as long as it needs them there). */
export type Answer = { status: number; delayMs?: number; after?: Promise<unknown> } | "hang";

const receivers: Receiver[] = [];

export class Receiver {
  port = 0;
  secret = "";
  readonly got: Arrival[] = [];
  /** TCP connections accepted, ever. */
  connections = 0;
  /** Requests received and not yet answered. */
  readonly pending = new Set<Arrival>();
  /** The most requests received and not yet answered at once. */
  peak = 0;
  private server: http.Server | undefined;
  /** Names the sender of every 10th request from the connection's source port (read while it is open). */
  identify: ((remotePort: number) => string) | undefined;

  constructor(private readonly answer: (a: Arrival, n: number) => Answer = () => ({ status: 204 })) {
    receivers.push(this);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Listens on 127.0.0.1: a new port the first time, the same port afterwards. */
  async open(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const at = Date.now();
        const body = Buffer.concat(chunks).toString("utf8");
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        let parsed: { id?: string; sequenza?: number; creato_il?: string; eventi?: { sequenza: number; creato_il: string }[] } = {};
        try {
          parsed = JSON.parse(body);
        } catch {
          /* checked by the tests through `verified` and `sequenza` */
        }
        const a: Arrival = {
          at,
          headers,
          body,
          id: headers["webhook-id"] ?? "",
          sequenza: parsed.sequenza ?? -1,
          sequenze: parsed.eventi ? parsed.eventi.map((e) => e.sequenza) : [parsed.sequenza ?? -1],
          creatoMs: Date.parse(parsed.eventi?.[0]?.creato_il ?? parsed.creato_il ?? ""),
          verified: false,
          answered: null,
        };
        if (this.identify && this.got.length % 10 === 0) a.by = this.identify(req.socket.remotePort ?? 0);
        try {
          new Webhook(this.secret).verify(body, headers);
          a.verified = true;
        } catch (e) {
          a.verifyError = (e as Error).message;
        }
        this.got.push(a);
        this.pending.add(a);
        this.peak = Math.max(this.peak, this.pending.size);
        req.socket.once("close", () => {
          a.closedAt = Date.now();
          this.pending.delete(a);
        });
        res.on("error", () => {});
        const how = this.answer(a, this.got.length);
        if (how === "hang") return;
        const reply = () => {
          this.pending.delete(a);
          if (res.destroyed || req.socket.destroyed) return;
          a.answered = how.status;
          res.writeHead(how.status, { "content-type": "text/plain" }).end(how.status < 300 ? "ok" : `no ${how.status}`);
        };
        if (how.after) void how.after.then(reply);
        else if (how.delayMs) setTimeout(reply, how.delayMs);
        else reply();
      });
    });
    server.on("connection", () => this.connections++);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Closes the port: connections are refused until open() again. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Requests answered with a 2xx, in arrival order. */
  delivered(): Arrival[] {
    return this.got.filter((a) => a.answered !== null && a.answered >= 200 && a.answered < 300);
  }

  distinctIds(): Set<string> {
    return new Set(this.got.map((a) => a.id));
  }
}

export async function closeReceivers(): Promise<void> {
  await Promise.all(receivers.splice(0).map((r) => r.close().catch(() => {})));
}

export const TZ = "Europe/Rome";
export const ARTICLES = 5;

export interface Ctx {
  t: TestDb;
  key: string;
  keyId: number;
  m1: number;
}

export interface Endpoint {
  id: number;
  segreto: string;
  /** The last event id before the endpoint existed: it receives the events after it. */
  cursore: number;
}

export async function createFor(
  t: TestDb,
  rx: Receiver,
  eventi: readonly string[] = ["movimenti.registrati"],
  url = rx.url,
): Promise<Endpoint> {
  const { endpoint, segreto } = await createEndpoint(
    t.prisma,
    "riga_di_comando",
    { url, eventi: eventi as (typeof EVENT_TYPES)[number][] },
    { allowPrivate: true, timeZone: TZ },
  );
  rx.secret = segreto;
  const { rows } = await t.pool.query("SELECT cursore FROM webhook_endpoint WHERE id = $1", [endpoint.id]);
  return { id: endpoint.id, segreto, cursore: rows[0].cursore };
}

/** One POST /movimenti of one row: one movimenti.registrati event. */
export async function loadOne(base: string, c: Ctx, i: number) {
  const r = await call(base, "POST", "/movimenti", {
    key: c.key,
    body: { natura: "carico", magazzino: c.m1, righe: [{ codice: articleCode("WH", (i % ARTICLES) + 1), quantita: 1 }] },
  });
  if (r.status !== 200 || typeof r.body?.operazione !== "number") throw new Error(`POST /movimenti → ${r.status}: ${r.text.slice(0, 300)}`);
  return r;
}

/** n one-row writes by `clients` concurrent clients, request i to bases[i % bases.length]. */
export async function writeMany(bases: string[], c: Ctx, n: number, clients: number, from = 0): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < n; i = next++) await loadOne(bases[i % bases.length]!, c, from + i);
    }),
  );
}

export interface Evento {
  id: string;
  sequenza: number;
  tipo: string;
  creato_il: string;
  dati: Record<string, unknown>;
}

/** Every event after `dopo` (of the types in `tipo`, comma-separated), paging GET /eventi with its cursor. */
export async function eventsAfter(base: string, key: string, dopo: number, tipo?: string): Promise<Evento[]> {
  const out: Evento[] = [];
  let cursor = dopo;
  for (let page = 0; page < 100; page++) {
    const r = await call(base, "GET", `/eventi?dopo=${cursor}&limite=100${tipo ? `&tipo=${tipo}` : ""}`, { key });
    if (r.status !== 200) throw new Error(`GET /eventi → ${r.status}: ${r.text.slice(0, 300)}`);
    out.push(...r.body.eventi);
    cursor = r.body.cursore;
    if (!r.body.altri) return out;
  }
  throw new Error("GET /eventi non è terminato in 100 pagine");
}

export async function deliveriesOf(t: TestDb, endpoint: number) {
  const { rows } = await t.pool.query(
    "SELECT id, evento_id, stato, tentativi FROM webhook_consegne WHERE endpoint_id = $1 ORDER BY evento_id",
    [endpoint],
  );
  return rows as { id: number; evento_id: number; stato: string; tentativi: number }[];
}
