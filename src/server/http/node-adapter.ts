import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/**
 * Hands a Node request straight to a fetch-style handler. The custom server sends /api/v1 here,
 * skipping Next's routing: the same handler the Next route file mounts, without the ~4 ms of CPU
 * per request that Next's router and request conversion cost (measured with bench/layers.ts).
 */
export async function serveFetch(handler: (req: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestHeaders = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) requestHeaders.append(name, v);
    else if (value !== undefined) requestHeaders.set(name, value);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const request = new Request(`http://localhost${req.url ?? "/"}`, {
    method,
    headers: requestHeaders,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    duplex: "half",
  } as RequestInit);
  const response = await handler(request);
  const headers = Object.fromEntries(response.headers);
  // Answered before the whole body was read (413, 415, 401 …): the connection cannot carry another
  // request, so say so instead of letting the client reuse a socket with body bytes still in it.
  if (!req.complete) headers.connection = "close";
  res.writeHead(response.status, headers);
  res.end(method === "HEAD" ? undefined : Buffer.from(await response.arrayBuffer()));
}

export function isRestPath(url: string | undefined): boolean {
  return url !== undefined && /^\/api\/v1(\/|\?|$)/.test(url);
}
