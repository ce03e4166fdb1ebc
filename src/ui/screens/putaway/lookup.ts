import type { WorklistOutput, WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { eanCandidates, parseScan } from "../../../lib/barcode";
import { readSscc } from "../../../lib/sscc";

export type PutawayCopy = WorklistOutput;
export type Location = WorklistOutput["ubicazioni"][number];

/** One row of the copy as part of a pallet: what of the pallet lies in it and still waits. */
export interface PalletPart {
  row: WorklistRow;
  quantita: number;
}

/** A pallet (its SSCC) with what of it still waits in receiving, by row of the copy. */
export interface Pallet {
  sscc: string;
  parts: PalletPart[];
}

/** What a code read on the putaway screen is. */
export type Reading =
  | { kind: "merce"; rows: WorklistRow[]; lotto: string | null }
  | { kind: "collo"; pallet: Pallet }
  | { kind: "ubicazione"; location: Location }
  | { kind: "rifiuto"; title: string; message: string }
  /** Neither a location of this warehouse nor goods waiting in its receiving locations. */
  | { kind: "sconosciuto"; message: string; collo?: boolean };

const same = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase();

/** Quantities carry at most 3 decimals: rounded back to them after arithmetic. */
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** What of a row still waits: its stock less what this handheld queued from it and has not sent yet. */
export function waiting(row: WorklistRow, queued: ReadonlyMap<number, number>): number {
  return round3(Number(row.quantita) - (queued.get(row.id) ?? 0));
}

/**
 * A code read on the putaway screen, looked up in the handheld's copy of the warehouse (online or not: the
 * copy is fetched again every minute and after each putaway). A location code of the warehouse is a
 * destination; an EAN, a GS1 code's GTIN (and its lot), an `R<riga>` label or an article code are goods,
 * their rows oldest arrival first, those this handheld queued in full left out.
 */
export function readCode(
  code: string,
  copy: PutawayCopy,
  queued: ReadonlyMap<number, number>,
  queuedPallets: ReadonlySet<string> = new Set(),
): Reading {
  const text = code.trim();
  const sscc = readSscc(text);
  if (sscc !== null) return readPallet(sscc, copy, queued, queuedPallets);
  const location = copy.ubicazioni.find((u) => same(u.codice, text));
  if (location) return { kind: "ubicazione", location };

  const scan = parseScan(text);
  let rows: WorklistRow[];
  let lotto: string | null = null;
  switch (scan.kind) {
    case "ean":
    case "gs1": {
      const eans = new Set(eanCandidates(scan.gtin));
      rows = copy.righe.filter((r) => r.ean !== null && eans.has(r.ean));
      if (scan.kind === "gs1" && scan.lotto) {
        lotto = scan.lotto;
        const withLot = rows.filter((r) => r.lotto !== null && same(r.lotto, scan.lotto as string));
        if (rows.length > 0 && withLot.length === 0)
          return {
            kind: "rifiuto",
            title: "Lotto non da stoccare",
            message: `Il lotto ${scan.lotto} di ${rows[0]?.articolo.codice} non è in un'ubicazione di ricevimento: leggere un'altra confezione.`,
          };
        rows = withLot;
      }
      break;
    }
    case "etichetta": {
      const articles = new Set(copy.etichette.filter((e) => e.riga === scan.riga).map((e) => e.articolo));
      rows = copy.righe.filter((r) => articles.has(r.articolo.id));
      break;
    }
    case "codice":
      rows = copy.righe.filter((r) => same(r.articolo.codice, scan.codice));
      break;
    default:
      return { kind: "rifiuto", title: "Codice non letto", message: scan.motivo };
  }
  const open = rows.filter((r) => waiting(r, queued) > 0);
  if (open.length > 0) return { kind: "merce", rows: open, lotto };
  if (rows.length > 0)
    return {
      kind: "rifiuto",
      title: "Già stoccato",
      message: `${rows[0]?.articolo.codice}: quanto era in ricevimento è già in coda su questo palmare.`,
    };
  return { kind: "sconosciuto", message: `«${text}» non è merce in attesa di stoccaggio in questo magazzino, né una sua ubicazione.` };
}

/** Why a location read cannot take the goods shown (null: it can). */
export function destinationProblem(location: Location, row: WorklistRow): string | null {
  if (!location.attiva) return `L'ubicazione ${location.codice} non è attiva: non riceve merce. Leggere un'altra ubicazione.`;
  if (same(location.codice, row.ubicazione))
    return `La merce è già in ${location.codice}: leggere l'etichetta dell'ubicazione di destinazione.`;
  return null;
}

/**
 * The pallet an SSCC names, from the copy (so an SSCC read offline works as online): what of it still
 * waits, each part no more than its row shows after what this handheld queued. A pallet unknown to the
 * copy is "sconosciuto" (the screen asks the service once more before refusing it).
 */
export function palletOf(sscc: string, copy: PutawayCopy, queued: ReadonlyMap<number, number>): Pallet | null {
  // A copy kept by an older version of the screen has no pallets.
  const known = (copy.colli ?? []).find((c) => c.sscc === sscc);
  if (!known) return null;
  const parts: PalletPart[] = [];
  for (const p of known.parti) {
    const row = copy.righe.find((r) => r.id === p.riga);
    const quantita = row ? Math.min(round3(Number(p.quantita)), waiting(row, queued)) : 0;
    if (row && quantita > 0) parts.push({ row, quantita });
  }
  return { sscc, parts };
}

function readPallet(sscc: string, copy: PutawayCopy, queued: ReadonlyMap<number, number>, queuedPallets: ReadonlySet<string>): Reading {
  if (queuedPallets.has(sscc))
    return {
      kind: "rifiuto",
      title: "Collo già in coda",
      message: `Il collo ${sscc} è già in coda su questo palmare: verrà inviato una volta sola.`,
    };
  const pallet = palletOf(sscc, copy, queued);
  if (!pallet)
    return {
      kind: "sconosciuto",
      message: `Il collo ${sscc} non è da stoccare in questo magazzino: non ricevuto, già stoccato o di un altro magazzino.`,
      collo: true,
    };
  if (pallet.parts.length === 0)
    return {
      kind: "rifiuto",
      title: "Collo già stoccato",
      message: `Del collo ${sscc} non resta nulla nelle ubicazioni di ricevimento (o è già in coda su questo palmare).`,
    };
  return { kind: "collo", pallet };
}

/**
 * Where a pallet goes: a pallet moves whole, so one destination for all of it, the proposal of its largest
 * part (the first of equal ones); when that part has none, the next largest that has one.
 */
export function palletProposal(pallet: Pallet): WorklistRow["proposta"] {
  const bySize = [...pallet.parts].sort((a, b) => b.quantita - a.quantita);
  return bySize.find((p) => p.row.proposta)?.row.proposta ?? null;
}

/** Why a location read cannot take the pallet shown (null: it can). */
export function palletDestinationProblem(location: Location, pallet: Pallet): string | null {
  for (const p of pallet.parts) {
    const problem = destinationProblem(location, p.row);
    if (problem) return problem;
  }
  return null;
}

/**
 * Whether the putaway screen knows a code as one it reads (to take it out of the quantity it was typed
 * into, glued.ts): a location, a pallet or goods of the copy by EAN, GS1 code or `R` label. Article codes are
 * not: a quantity may well end with a character or two of one.
 */
export function knowsCode(code: string, copy: PutawayCopy): boolean {
  if (readSscc(code.trim()) !== null) return true;
  const r = readCode(code, copy, new Map());
  if (r.kind === "ubicazione" || r.kind === "collo") return true;
  return r.kind === "merce" && parseScan(code).kind !== "codice";
}
