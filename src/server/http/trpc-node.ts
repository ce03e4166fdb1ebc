import type { IncomingMessage, ServerResponse } from "node:http";
import { getConfig } from "../config";
import { DomainError } from "../lib/errors";
import { handleTrpcRequest } from "../trpc/ui-handler";
import { drainRest, readNodeBody } from "./rest-handler";

/**
 * The operator UI's /api/trpc for Node's server: the custom server sends it here directly, as it sends
 * /api/v1 to the REST facade, instead of through Next's router (a scan's search and registration are
 * the UI's hottest calls; bench/layers.ts measures what Next's routing costs). The same handler as the
 * Next route src/app/api/trpc/[trpc]/route.ts, which stays for `npm run dev`.
 */
export async function serveNodeTrpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? "GET";
  let body: Uint8Array | undefined;
  if (method !== "GET" && method !== "HEAD") {
    try {
      body = await readNodeBody(req, getConfig().BODY_LIMIT_BYTES);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      drainRest(req);
      const text = JSON.stringify({ codice: e.codice, messaggio: e.message });
      res.writeHead(e.status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": String(Buffer.byteLength(text)) });
      res.end(text);
      return;
    }
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
    method,
    headers,
    body: body as BodyInit | undefined,
  });
  const response = await handleTrpcRequest(request);
  const out = Buffer.from(await response.arrayBuffer());
  const responseHeaders: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") responseHeaders[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) responseHeaders["set-cookie"] = cookies;
  responseHeaders["content-length"] = String(out.byteLength);
  res.writeHead(response.status, responseHeaders);
  res.end(method === "HEAD" ? undefined : out);
}

export function isTrpcPath(url: string | undefined): boolean {
  return url !== undefined && /^\/api\/trpc(\/|\?|$)/.test(url);
}
