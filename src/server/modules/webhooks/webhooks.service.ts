import { randomBytes } from "node:crypto";
import type { Db, PrismaClient } from "../../db/client";
import { inTransaction } from "../../db/transaction";
import { first, rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { DomainError } from "../../lib/errors";
import { recordAdminAction, type AuditAuthor } from "../audit/audit.service";
import { assertPublicUrl, parseEndpointUrl } from "./network";
import * as aq from "./attempts.queries";
import * as dq from "./deliveries.queries";
import * as q from "./endpoints.queries";
import type { Actor } from "../auth/actor";
import type { CreateEndpointInput, EndpointOutput, EndpointSettings, RestEndpoint } from "./webhooks.schemas";

/**
 * Webhook endpoints: created, listed, changed, deleted and replayed by administrators (screen /webhook,
 * `npm run -s cli -- webhook …`) and, for their own endpoints only, by API keys with the scopes `webhook` and
 * `lettura` (REST /webhook). `owner` is that key's id, or null for an administrator (every endpoint).
 * Delivery itself is the workers' (worker.ts). Every change is in the administrative log.
 */

const PAGE = 50;
/** The attempts GET /webhook/{id} shows. */
const LAST_ATTEMPTS = 20;
/** A deletion waits for at most one attempt in flight; this covers logging it and the deletion's own work. */
const DELETE_MARGIN_MS = 20_000;

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

const unknownEndpoint = (id: number) =>
  new DomainError("non_trovato", `Il webhook ${id} non esiste: l'elenco dei webhook mostra quelli registrati.`, { campo: "id" });

/** The figures shared by the screen and REST; the receiver's answer and the creator are the screen's. */
function commonFields(r: q.EndpointRow, timeZone: string) {
  return {
    id: r.id,
    url: r.url,
    descrizione: r.descrizione,
    eventi: r.eventi,
    eventi_per_richiesta: r.eventi_per_richiesta,
    consegna: r.consegna,
    attivo: r.attivo,
    creato_il: formatInstant(timeZone, r.creato_il),
    disattivato_il: r.disattivato_il && formatInstant(timeZone, r.disattivato_il),
    in_attesa: r.in_attesa,
    fallite: r.fallite,
    ritardo_s: r.ritardo_s === null ? null : Math.max(0, Math.round(r.ritardo_s * 10) / 10),
    eventi_al_secondo: Math.round((r.consegnate_minuto / 60) * 1000) / 1000,
    ultimo_successo: r.ultimo_successo && formatInstant(timeZone, r.ultimo_successo),
    salto: r.salto_da !== null && r.salto_a !== null ? { da: r.salto_da, a: r.salto_a } : null,
  };
}

function toOutput(r: q.EndpointRow, timeZone: string): EndpointOutput {
  return {
    ...commonFields(r, timeZone),
    ultimo_errore: r.ultimo_errore_il
      ? {
          il: formatInstant(timeZone, r.ultimo_errore_il),
          stato_http: r.ultimo_errore_stato,
          esito: r.ultimo_errore_esito ?? "",
          risposta: r.ultimo_errore_risposta,
        }
      : null,
    creato_da: r.creato_da_tipo && r.creato_da_nome !== null ? { tipo: r.creato_da_tipo, nome: r.creato_da_nome } : null,
  };
}

/** An allow-list: the receiver's answer body never leaves through REST (an endpoint must not read an address). */
function toRest(r: q.EndpointRow, timeZone: string): RestEndpoint {
  return {
    ...commonFields(r, timeZone),
    ultimo_errore: r.ultimo_errore_il
      ? { il: formatInstant(timeZone, r.ultimo_errore_il), stato_http: r.ultimo_errore_stato, esito: r.ultimo_errore_esito ?? "" }
      : null,
  };
}

async function rowOrRefuse(db: Db, id: number, owner: number | null): Promise<q.EndpointRow> {
  const row = await first(db, q.endpointById(id, owner));
  if (!row) throw unknownEndpoint(id);
  return row;
}

async function endpointOrRefuse(db: Db, id: number, timeZone: string): Promise<EndpointOutput> {
  return toOutput(await rowOrRefuse(db, id, null), timeZone);
}

/** GET /webhook/{id}: the endpoint, with its last attempts (status and duration only). */
export async function restEndpointDetail(db: Db, id: number, owner: number, timeZone: string) {
  const row = await rowOrRefuse(db, id, owner);
  const attempts = await rows(db, aq.attempts(id, null, LAST_ATTEMPTS));
  return {
    ...toRest(row, timeZone),
    ultimi_tentativi: attempts.map((t) => ({
      id: t.id,
      sequenza: t.evento_id,
      iniziato_il: formatInstant(timeZone, t.iniziato_il),
      durata_ms: t.durata_ms,
      stato_http: t.stato_http,
      esito: t.esito,
    })),
  };
}

export async function listRestEndpoints(db: Db, owner: number, timeZone: string): Promise<{ webhook: RestEndpoint[] }> {
  return { webhook: (await rows(db, q.endpoints(owner))).map((r) => toRest(r, timeZone)) };
}

/** Creates an endpoint (the URL checked as at delivery); `owner` is the key creating it by REST. */
async function insertChecked(
  db: PrismaClient,
  by: AuditAuthor,
  input: CreateEndpointInput,
  opts: { allowPrivate: boolean; owner: number | null },
): Promise<{ id: number; segreto: string }> {
  const url = parseEndpointUrl(input.url);
  await assertPublicUrl(url, opts.allowPrivate);
  const eventi = [...new Set(input.eventi)];
  const segreto = newSecret();
  const settings = { eventi_per_richiesta: input.eventi_per_richiesta ?? 1, consegna: input.consegna ?? "ordinata" };
  const id = await inTransaction(db, async (tx) => {
    const row = (await first(
      tx,
      q.insertEndpoint({ url: url.toString(), descrizione: input.descrizione ?? null, eventi, segreto, chiave: opts.owner, ...settings }),
    ))!;
    await recordAdminAction(
      tx,
      by,
      "webhook.creato",
      { tipo: "webhook", id: row.id, nome: url.toString() },
      `eventi: ${eventi.join(", ")}; ${settings.eventi_per_richiesta} per richiesta, ${settings.consegna}`,
    );
    return row.id;
  });
  return { id, segreto };
}

export async function createEndpoint(
  db: PrismaClient,
  by: AuditAuthor,
  input: CreateEndpointInput,
  opts: { allowPrivate: boolean; timeZone: string },
): Promise<{ endpoint: EndpointOutput; segreto: string }> {
  const { id, segreto } = await insertChecked(db, by, input, { allowPrivate: opts.allowPrivate, owner: null });
  return { endpoint: await endpointOrRefuse(db, id, opts.timeZone), segreto };
}

/** POST /webhook: the key's own endpoint, its secret in the answer once. */
export async function createRestEndpoint(
  db: PrismaClient,
  key: Extract<Actor, { kind: "chiave" }>,
  input: CreateEndpointInput,
  opts: { allowPrivate: boolean; timeZone: string },
) {
  const { id, segreto } = await insertChecked(db, key, input, { allowPrivate: opts.allowPrivate, owner: key.id });
  return { webhook: await restEndpointDetail(db, id, key.id, opts.timeZone), segreto };
}

export async function listEndpoints(db: Db, timeZone: string): Promise<{ endpoint: EndpointOutput[] }> {
  return { endpoint: (await rows(db, q.endpoints(null))).map((r) => toOutput(r, timeZone)) };
}

function describeChanges(c: EndpointSettings): string {
  return [
    c.eventi && `eventi: ${c.eventi.join(", ")}`,
    c.eventi_per_richiesta !== undefined && `${c.eventi_per_richiesta} per richiesta`,
    c.consegna && `consegna ${c.consegna}`,
  ]
    .filter(Boolean)
    .join("; ");
}

/**
 * Changes an endpoint's events, throughput settings and state (absent fields stay), atomically. Settings
 * apply to batches not yet formed. Enabling after more than 7 days disabled resumes from now and keeps the
 * skipped range (queries.ts updateEndpoint); the log says so.
 */
export async function updateEndpoint(db: PrismaClient, by: AuditAuthor, id: number, changes: EndpointSettings, owner: number | null) {
  const settings = describeChanges(changes);
  if (settings === "" && changes.attivo === undefined) {
    throw new DomainError("richiesta_non_valida", "Nessuna modifica: indicare eventi, eventi_per_richiesta, consegna o attivo.");
  }
  await inTransaction(db, async (tx) => {
    const row = await first(
      tx,
      q.updateEndpoint(id, owner, {
        eventi: changes.eventi ? [...new Set(changes.eventi)] : null,
        eventi_per_richiesta: changes.eventi_per_richiesta ?? null,
        consegna: changes.consegna ?? null,
        attivo: changes.attivo ?? null,
      }),
    );
    if (!row) throw unknownEndpoint(id);
    const target = { tipo: "webhook" as const, id, nome: row.url };
    if (settings !== "") await recordAdminAction(tx, by, "webhook.modificato", target, settings);
    if (row.era_attivo !== row.attivo) {
      const skipped = row.saltato ? `dopo più di 7 giorni: saltate le sequenze ${row.salto_da}–${row.salto_a}` : null;
      await recordAdminAction(tx, by, row.attivo ? "webhook.riattivato" : "webhook.disattivato", target, skipped);
    }
  });
}

export async function setEndpointActive(
  db: PrismaClient,
  by: AuditAuthor,
  id: number,
  attivo: boolean,
  timeZone: string,
): Promise<EndpointOutput> {
  await updateEndpoint(db, by, id, { attivo }, null);
  return endpointOrRefuse(db, id, timeZone);
}

/** The screen's and the CLI's change of settings: the endpoint as it now stands. */
export async function updateEndpointSettings(db: PrismaClient, by: AuditAuthor, id: number, changes: EndpointSettings, timeZone: string) {
  await updateEndpoint(db, by, id, changes, null);
  return endpointOrRefuse(db, id, timeZone);
}

/** PATCH /webhook/{id}: the key's own endpoint, as GET /webhook/{id} then shows it. */
export async function updateRestEndpoint(
  db: PrismaClient,
  key: Extract<Actor, { kind: "chiave" }>,
  id: number,
  changes: EndpointSettings,
  timeZone: string,
) {
  await updateEndpoint(db, key, id, changes, key.id);
  return restEndpointDetail(db, id, key.id, timeZone);
}

/**
 * DELETE /webhook/{id}: hidden everywhere, what waited discarded. It wins against deliveries in flight on
 * any instance: it waits for the endpoint's lock, which the worker holding it lets go once its attempts in
 * flight are logged, so every event of the endpoint ends delivered, failed or discarded, and nothing is sent
 * after the answer. The wait is at most one attempt (the delivery timeout).
 */
export async function deleteEndpoint(db: PrismaClient, by: AuditAuthor, id: number, owner: number | null, deliveryTimeoutMs: number) {
  return inTransaction(
    db,
    async (tx) => {
      if (!(await first(tx, q.lockEndpointForDelete(id, owner)))) throw unknownEndpoint(id);
      const row = await first(tx, q.deleteEndpoint(id, owner));
      if (!row) throw unknownEndpoint(id);
      await recordAdminAction(
        tx,
        by,
        "webhook.eliminato",
        { tipo: "webhook", id, nome: row.url },
        `consegne in attesa scartate: ${row.scartate}`,
      );
      return { id, eliminato: true as const, consegne_scartate: row.scartate };
    },
    { timeout: deliveryTimeoutMs + DELETE_MARGIN_MS },
  );
}

/**
 * Sends again every event of the endpoint's types from sequence `da` (those not yet taken come anyway); a
 * replay from the skipped range's start or before fills it, which then is no longer named.
 */
export async function replayEndpointIn(
  tx: Db,
  by: AuditAuthor,
  id: number,
  da: number,
  owner: number | null,
): Promise<{ riaccodate: number }> {
  const endpoint = await first(tx, q.endpointForReplay(id, owner));
  if (!endpoint) throw unknownEndpoint(id);
  if (da > endpoint.emessa) {
    throw new DomainError(
      "cursore_non_valido",
      `La sequenza 'da' (${da}) supera ogni sequenza di evento emessa dal servizio (${endpoint.emessa}): nessun evento da riconsegnare. ` +
        `Indicare una sequenza tra 1 e ${endpoint.emessa}, come la mostrano GET /eventi e le consegne ricevute.`,
      { campo: "da" },
    );
  }
  const n = (await first(tx, dq.replayFrom(id, da)))!.n;
  await first(tx, q.clearSkipFrom(id, da));
  await recordAdminAction(tx, by, "webhook.riconsegna", { tipo: "webhook", id, nome: endpoint.url }, `dalla sequenza ${da}: ${n} consegne`);
  return { riaccodate: n };
}

export async function replayEndpoint(db: PrismaClient, by: AuditAuthor, id: number, da: number): Promise<{ riaccodate: number }> {
  return inTransaction(db, (tx) => replayEndpointIn(tx, by, id, da, null));
}

/** One delivery (a failed one, typically) sent again. */
export async function replayDelivery(db: PrismaClient, by: AuditAuthor, id: number, consegna: number): Promise<{ riaccodate: number }> {
  return inTransaction(db, async (tx) => {
    const row = await first(tx, dq.replayDelivery(id, consegna));
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
  const page = await rows(db, dq.deliveries(input.id, input.stato ?? null, input.prima ?? null, PAGE + 1));
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
  const page = await rows(db, aq.attempts(input.id, input.prima ?? null, PAGE + 1));
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
