import { randomUUID } from "node:crypto";
import type http from "node:http";
import { getDb } from "../db/client";
import { DomainError } from "../lib/errors";
import { authenticateSession } from "../modules/auth/sessions.service";
import { locationLabelInput, lotLabelInput, palletLabelInput } from "../modules/labels/labels.schemas";
import { drawLabels, type LabelFile, renderLabels } from "../modules/labels/labels.service";
import { assertNoNul, toErrorResponse } from "../trpc/errors";
import { writeNodeResponse } from "./rest-handler";

/**
 * The labels of docs/api.md section 13 as files for a signed-in screen (session cookie): `/api/etichette/lotto`,
 * `/api/etichette/collo/{sscc}`, `/api/etichette/ubicazione`, with the parameters of their `/api/v1` twins.
 * REST reads no cookies (a browser must not be made to call it with someone's session), so a screen with no
 * network printer opens the PDF here, in a new tab, for the browser's print dialog. A read that changes
 * nothing: no CSRF token is asked, as for a page. Served by the custom server itself, as /api/v1 is.
 */
const PREFIX = "/api/etichette/";

export function isLabelDownloadPath(url: string | undefined): boolean {
  return (url ?? "").split("?")[0]!.startsWith(PREFIX);
}

async function labelFile(pathname: string, params: Record<string, string>): Promise<LabelFile> {
  const db = getDb();
  const [kind, sscc, extra] = pathname.slice(PREFIX.length).split("/");
  if (kind === "lotto" && sscc === undefined) {
    const { formato, dimensione, copie, ...spec } = lotLabelInput.parse(params);
    return renderLabels(await drawLabels(db, { tipo: "lotto", ...spec }), { formato, dimensione, copie });
  }
  if (kind === "collo" && sscc && extra === undefined) {
    const { formato, dimensione, copie, ...spec } = palletLabelInput.parse({ ...params, sscc: decodeURIComponent(sscc) });
    return renderLabels(await drawLabels(db, { tipo: "collo", ...spec }), { formato, dimensione, copie });
  }
  if (kind === "ubicazione" && sscc === undefined) {
    const { formato, dimensione, copie, ...spec } = locationLabelInput.parse(params);
    return renderLabels(await drawLabels(db, { tipo: "ubicazione", ...spec }), { formato, dimensione, copie });
  }
  throw new DomainError("non_trovato", `Nessuna etichetta a ${pathname}: etichette di lotto, collo e ubicazione.`);
}

export async function serveLabelDownload(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const requestId = randomUUID();
  try {
    if (req.method !== "GET" && req.method !== "HEAD")
      throw new DomainError("metodo_non_consentito", `Metodo ${req.method} non consentito sulle etichette: usare GET.`, {
        allow: ["GET", "HEAD"],
      });
    await authenticateSession(getDb(), req.headers.cookie ?? null);
    const url = new URL(req.url ?? "/", "http://localhost");
    const params = Object.fromEntries(url.searchParams);
    assertNoNul(params, true);
    const file = await labelFile(url.pathname, params);
    writeNodeResponse(req, res, {
      status: 200,
      headers: {
        "Content-Type": file.contentType,
        "Content-Disposition": `inline; filename="${file.filename}"`,
        "Cache-Control": "no-store",
        "X-Request-Id": requestId,
        ...(file.avviso ? { "X-Avviso": file.avviso } : {}),
      },
      body: file.bytes,
    });
  } catch (e) {
    const { status, body, headers } = toErrorResponse(e, { requestId, isQuery: true });
    writeNodeResponse(req, res, {
      status,
      headers: { ...headers, "Content-Type": "application/json; charset=utf-8", "X-Request-Id": requestId, "Cache-Control": "no-store" },
      body: JSON.stringify(body),
    });
  }
}
