import { randomUUID } from "node:crypto";
import type http from "node:http";
import { DomainError } from "../lib/errors";
import { responseHeaders } from "../trpc/errors";
import { databaseStatus } from "../modules/health/health.service";
import { writeNodeResponse } from "./rest-handler";

/**
 * GET /api/health, with no auth: load balancers and the UI's offline detection ask whether the service is
 * there and its database answers. Served by the custom server itself, like /api/v1: a health check must
 * not make the instance load Next (main.ts loads it at the first page), and answers even when it could not.
 */

export function isHealthPath(url: string | undefined): boolean {
  return (url ?? "").split("?")[0] === "/api/health";
}

export async function serveHealth(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const requestId = randomUUID();
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    writeNodeResponse(req, res, {
      status,
      headers: { "Content-Type": "application/json; charset=utf-8", "X-Request-Id": requestId, "Cache-Control": "no-store", ...headers },
      body: JSON.stringify(body),
    });
  const refuse = (error: DomainError) => answer(error.status, error.toBody(), responseHeaders(error));
  if (req.method !== "GET" && req.method !== "HEAD") {
    return refuse(
      new DomainError("metodo_non_consentito", `Metodo ${req.method} non consentito su /api/health: usare GET.`, {
        allow: ["GET", "HEAD"],
      }),
    );
  }
  const status = await databaseStatus();
  if (status.ok) return answer(200, { stato: "ok" });
  console.error(`[${requestId}] controllo di salute: database non raggiungibile:`, status.error);
  refuse(
    new DomainError("servizio_non_disponibile", "Il database non è raggiungibile in questo momento: riprovare tra qualche secondo.", {
      retryAfterSeconds: 5,
    }),
  );
}
