import type { ModelDb } from "../../db/client";
import { first, rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import type { PalletOutput } from "./receiving.schemas";
import * as q from "./pallets.queries";

/**
 * A scanned SSCC (docs/api.md section 12), for POST /arrivi/cerca and the receiving screen: a read apart
 * from pallets.service.ts, which writes through the register service, so the search can call it without a
 * circle of files.
 */

/** Who received a pallet, under which delivery note and when (`collo.ricevuto`); absent while it is expected. */
export function receivedBy(pallet: q.ScannedPallet, timeZone: string): PalletOutput["ricevuto"] {
  if (pallet.ricevimento_id === null || pallet.ricevuto_ms === null) return undefined;
  return { da: pallet.ricevuto_da ?? "", ddt: pallet.ricevuto_ddt ?? "", il: formatInstant(timeZone, pallet.ricevuto_ms) };
}

/** The pallet a scan of its SSCC shows (POST /arrivi/cerca `collo`), or null when no notice announces it. */
export async function palletOf(db: ModelDb, sscc: string, opts: { timeZone: string }): Promise<PalletOutput | null> {
  const pallet = await first(db, q.palletBySscc(sscc));
  if (!pallet) return null;
  const righe = await rows(db, q.palletRows(pallet.id));
  const ricevuto = receivedBy(pallet, opts.timeZone);
  return {
    sscc: pallet.sscc,
    avviso: { id: pallet.avviso_id, numero: pallet.avviso_numero },
    stato: pallet.ricevimento_id === null ? "atteso" : "ricevuto",
    ...(ricevuto ? { ricevuto } : {}),
    righe: righe.map((r) => ({
      indice: r.indice,
      riga: r.riga,
      ordine: { id: r.ordine_id, numero: r.ordine_numero },
      articolo: { id: r.articolo_id, codice: r.articolo_codice },
      quantita: r.quantita,
      lotto: r.lotto,
      scadenza: r.scadenza,
      residua: r.residua,
    })),
  };
}
