"use client";
import type { WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { useStableActions } from "../../stable-actions";
import { useLabelPrint } from "../receiving/use-label-print";

/**
 * The label after a putaway (docs/api.md section 13), on the receiving screen's printing
 * (useLabelPrint: this device's printer and automatic printing, the job and "Ristampa"), imported, not
 * copied. Which label: the operator has just put goods on a shelf whose label was read (its scan was the
 * destination), so a location label would be a second copy of one already there; what is useful is a label
 * on the goods that scans back with lot and expiry when the bin is counted or picked: the lot label for a
 * lot article, the pallet's label (SSCC) for a pallet moved whole. An article without lot gets no offer
 * (its EAN already reads it), as at receipt. One key (F2, or the button), or printed by itself when the
 * device is set so.
 */
export function usePutawayLabel() {
  const l = useLabelPrint({ arrivals: false });

  /** What was put away of a lot article: its lot label on offer. */
  function offerLot(row: WorklistRow, quantita: number) {
    // `movimento` names the offer in the print's Idempotency-Key: a new one per putaway.
    l.offerLot({ movimento: Date.now(), articolo: row.articolo, lotto: row.lotto, scadenza: row.scadenza, quantita: String(quantita) });
  }

  /** A pallet put away whole: its label on offer. */
  function offerPallet(sscc: string) {
    l.offerPallet(sscc, []);
  }

  return { ...useStableActions({ offerLot, offerPallet }), panel: l };
}
