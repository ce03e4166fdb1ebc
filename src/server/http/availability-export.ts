import { csvCell, csvDecimal } from "../../lib/csv";
import { getConfig } from "../config";
import { getDb } from "../db/client";
import { businessDate } from "../lib/dates";
import { DomainError } from "../lib/errors";
import { hasRole } from "../modules/auth/actor";
import { authenticateSession } from "../modules/auth/sessions.service";
import { listAvailabilityInput } from "../modules/availability/availability.schemas";
import { listAvailability } from "../modules/availability/availability.service";
import { listWarehouses } from "../modules/catalogue/catalogue.service";
import { assertNoNul, toErrorResponse } from "../trpc/errors";

const PAGE = 500;
/** An empty page with `altri` means a lower id is still being written: wait for it, a bounded number of times. */
const MAX_EMPTY_WAITS = 200;

function refuse(e: unknown): Response {
  const { status, body, headers } = toErrorResponse(e, { requestId: "esportazione", isQuery: true });
  return new Response(JSON.stringify(body), { status, headers: { ...headers, "Content-Type": "application/json; charset=utf-8" } });
}

/**
 * The whole catalogue's availability as CSV for spreadsheets (`;`, decimal comma, UTF-8 with BOM),
 * streamed: one page of the availability service at a time is read and written out, so memory stays
 * flat however large the catalogue. For signed-in managers (session cookie, role responsabile).
 */
export async function exportAvailabilityCsv(req: Request): Promise<Response> {
  try {
    const db = getDb();
    const session = await authenticateSession(db, req.headers.get("cookie"));
    if (!hasRole(session.actor, "responsabile")) {
      throw new DomainError("permesso_negato", "L'esportazione della disponibilità è riservata al ruolo responsabile o superiore.");
    }
    const params = Object.fromEntries(new URL(req.url).searchParams);
    assertNoNul(params, true);
    const parsed = listAvailabilityInput.omit({ limite: true, dopo: true }).safeParse(params);
    if (!parsed.success) throw parsed.error;
    const filters = parsed.data;
    const warehouses = filters.magazzino === undefined ? await listWarehouses(db) : [];
    // Holds have no history (docs/api.md section 14): a past day's file has no `prenotata` nor `disponibile`.
    const promise = filters.a === undefined;
    const oggi = businessDate(getConfig().SERVICE_TIME_ZONE);
    const encoder = new TextEncoder();
    let dopo = 0;
    let emptyWaits = 0;
    let headerSent = false;
    // The first page is read before answering: a refusal it raises (an unknown warehouse) is then an
    // error response, not a download that breaks after its 200.
    let first: Awaited<ReturnType<typeof listAvailability>> | undefined = await listAvailability(
      db,
      { ...filters, limite: PAGE, dopo },
      { oggi },
    );

    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          if (!headerSent) {
            headerSent = true;
            const header = [
              "codice",
              "descrizione",
              "giacenza",
              "in_arrivo",
              ...(promise ? ["prenotata", "disponibile"] : []),
              ...warehouses.map((w) => `giacenza_${w.codice}`),
            ];
            controller.enqueue(encoder.encode(`\uFEFF${header.map(csvCell).join(";")}\n`));
            return;
          }
          const page = first ?? (await listAvailability(db, { ...filters, limite: PAGE, dopo }, { oggi }));
          first = undefined;
          if (page.disponibilita.length === 0 && page.altri) {
            if (++emptyWaits > MAX_EMPTY_WAITS) throw new Error("esportazione interrotta: una scrittura sugli articoli non termina");
            await new Promise((r) => setTimeout(r, 50));
            return;
          }
          const lines = page.disponibilita.map((r) => {
            const byWarehouse = new Map((r.magazzini ?? []).map((m) => [m.magazzino, m.giacenza]));
            return [
              // Codes and descriptions are anyone's text (imports, the API): a formula in them must stay text.
              csvCell(r.articolo.codice),
              csvCell(r.articolo.descrizione),
              csvDecimal(r.giacenza),
              csvDecimal(r.in_arrivo),
              ...(promise ? [csvDecimal(r.prenotata ?? "0"), csvDecimal(r.disponibile ?? "0")] : []),
              ...warehouses.map((w) => csvDecimal(byWarehouse.get(w.id) ?? "0")),
            ].join(";");
          });
          if (lines.length > 0) controller.enqueue(encoder.encode(`${lines.join("\n")}\n`));
          dopo = page.cursore;
          if (!page.altri) controller.close();
        } catch (e) {
          console.error("Esportazione della disponibilità interrotta:", e);
          controller.error(e);
        }
      },
    });
    const day = filters.a ?? oggi;
    return new Response(stream, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="disponibilita-${day}.csv"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (e) {
    return refuse(e);
  }
}
