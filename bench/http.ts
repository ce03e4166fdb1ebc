import http from "node:http";

/**
 * The API as an outside system reaches it: real sockets to the server, one keep-alive agent with as
 * many sockets as concurrent clients. Latency is from sending the request to the last byte of the body.
 */

export interface ApiResponse {
  status: number;
  body: string;
  ms: number;
}

export class ApiClient {
  private readonly agent: http.Agent;

  constructor(
    private readonly port: number,
    private readonly key: string,
    maxSockets: number,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: "lifo" });
  }

  request(method: "GET" | "POST", path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: this.port,
          method,
          path: `/api/v1${path}`,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.key}`,
            accept: "application/json",
            ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - t0 }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** A request that must answer `expected`; anything else stops the scenario with the body shown. */
  async json<T>(method: "GET" | "POST", path: string, body?: unknown, expected: number[] = [200]): Promise<{ data: T; ms: number }> {
    const r = await this.request(method, path, body);
    if (!expected.includes(r.status)) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.body.slice(0, 500)}`);
    return { data: JSON.parse(r.body) as T, ms: r.ms };
  }

  close(): void {
    this.agent.destroy();
  }
}
