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
import {
  addPrinterInput,
  type AddPrinterInput,
  formatAddress,
  type Printer,
  type PrintJob,
  updatePrinterInput,
  type UpdatePrinterInput,
} from "./printers.schemas";

/**
 * Printers and print jobs (docs/api.md section 13). A printer is an address the service will connect to:
 * only an administrator adds one, and the address goes into the administrative log. A print job is
 * drawn when asked (the ZPL is stored with it) and sent by the print worker (print-worker.ts) after the
 * request has answered: printing never delays, nor undoes, the registration it labels.
 */

const address = (host: string, porta: number) => formatAddress({ host, porta });

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

const notFound = (id: number) => new DomainError("non_trovato", `La stampante ${id} non esiste.`);
const deactivated = (nome: string) =>
  new DomainError(
    "stampante_disattivata",
    `La stampante '${nome}' è disattivata: non riceve stampe. Sceglierne un'altra, o un amministratore la riattivi da Stampanti.`,
    { campo: "stampante" },
  );

/**
 * An administrator's change of a printer's name, address or size, logged with what changed (an address is where
 * the service will connect, so the log shows the old and the new). Jobs still queued go to the new address: a
 * changed address is most often the fix of a wrong one. Their ZPL was drawn for the old size and stays as it was.
 */
export async function updatePrinter(db: PrismaClient, by: AuditAuthor, input: UpdatePrinterInput): Promise<Printer> {
  const parsed = updatePrinterInput.safeParse(input);
  if (!parsed.success) throw parsed.error;
  const { id, nome, indirizzo, dimensione } = parsed.data;
  return inTransaction(db, async (tx) => {
    const before = await first(tx, q.printerForUpdate(id));
    if (!before) throw notFound(id);
    const next = {
      nome: nome ?? before.nome,
      host: indirizzo?.host ?? before.host,
      porta: indirizzo?.porta ?? before.porta,
      dimensione: dimensione ?? before.dimensione,
    };
    const was = toPrinter(before);
    const changes = [
      next.nome !== before.nome && `nome '${before.nome}' → '${next.nome}'`,
      (next.host !== before.host || next.porta !== before.porta) && `indirizzo ${was.indirizzo} → ${address(next.host, next.porta)}`,
      next.dimensione !== before.dimensione && `dimensione ${before.dimensione} → ${next.dimensione} mm`,
    ].filter((c): c is string => typeof c === "string");
    if (changes.length === 0) return was; // nothing to change, nothing to log
    const row = await first(tx, q.updatePrinter(id, next));
    if (!row) throw new DomainError("stampante_esistente", `Esiste già una stampante di nome '${next.nome}'.`, { campo: "nome" });
    await recordAdminAction(tx, by, "stampante.modificata", { tipo: "stampante", id, nome: row.nome }, changes.join(", "));
    return toPrinter(row);
  });
}

/**
 * Deactivates or reactivates a printer. A deactivated printer stays listed (`attiva: false`, its jobs keep
 * their history), is offered to no device, and refuses print jobs (`stampante_disattivata`); its jobs still
 * queued end `fallita`, since nothing should reach a printer taken out of service. Setting the state it
 * already has changes and logs nothing.
 */
export async function setPrinterActive(db: PrismaClient, by: AuditAuthor, id: number, attiva: boolean): Promise<Printer> {
  return inTransaction(db, async (tx) => {
    const before = await first(tx, q.printerForUpdate(id));
    if (!before) throw notFound(id);
    if (before.attiva === attiva) return toPrinter(before);
    const row = (await first(tx, q.setPrinterActive(id, attiva)))!;
    let dettagli = `indirizzo ${toPrinter(row).indirizzo}`;
    if (!attiva) {
      const failed = await rows(tx, q.failQueuedJobs(id, "stampante disattivata prima dell'invio; ristampare su un'altra stampante"));
      if (failed.length > 0)
        dettagli += `, ${failed.length} ${failed.length === 1 ? "stampa in coda annullata" : "stampe in coda annullate"}`;
    }
    await recordAdminAction(
      tx,
      by,
      attiva ? "stampante.riattivata" : "stampante.disattivata",
      { tipo: "stampante", id, nome: row.nome },
      dettagli,
    );
    return toPrinter(row);
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
  if (!stampante) throw notFound(printerId);
  if (!stampante.attiva) throw deactivated(stampante.nome);
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
  // No row: the printer was deactivated since preparePrint looked (the insert re-checks it under a lock).
  if (!inserted) throw deactivated(prepared.stampante.nome);
  return getPrintJob(tx, inserted.id);
}

/** A person's reprint of a job (failed, or a label lost): the same bytes again, as a new job. */
export async function reprint(db: PrismaClient, actor: Actor, id: number): Promise<PrintJob> {
  return inTransaction(db, async (tx) => {
    const source = await first(tx, q.jobById(id));
    if (!source) throw new DomainError("non_trovato", `La stampa ${id} non esiste.`);
    const copy = await first(tx, q.copyJob(id, authorOf(actor)));
    if (!copy) throw deactivated(source.stampante_nome);
    return getPrintJob(tx, copy.id);
  });
}

function toJob(r: q.JobRow): PrintJob {
  return {
    id: r.id,
    stampante: { id: r.stampante_id, nome: r.stampante_nome },
    stato: r.stato as PrintJob["stato"],
    // Stored as labelSpec parsed it: the output schema reads it back.
    etichetta: r.etichetta as PrintJob["etichetta"],
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
