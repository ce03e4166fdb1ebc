import "server-only";
import { randomUUID } from "node:crypto";
import { DomainError } from "@/server/lib/errors";
import { databaseStatus } from "@/server/modules/health/health.service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** No auth: load balancers and the operator page ask whether the database answers. */
export async function GET(): Promise<Response> {
  const requestId = randomUUID();
  const headers = { "X-Request-Id": requestId, "Cache-Control": "no-store" };
  const status = await databaseStatus();
  if (status.ok) return Response.json({ stato: "ok" }, { headers });
  console.error(`[${requestId}] controllo di salute: database non raggiungibile:`, status.error);
  const error = new DomainError(
    "servizio_non_disponibile",
    "Il database non è raggiungibile in questo momento: riprovare tra qualche secondo.",
    { headers: { "Retry-After": "5" } },
  );
  return Response.json(error.toBody(), { status: error.status, headers: { ...headers, ...error.headers } });
}
