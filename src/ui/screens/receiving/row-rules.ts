import { parseScan } from "../../../lib/barcode";
import { parseDecimal, qty } from "../../format";
import type { ScanOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { type ArrivalFields, type Current, type Feedback, type Problem, type Row, sameCode } from "./types";

export interface RowContext {
  ddt: string;
  magazzino: string | null;
  /** The code of a warehouse, for the messages. */
  warehouseName: (id: number) => string;
  /** The supplier the delivery note was already used for today, when it was (from the service's arrivals). */
  ddtSupplier: { id: number; nome: string } | null;
}

/**
 * Whether the row shown can be registered as it is, and if not, why, with the field to complete. `implicit`:
 * the registration was not asked for (the scan of the next code would register it), so a quantity nobody
 * settled (the remainder the screen proposed) is a reason to stop too; an explicit Enter settles it.
 */
export function problemOf(cur: Current, values: ArrivalFields, ctx: RowContext, implicit: boolean): Problem | null {
  const { quantita, lotto } = values;
  const ddt = ctx.ddt.trim();
  if (!ddt)
    return { field: "ddt", title: "Indicare il DDT", message: "Il numero del documento di trasporto del fornitore è obbligatorio." };
  if (ctx.ddtSupplier && ctx.ddtSupplier.id !== cur.order.fornitore.id)
    return {
      field: "ddt",
      title: "DDT di un altro fornitore",
      message: `Il DDT ${ddt} è già registrato per ${ctx.ddtSupplier.nome}; questa riga è di ${cur.order.fornitore.nome}: scrivere il DDT di ${cur.order.fornitore.nome}.`,
    };
  if (!ctx.magazzino) return { field: "magazzino", title: "Scegliere il magazzino", message: "Il magazzino che riceve la merce." };
  if (Number(ctx.magazzino) !== cur.order.magazzino) {
    const theirs = ctx.warehouseName(cur.order.magazzino);
    return {
      field: "magazzino",
      title: `Riga per ${theirs}`,
      message: `L'ordine ${cur.order.numero} va ricevuto in ${theirs}, non in ${ctx.warehouseName(Number(ctx.magazzino))}: scegliere ${theirs}, oppure leggere un'altra riga.`,
    };
  }
  const q = parseDecimal(quantita);
  if (q === null || q <= 0)
    return { field: "quantita", title: "Quantità non valida", message: `"${quantita}" non è una quantità: usare per esempio 12 o 2,5.` };
  if (cur.row.chiede_lotto && !lotto.trim())
    return { field: "lotto", title: "Lotto obbligatorio", message: `${cur.row.articolo.codice} è gestito a lotti: indicare il lotto.` };
  if (implicit && !cur.confirmed)
    return {
      field: "quantita",
      title: "Quantità da confermare",
      message: `${qty(quantita)} è il residuo proposto, non una quantità contata: Invio sulla quantità la registra, oppure scriverla o contarla leggendo l'articolo a ogni pezzo.`,
    };
  return null;
}

/**
 * What was counted beyond the row's remainder (scans of each piece past it), or null: the contract receives
 * the remainder and records the rest as an `eccedente` difference. A quantity typed past the remainder is
 * not split: a typing slip must not become a difference; the service refuses it (`quantita_eccessiva`).
 */
export function countedExcess(cur: Current, quantita: string): { riceve: number; eccedente: number } | null {
  const q = parseDecimal(quantita);
  const residua = Number(cur.row.residua);
  if (cur.counted <= 1 || q !== cur.counted || q <= residua || residua <= 0) return null;
  return { riceve: residua, eccedente: Math.round((q - residua) * 1000) / 1000 };
}

/** What a code read into the lot field is. */
export type LotReading =
  /** A lot (and an expiry, from a GS1 code of the row's own article). */
  | { kind: "lotto"; lotto: string; scadenza: string | null; gtin: string | null }
  /** Not a lot: a code to read as a scan (a product's own code, a label, a GS1 code without a lot). */
  | { kind: "codice" }
  /** An EAN or a label, which a lot may look like: the service (or the local copy) decides. */
  | { kind: "chiedere" }
  /** Unreadable: said, nothing filled. */
  | { kind: "illeggibile"; motivo: string };

/**
 * A code read into the lot field, in every form the scanner gives: a GS1 string (bracketed, with `]C1`,
 * with FNC1 separators, or raw, fixed-length (01) and (17) before the variable (10)) is taken apart, never
 * stored whole as the lot; an EAN or an `R` label is asked about; anything else is the lot as read.
 */
export function readLot(text: string): LotReading {
  const t = text.trim();
  if (!t) return { kind: "illeggibile", motivo: "Nessun lotto letto." };
  const scan = parseScan(t);
  switch (scan.kind) {
    case "gs1":
      return scan.lotto ? { kind: "lotto", lotto: scan.lotto, scadenza: scan.scadenza, gtin: scan.gtin } : { kind: "codice" };
    case "ean":
    case "etichetta":
      return { kind: "chiedere" };
    case "illeggibile":
      // A GS1 string that does not read is a misread; a short number is a lot like any other.
      return /^(\(|\]|01\d{14})/.test(t) || t.includes("\x1d")
        ? { kind: "illeggibile", motivo: scan.motivo }
        : { kind: "lotto", lotto: t, scadenza: null, gtin: null };
    default:
      return { kind: "lotto", lotto: t, scadenza: null, gtin: null };
  }
}

/**
 * What the screen says when a row is shown: what to do next (the lot, or Enter for the proposed remainder,
 * or count by scanning), how many rows of the article wait; after a registration the outcome of the row
 * before comes first (`before`, already heard). A row with an arrival of unknown outcome says so first.
 */
export function shownFeedback(
  res: ScanOutput,
  row: Row,
  code: string,
  before: Feedback | undefined,
  unsureQuantity: string | null,
): Feedback & { heard: boolean } {
  const needsLot = row.chiede_lotto && !res.lettura?.lotto;
  if (unsureQuantity)
    return {
      heard: true,
      outcome: "ko",
      title: "Esito da verificare su questa riga",
      message: `${unsureQuantity} × ${row.articolo.codice} è rimasto senza risposta: Invio ne verifica prima l'esito, e dice che cosa è avvenuto prima di registrare altro.`,
    };
  const others = res.totale_righe - 1;
  const note =
    others > 0
      ? sameCode(code, row.etichetta)
        ? `Riga dell'etichetta ${row.etichetta}; altre ${others} ${others === 1 ? "riga attende" : "righe attendono"} questo articolo.`
        : `${res.totale_righe} righe attese per questo articolo in questo magazzino: proposta quella dell'ordine più vecchio.`
      : undefined;
  const next = needsLot
    ? "Leggere o scrivere il lotto, poi Invio"
    : "Invio registra il residuo; oppure leggere ancora l'articolo per contarlo, o scrivere la quantità";
  if (before) return { ...before, heard: false, message: `Ora ${row.articolo.codice}: ${next[0]!.toLowerCase()}${next.slice(1)}.` };
  return {
    heard: true,
    outcome: "info",
    title: needsLot ? next : `${row.articolo.codice}: residuo ${qty(row.residua)}`,
    message: needsLot ? note : [next, note].filter(Boolean).join(". "),
  };
}
