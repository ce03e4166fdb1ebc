import { randomBytes } from "node:crypto";
import type { Db, PrismaClient } from "../../db/client";
import { inTransaction } from "../../db/transaction";
import { first, rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { DomainError } from "../../lib/errors";
import { recordAdminAction, type AuditAuthor } from "../audit/audit.service";
import { assertPublicUrl, parseEndpointUrl } from "./network";
import * as q from "./webhooks.queries";
import type { CreateEndpointInput, EndpointOutput } from "./webhooks.schemas";

/**
 * Webhook endpoints, for administrators (screen /webhook, `npm run -s cli -- webhook …`): create (the secret
 * shown once), list with the state of their deliveries, disable and enable, replay. Delivery itself is the
 * workers' (worker.ts). Every change is in the administrative log.
 */

const PAGE = 50;

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

const unknownEndpoint = (id: number) =>
  new DomainError("non_trovato", `Il webhook ${id} non esiste: l'elenco dei webhook mostra quelli registrati.`, { campo: "id" });

function toOutput(r: q.EndpointRow, timeZone: string): EndpointOutput {
  return {
    id: r.id,
    url: r.url,
    descrizione: r.descrizione,
    eventi: r.eventi,
    attivo: r.attivo,
    creato_il: formatInstant(timeZone, r.creato_il),
    in_attesa: r.in_attesa,
    fallite: r.fallite,
    ultimo_successo: r.ultimo_successo && formatInstant(timeZone, r.ultimo_successo),
    ultimo_errore: r.ultimo_errore_il
      ? {
          il: formatInstant(timeZone, r.ultimo_errore_il),
          stato_http: r.ultimo_errore_stato,
          esito: r.ultimo_errore_esito ?? "",
          risposta: r.ultimo_errore_risposta,
        }
      : null,
  };
}

async function endpointOrRefuse(db: Db, id: number, timeZone: string): Promise<EndpointOutput> {
  const row = await first(db, q.endpointById(id));
  if (!row) throw unknownEndpoint(id);
  return toOutput(row, timeZone);
}

export async function createEndpoint(
  db: PrismaClient,
  by: AuditAuthor,
  input: CreateEndpointInput,
  opts: { allowPrivate: boolean; timeZone: string },
): Promise<{ endpoint: EndpointOutput; segreto: string }> {
  const url = parseEndpointUrl(input.url);
  await assertPublicUrl(url, opts.allowPrivate);
  const eventi = [...new Set(input.eventi)];
  const segreto = newSecret();
  const created = await inTransaction(db, async (tx) => {
    const row = (await first(tx, q.insertEndpoint({ url: url.toString(), descrizione: input.descrizione ?? null, eventi, segreto })))!;
    await recordAdminAction(
      tx,
      by,
      "webhook.creato",
      { tipo: "webhook", id: row.id, nome: url.toString() },
      `eventi: ${eventi.join(", ")}`,
    );
    return row;
  });
  return { endpoint: await endpointOrRefuse(db, created.id, opts.timeZone), segreto };
}

export async function listEndpoints(db: Db, timeZone: string): Promise<{ endpoint: EndpointOutput[] }> {
  return { endpoint: (await rows(db, q.endpoints())).map((r) => toOutput(r, timeZone)) };
}

export async function setEndpointActive(
  db: PrismaClient,
  by: AuditAuthor,
  id: number,
  attivo: boolean,
  timeZone: string,
): Promise<EndpointOutput> {
  await inTransaction(db, async (tx) => {
    const row = await first(tx, q.setActive(id, attivo));
    if (!row) throw unknownEndpoint(id);
    await recordAdminAction(tx, by, attivo ? "webhook.riattivato" : "webhook.disattivato", { tipo: "webhook", id, nome: row.url });
  });
  return endpointOrRefuse(db, id, timeZone);
}

/** Sends again every event of the endpoint's types from sequence `da` (those not yet taken come anyway). */
export async function replayEndpoint(db: PrismaClient, by: AuditAuthor, id: number, da: number): Promise<{ riaccodate: number }> {
  return inTransaction(db, async (tx) => {
    const endpoint = await first(tx, q.endpointById(id));
    if (!endpoint) throw unknownEndpoint(id);
    const n = (await first(tx, q.replayFrom(id, da)))!.n;
    await recordAdminAction(
      tx,
      by,
      "webhook.riconsegna",
      { tipo: "webhook", id, nome: endpoint.url },
      `dalla sequenza ${da}: ${n} consegne`,
    );
    return { riaccodate: n };
  });
}

/** One delivery (a failed one, typically) sent again. */
export async function replayDelivery(db: PrismaClient, by: AuditAuthor, id: number, consegna: number): Promise<{ riaccodate: number }> {
  return inTransaction(db, async (tx) => {
    const row = await first(tx, q.replayDelivery(id, consegna));
    if (!row) {
      throw new DomainError("non_trovato", `La consegna ${consegna} del webhook ${id} non esiste o è già in attesa.`, {
        campo: "consegna",
      });
    }
    await recordAdminAction(tx, by, "webhook.riconsegna", { tipo: "webhook", id, nome: `consegna ${consegna}` });
    return { riaccodate: 1 };
  });
}

export async function listDeliveries(db: Db, input: { id: number; stato?: string; prima?: number }, timeZone: string) {
  await endpointOrRefuse(db, input.id, timeZone);
  const page = await rows(db, q.deliveries(input.id, input.stato ?? null, input.prima ?? null, PAGE + 1));
  const consegne = page.slice(0, PAGE).map((d) => ({
    id: d.id,
    sequenza: d.evento_id,
    evento: d.evento_uid,
    tipo: d.tipo,
    stato: d.stato,
    tentativi: d.tentativi,
    prossimo_tentativo: d.stato === "in_attesa" ? formatInstant(timeZone, d.prossimo_tentativo) : null,
    concluso_il: d.concluso_il && formatInstant(timeZone, d.concluso_il),
  }));
  return { consegne, prima: page.length > PAGE ? consegne.at(-1)!.sequenza : null };
}

export async function listAttempts(db: Db, input: { id: number; prima?: number }, timeZone: string) {
  await endpointOrRefuse(db, input.id, timeZone);
  const page = await rows(db, q.attempts(input.id, input.prima ?? null, PAGE + 1));
  const tentativi = page.slice(0, PAGE).map((t) => ({
    id: t.id,
    consegna: t.consegna_id,
    sequenza: t.evento_id,
    iniziato_il: formatInstant(timeZone, t.iniziato_il),
    durata_ms: t.durata_ms,
    stato_http: t.stato_http,
    esito: t.esito,
    risposta: t.risposta,
  }));
  return { tentativi, prima: page.length > PAGE ? tentativi.at(-1)!.id : null };
}
