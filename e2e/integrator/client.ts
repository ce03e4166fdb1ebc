import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/**
 * An ERP integrator's client, written from docs/api.md alone (no import from src/): master data,
 * purchase orders, cursors, the change feeds, and webhooks managed by REST with a Standard Webhooks
 * receiver. Every check is named after the contract's sentence it tries; `run` returns them all, so a
 * failure names what an integrator would have hit.
 */

export interface Keys {
  /** lettura + scrittura */
  writer: string;
  /** webhook + lettura */
  hooks: string;
  /** another integrator's webhook + lettura */
  otherHooks: string;
}

export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

interface Answer {
  status: number;
  body: any;
  text: string;
}

export class IntegratorClient {
  readonly checks: Check[] = [];
  constructor(private readonly base: string) {}

  async call(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${this.base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  }

  check(name: string, ok: boolean, detail?: unknown): boolean {
    this.checks.push({ name, ok, ...(ok ? {} : { detail: typeof detail === "string" ? detail : JSON.stringify(detail)?.slice(0, 600) }) });
    return ok;
  }

  /** A refusal as section 2 describes it: the status, the code, an Italian message. */
  refused(name: string, a: Answer, status: number, codice: string): boolean {
    return this.check(name, a.status === status && a.body?.codice === codice && typeof a.body?.messaggio === "string", {
      status: a.status,
      body: a.body,
    });
  }
}

/** A receiver that verifies every request with the Standard Webhooks library and keeps what it saw. */
export interface Receiver {
  url: string;
  requests: { id: string; eventi: any[]; verified: boolean }[];
  inFlightMax: number;
  setSecret(secret: string): void;
  close(): Promise<void>;
}

export async function startReceiver(latencyMs = 0): Promise<Receiver> {
  let hook: Webhook | undefined;
  let inFlight = 0;
  const r: Receiver = {
    url: "",
    requests: [],
    inFlightMax: 0,
    setSecret: (s) => {
      hook = new Webhook(s);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    inFlight++;
    r.inFlightMax = Math.max(r.inFlightMax, inFlight);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified = false;
      try {
        hook?.verify(body, headers);
        verified = hook !== undefined;
      } catch {
        verified = false;
      }
      const parsed = JSON.parse(body);
      r.requests.push({ id: headers["webhook-id"] ?? "", eventi: Array.isArray(parsed.eventi) ? parsed.eventi : [parsed], verified });
      setTimeout(() => {
        inFlight--;
        // A body a REST answer must never carry back (section 10).
        res.writeHead(200, { "content-type": "text/plain" }).end("SEGRETO-DEL-RICEVENTE");
      }, latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

export async function until(what: string, test: () => boolean | Promise<boolean>, ms = 60_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await test()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Boolean(what) && (await test());
}
