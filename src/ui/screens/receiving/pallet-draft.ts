import type { MotivoDifferenza, PalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import { instant, parseDecimal, qty } from "../../format";

/** What the operator declares on one row of the pallet before Enter: not received, recorded as a difference. */
export interface PalletMark {
  quantita: number;
  motivo: Exclude<MotivoDifferenza, "eccedente">;
  nota: string;
}

/** A row's difference being written (the form open on the card), not yet a mark. */
export interface PalletDraft {
  indice: number;
  /** The mark's or the row's quantity when the form opens; then the text typed into the field ("2,5" too). */
  quantita: number | string;
  motivo: PalletMark["motivo"];
  nota: string;
}

type PalletRow = PalletOutput["righe"][number];

/** The form opened on a row: the mark it changes, or the whole row, damaged (the most frequent reason). */
export function draftFor(row: PalletRow, mark: PalletMark | undefined): PalletDraft {
  return {
    indice: row.indice,
    quantita: mark?.quantita ?? Number(row.quantita),
    motivo: mark?.motivo ?? "danneggiato",
    nota: mark?.nota ?? "",
  };
}

/** The draft's quantity as a number, or null when its text is not one with at most 3 decimals. */
function quantityOf(draft: PalletDraft): number | null {
  const q = draft.quantita;
  if (typeof q === "number") return q;
  if (/[.,]\d{4,}\s*$/.test(q)) return null;
  return parseDecimal(q);
}

/** Why the form cannot become a mark as it is (for the operator), or null. */
export function draftProblem(draft: PalletDraft, row: PalletRow): string | null {
  const q = quantityOf(draft);
  if (q === null || !(q > 0))
    return `${row.articolo.codice}: scrivere la quantità non ricevuta (da più di 0 a ${qty(row.quantita)}, al massimo 3 decimali).`;
  if (q > Number(row.quantita))
    return `${row.articolo.codice}: si dichiarano ${qty(String(q))}, ma il collo ne porta ${qty(row.quantita)}. Correggere la quantità o annullare la differenza.`;
  return null;
}

/** The draft made a mark: only once draftProblem found none. */
export const markOf = (d: PalletDraft): PalletMark => ({ quantita: quantityOf(d)!, motivo: d.motivo, nota: d.nota });

/** The marks as the operator reads them: "mancante 2 × CD-A (riga 1)". */
export function describeMarks(collo: PalletOutput, marks: Record<number, PalletMark>): string {
  return Object.entries(marks)
    .map(([indice, m]) => {
      const row = collo.righe.find((r) => r.indice === Number(indice));
      return `${m.motivo} ${qty(String(m.quantita))} × ${row?.articolo.codice ?? "?"} (riga ${Number(indice) + 1})`;
    })
    .join(", ");
}

/** Who received the pallet, under which delivery note and when, as the operator reads it. */
export function describeReceipt(ricevuto: PalletOutput["ricevuto"]): string {
  return ricevuto ? `da ${ricevuto.da} con il DDT ${ricevuto.ddt}, il ${instant(ricevuto.il)}` : "";
}
