import type { Db, PrismaClient, Tx } from "../../db/client";
import { first, rows } from "../../db/sql";
import { inTransaction } from "../../db/transaction";
import { DomainError } from "../../lib/errors";
import { recordAdminAction, type AuditAuthor } from "../audit/audit.service";
import type { Actor } from "../auth/actor";
import type { Size } from "../labels/label-model";
import type { LabelSpec } from "../labels/labels.schemas";
import { printerZpl } from "../labels/labels.service";
import * as q from "./printers.queries";
import { addPrinterInput, type AddPrinterInput, type Printer, type PrintJob } from "./printers.schemas";

/**
 * Printers and print jobs (API.md section 13). A printer is an address the service will connect to:
 * only an administrator adds one, and the address goes into the administrative log. A print job is
 * drawn when asked (the ZPL is stored with it) and sent by the print worker (print-worker.ts) after the
 * request has answered: printing never delays, nor undoes, the registration it labels.
 */

const address = (host: string, porta: number) => (host.includes(":") ? `[${host}]:${porta}` : `${host}:${porta}`);

function toPrinter(r: q.PrinterRow): Printer {
  return {
    id: r.id,
    nome: r.nome,
    indirizzo: address(r.host, r.porta),
    dimensione: r.dimensione as Printer["dimensione"],
    attiva: r.attiva,
    creata_il: r.creata_il.toISOString(),
  };
}

export async function listPrinters(db: Db): Promise<{ stampanti: Printer[] }> {
  return { stampanti: (await rows(db, q.allPrinters())).map(toPrinter) };
}

/** Adds a printer and logs it, in one transaction; by an administrator (the router) or the command line. */
export async function addPrinter(db: PrismaClient, by: AuditAuthor, input: AddPrinterInput): Promise<Printer> {
  const parsed = addPrinterInput.safeParse(input);
  if (!parsed.success) throw parsed.error;
  const { nome, indirizzo, dimensione = "100x50" } = parsed.data;
  return inTransaction(db, async (tx) => {
    const row = await first(tx, q.insertPrinter({ nome, host: indirizzo.host, porta: indirizzo.porta, dimensione }));
    if (!row) throw new DomainError("stampante_esistente", `Esiste già una stampante di nome '${nome}'.`, { campo: "nome" });
    const printer = toPrinter(row);
    await recordAdminAction(
      tx,
      by,
      "stampante.aggiunta",
      { tipo: "stampante", id: row.id, nome },
      `indirizzo ${printer.indirizzo}, ${dimensione} mm`,
    );
    return printer;
  });
}

export interface PreparedPrint {
  stampante: q.PrinterRow;
  zpl: string;
  avviso: string | null;
}

/**
 * The job's ZPL, drawn before its transaction (a read of the label's data): an unknown printer, an
 * unknown article or location is refused here, and nothing is queued.
 */
export async function preparePrint(db: PrismaClient, printerId: number, spec: LabelSpec, copies: number): Promise<PreparedPrint> {
  const stampante = await first(db, q.printerById(printerId));
  if (!stampante?.attiva) throw new DomainError("non_trovato", `La stampante ${printerId} non esiste.`);
  const { zpl, avviso } = await printerZpl(db, spec, stampante.dimensione as Size, copies);
  return { stampante, zpl, avviso: avviso ?? null };
}

const authorOf = (actor: Actor) => (actor.kind === "utente" ? `utente ${actor.username}` : `chiave ${actor.nome}`);

/** Queues the prepared job in the caller's transaction (with its Idempotency-Key record). */
export async function queuePrint(tx: Tx, actor: Actor, prepared: PreparedPrint, spec: LabelSpec, copies: number): Promise<PrintJob> {
  const inserted = await first(
    tx,
    q.insertJob({
      stampante: prepared.stampante.id,
      etichetta: spec,
      copie: copies,
      zpl: prepared.zpl,
      avviso: prepared.avviso,
      autore: authorOf(actor),
    }),
  );
  return getPrintJob(tx, inserted!.id);
}

/** A person's reprint of a job (failed, or a label lost): the same bytes again, as a new job. */
export async function reprint(db: PrismaClient, actor: Actor, id: number): Promise<PrintJob> {
  return inTransaction(db, async (tx) => {
    const copy = await first(tx, q.copyJob(id, authorOf(actor)));
    if (!copy) throw new DomainError("non_trovato", `La stampa ${id} non esiste.`);
    return getPrintJob(tx, copy.id);
  });
}

function toJob(r: q.JobRow): PrintJob {
  return {
    id: r.id,
    stampante: { id: r.stampante_id, nome: r.stampante_nome },
    stato: r.stato as PrintJob["stato"],
    etichetta: r.etichetta as Record<string, unknown>,
    copie: r.copie,
    avviso: r.avviso,
    motivo: r.motivo,
    creata_il: r.creata_il.toISOString(),
    inviata_il: r.inviata_il?.toISOString() ?? null,
    conclusa_il: r.conclusa_il?.toISOString() ?? null,
  };
}

export async function getPrintJob(db: Db, id: number): Promise<PrintJob> {
  const row = await first(db, q.jobById(id));
  if (!row) throw new DomainError("non_trovato", `La stampa ${id} non esiste.`);
  return toJob(row);
}

export async function recentPrintJobs(db: Db, take: number): Promise<{ stampe: PrintJob[] }> {
  return { stampe: (await rows(db, q.recentJobs(take))).map(toJob) };
}
