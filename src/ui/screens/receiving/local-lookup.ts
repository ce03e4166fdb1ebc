import { eanCandidates, parseScan } from "../../../lib/barcode";
import { readSscc } from "../../../lib/sscc";
import type { ExpectedOutput, ScanOutput } from "@/server/modules/arrivals/arrivals.schemas";

export type ExpectedCopy = ExpectedOutput;
type OfflineRow = ExpectedOutput["righe"][number];

/**
 * A code looked up in the handheld's copy of the warehouse's open expected rows, as the service would
 * answer `arrivals.scan` for that warehouse: an EAN (or a GS1 code's GTIN) proposes the article's oldest
 * expected row, an `R` label names its row, an article code its article. `inQueue` holds what the device
 * registered offline and has not sent yet, per row: it is taken off the remainder (a row all queued is no
 * longer proposed), so counting offline stays right. The copy's rows are oldest order first, as the
 * service sends them.
 */
export function lookUpLocally(code: string, copy: ExpectedCopy, inQueue: ReadonlyMap<number, number>): ScanOutput {
  const scan = parseScan(code);
  const open = (r: OfflineRow) => remaining(r, inQueue) > 0;
  let rows: OfflineRow[];
  let lettura: ScanOutput["lettura"];
  switch (scan.kind) {
    case "etichetta":
      rows = copy.righe.filter((r) => r.riga === scan.riga);
      break;
    case "ean":
    case "gs1": {
      const eans = new Set(eanCandidates(scan.gtin));
      rows = copy.righe.filter((r) => r.ean !== null && eans.has(r.ean));
      if (scan.kind === "gs1") lettura = { gtin: scan.gtin, lotto: scan.lotto, scadenza: scan.scadenza };
      break;
    }
    case "codice":
      rows = copy.righe.filter((r) => r.articolo.codice.toUpperCase() === scan.codice.toUpperCase());
      break;
    default:
      return none(scan.motivo, "codice_sconosciuto");
  }
  const candidates = rows.filter(open);
  const first = candidates[0];
  if (!first) {
    if (rows.length > 0) return none(`Codice ${code}: la riga risulta già tutta ricevuta (copia locale).`, "riga_evasa");
    return none(`Codice ${code} non atteso in questo magazzino secondo la copia locale delle righe attese.`, "non_atteso");
  }
  const { ordine, ean: _, ...row } = first;
  const residua = remaining(first, inQueue);
  return {
    ordini: [
      {
        ...ordine,
        righe: [{ ...row, residua: String(residua), arrivata: String(Number(first.ordinata) - residua), registrati: [] }],
      },
    ],
    totale_ordini: new Set(candidates.map((r) => r.ordine.id)).size,
    totale_righe: candidates.length,
    altri: false,
    cursore: ordine.id,
    ...(lettura ? { lettura } : {}),
  };
}

function remaining(r: OfflineRow, inQueue: ReadonlyMap<number, number>): number {
  // Quantities carry at most 3 decimals: rounded back to them after the subtraction.
  return Math.round((Number(r.residua) - (inQueue.get(r.riga) ?? 0)) * 1000) / 1000;
}

function none(motivo: string, motivo_codice: NonNullable<ScanOutput["motivo_codice"]>): ScanOutput {
  return { ordini: [], totale_ordini: 0, totale_righe: 0, altri: false, cursore: 0, motivo, motivo_codice };
}

/**
 * Whether the receiving screen knows a code as one it reads (to take it out of a field it was typed into,
 * glued.ts): an EAN or GS1 code of a row in the copy, a row's `R` label, an SSCC (announced pallets are read
 * by the service; an 18-digit code with a valid check digit after AI 00 or alone is one). Article codes are
 * not: a delivery note or a quantity may well end with a few of their characters.
 */
export function knowsCode(code: string, copy: ExpectedCopy | null): boolean {
  if (readSscc(code) !== null) return true;
  if (!copy) return false;
  const scan = parseScan(code);
  if (scan.kind === "etichetta") return copy.righe.some((r) => r.riga === scan.riga);
  if (scan.kind !== "ean" && scan.kind !== "gs1") return false;
  const eans = new Set(eanCandidates(scan.gtin));
  return copy.righe.some((r) => r.ean !== null && eans.has(r.ean));
}
