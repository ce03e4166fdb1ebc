"use client";
import { useHotkeys } from "@mantine/hooks";
import { useState } from "react";
import type { WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { useStableActions } from "../../stable-actions";
import { useLabelPrint } from "../receiving/use-label-print";
import type { TodayArrival } from "../receiving/use-today-arrivals";

/**
 * The label after a putaway (issue 26, API.md section 13), on the receiving screen's printing
 * (useLabelPrint: this device's printer and automatic printing, the job and "Ristampa"), imported, not
 * copied. Which label: the operator has just put goods on a shelf whose label was read (its scan was the
 * destination), so a location label would be a second copy of one already there; what is useful is a label
 * on the goods that scans back with lot and expiry when the bin is counted or picked: the lot label for a
 * lot article, the pallet's label (SSCC) for a pallet moved whole. An article without lot gets no offer
 * (its EAN already reads it), as at receipt. One key (F2, or the button), or printed by itself when the
 * device is set so.
 */
export function usePutawayLabel() {
  const l = useLabelPrint();
  const [lot, setLot] = useState<TodayArrival | null>(null);
  const [pallet, setPallet] = useState<string | null>(null);

  /** What was put away of a lot article: its lot label on offer. */
  function offerLot(row: WorklistRow, quantita: number) {
    // useLabelPrint prints a lot label from an arrival of today (it reads its article, lot, expiry,
    // quantity and movement); the other fields are not read. `movimento` only names the offer in the
    // print's Idempotency-Key: a new one per putaway. (Asked of the receiving screen's owner: a narrower
    // type, /work/wt/signals/putaway-needs.md.)
    const offer: TodayArrival = {
      movimento: Date.now(),
      operazione: 0,
      riga: 0,
      etichetta: "",
      articolo: row.articolo,
      descrizione: row.descrizione,
      quantita: String(quantita),
      lotto: row.lotto,
      scadenza: row.scadenza,
      ddt: "",
      ordine: { id: 0, numero: "" },
      fornitore: { id: 0, nome: "" },
      magazzino: 0,
      utente: null,
      registrato_il: "",
      annullato: false,
      annullabile: false,
    };
    setPallet(null);
    setLot(offer);
    if (l.settings.automatica && l.printer) void l.print(offer);
  }

  /** A pallet put away whole: its label on offer. */
  function offerPallet(sscc: string) {
    setLot(null);
    setPallet(sscc);
    if (l.settings.automatica && l.printer) void l.printPallet(sscc);
  }

  const actions = useStableActions({ offerLot, offerPallet });
  const f2 = useStableActions({ press: () => (pallet ? void l.printPallet(pallet) : lot && void l.print(lot)) });
  useHotkeys([["F2", () => f2.press()]], []);

  // The panel of the receiving screen (LabelAtReceipt) shows this screen's offer, never an arrival's.
  return { ...actions, panel: { ...l, offer: lot, pallet } };
}
