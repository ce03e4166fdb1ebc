import { randomUUID } from "node:crypto";
import { getDb } from "@/server/db/client";
import { DomainError } from "@/server/lib/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** No auth: load balancers and the operator page ask whether the database answers. */
export async function GET(): Promise<Response> {
  const requestId = randomUUID();
  const headers = { "X-Request-Id": requestId, "Cache-Control": "no-store" };
  try {
    await getDb().$queryRaw`SELECT 1`;
    return Response.json({ stato: "ok" }, { headers });
  } catch (e) {
    console.error(`[${requestId}] controllo di salute: database non raggiungibile:`, e);
    const error = new DomainError(
      "servizio_non_disponibile",
      "Il database non è raggiungibile in questo momento: riprovare tra qualche secondo.",
      { headers: { "Retry-After": "5" } },
    );
    return Response.json(error.toBody(), { status: error.status, headers: { ...headers, ...error.headers } });
  }
}
