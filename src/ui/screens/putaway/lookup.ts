import type { WorklistOutput, WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { eanCandidates, parseScan } from "../../../lib/barcode";
import { gtinCheckDigit } from "../../../lib/gtin";

export type PutawayCopy = WorklistOutput;
export type Location = WorklistOutput["ubicazioni"][number];

/** What a code read on the putaway screen is. */
export type Reading =
  | { kind: "merce"; rows: WorklistRow[]; lotto: string | null }
  | { kind: "ubicazione"; location: Location }
  | { kind: "rifiuto"; title: string; message: string }
  /** Neither a location of this warehouse nor goods waiting in its receiving locations. */
  | { kind: "sconosciuto"; message: string };

/** API.md section 11: 18 digits with a valid check digit are an SSCC, before any other reading. */
export function isSscc(code: string): boolean {
  return /^\d{18}$/.test(code) && gtinCheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}

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
export function readCode(code: string, copy: PutawayCopy, queued: ReadonlyMap<number, number>): Reading {
  const text = code.trim();
  if (isSscc(text))
    return {
      kind: "rifiuto",
      title: "Collo non gestito",
      message: `SSCC ${text}: lo stoccaggio per collo non è ancora disponibile. Leggere il codice dell'articolo (EAN o GS1) o l'etichetta R della riga.`,
    };
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
