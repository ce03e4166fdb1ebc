import { Prisma } from "../../db/client";
import { limit, query } from "../../db/sql";

export interface PrinterRow {
  id: number;
  nome: string;
  host: string;
  porta: number;
  dimensione: string;
  attiva: boolean;
  creata_il: Date;
}

const PRINTER = Prisma.sql`id, nome, host, porta, dimensione, attiva, creata_il`;

export const allPrinters = () => query<PrinterRow>(Prisma.sql`SELECT ${PRINTER} FROM stampanti ORDER BY nome COLLATE "C", id`);

export const printerById = (id: number) => query<PrinterRow>(Prisma.sql`SELECT ${PRINTER} FROM stampanti WHERE id = ${id}`);

/** Inserts unless the name is taken (then no row). */
export const insertPrinter = (p: { nome: string; host: string; porta: number; dimensione: string }) =>
  query<PrinterRow>(Prisma.sql`
    INSERT INTO stampanti (nome, host, porta, dimensione) VALUES (${p.nome}, ${p.host}, ${p.porta}, ${p.dimensione})
    ON CONFLICT (nome) DO NOTHING
    RETURNING ${PRINTER}`);

export const printerForUpdate = (id: number) => query<PrinterRow>(Prisma.sql`SELECT ${PRINTER} FROM stampanti WHERE id = ${id} FOR UPDATE`);

/** Changes a printer unless the new name is another's (then no row). */
export const updatePrinter = (id: number, p: { nome: string; host: string; porta: number; dimensione: string }) =>
  query<PrinterRow>(Prisma.sql`
    UPDATE stampanti SET nome = ${p.nome}, host = ${p.host}, porta = ${p.porta}, dimensione = ${p.dimensione}
     WHERE id = ${id} AND NOT EXISTS (SELECT 1 FROM stampanti o WHERE o.nome = ${p.nome} AND o.id <> ${id})
    RETURNING ${PRINTER}`);

export const setPrinterActive = (id: number, attiva: boolean) =>
  query<PrinterRow>(Prisma.sql`UPDATE stampanti SET attiva = ${attiva} WHERE id = ${id} RETURNING ${PRINTER}`);

/** A deactivated printer's queued jobs end here: nothing is sent to a printer taken out of service. */
export const failQueuedJobs = (printerId: number, motivo: string) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE stampe SET stato = 'fallita', motivo = ${motivo}, conclusa_il = now()
     WHERE stampante_id = ${printerId} AND stato = 'in_coda'
    RETURNING id`);

export interface JobRow {
  id: number;
  stampante_id: number;
  stampante_nome: string;
  stato: string;
  etichetta: unknown;
  copie: number;
  avviso: string | null;
  motivo: string | null;
  creata_il: Date;
  inviata_il: Date | null;
  conclusa_il: Date | null;
}

const JOB = Prisma.sql`s.id, s.stampante_id, p.nome AS stampante_nome, s.stato, s.etichetta, s.copie, s.avviso, s.motivo,
                       s.creata_il, s.inviata_il, s.conclusa_il`;

export const insertJob = (j: {
  stampante: number;
  etichetta: unknown;
  copie: number;
  zpl: string;
  avviso: string | null;
  autore: string;
}) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO stampe (stampante_id, etichetta, copie, zpl, avviso, autore)
    SELECT p.id, ${JSON.stringify(j.etichetta)}::jsonb, ${j.copie}, ${j.zpl}, ${j.avviso}, ${j.autore}
      FROM stampanti p WHERE p.id = ${j.stampante} AND p.attiva
       FOR SHARE
    RETURNING id`);

/**
 * Both inserts queue only on a printer still active, its row share-locked: a deactivation (which updates that
 * row, then fails the printer's queued jobs) either waits for this job and fails it, or commits first and this
 * inserts nothing. Without the lock a job could slip in after the deactivation and be sent.
 */

/** "Ristampa": a new job with the bytes of an earlier one, on the same printer. */
export const copyJob = (id: number, autore: string) =>
  query<{ id: number }>(Prisma.sql`
    INSERT INTO stampe (stampante_id, etichetta, copie, zpl, avviso, autore)
    SELECT s.stampante_id, s.etichetta, s.copie, s.zpl, s.avviso, ${autore}
      FROM stampe s JOIN stampanti p ON p.id = s.stampante_id AND p.attiva
     WHERE s.id = ${id}
       FOR SHARE OF p
    RETURNING id`);

export const jobById = (id: number) =>
  query<JobRow>(Prisma.sql`SELECT ${JOB} FROM stampe s JOIN stampanti p ON p.id = s.stampante_id WHERE s.id = ${id}`);

export const recentJobs = (take: number) =>
  query<JobRow>(Prisma.sql`SELECT ${JOB} FROM stampe s JOIN stampanti p ON p.id = s.stampante_id ORDER BY s.id DESC ${limit(take)}`);

export interface ClaimedJob {
  id: number;
  zpl: string;
  host: string;
  porta: number;
}

/**
 * The claim: the oldest queued job moves to `in_invio` in one statement. SKIP LOCKED lets instances claim
 * side by side; the state change, committed before anything is sent, is what keeps a job from being sent twice.
 */
export const claimJob = () =>
  query<ClaimedJob>(Prisma.sql`
    WITH c AS (SELECT id FROM stampe WHERE stato = 'in_coda' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
    UPDATE stampe s SET stato = 'in_invio', inviata_il = now()
      FROM c, stampanti p
     WHERE s.id = c.id AND p.id = s.stampante_id
    RETURNING s.id, s.zpl, p.host, p.porta`);

export const finishJob = (id: number, stato: "stampata" | "fallita", motivo: string | null) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE stampe SET stato = ${stato}, motivo = ${motivo}, conclusa_il = now()
     WHERE id = ${id} AND stato = 'in_invio'
    RETURNING id`);

/** Jobs an instance claimed and never finished (it stopped mid-send): their outcome is unknown. */
export const abandonStaleJobs = (olderThanSeconds: number, motivo: string) =>
  query<{ id: number }>(Prisma.sql`
    UPDATE stampe SET stato = 'fallita', motivo = ${motivo}, conclusa_il = now()
     WHERE stato = 'in_invio' AND inviata_il < now() - make_interval(secs => ${olderThanSeconds})
    RETURNING id`);
