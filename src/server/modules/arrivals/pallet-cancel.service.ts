import type { Tx } from "../../db/client";
import { execute, first, rows } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { arrivalsOfReceipt, cancelArrivals } from "./cancel.service";
import type { CancelPalletOutput } from "./receiving.schemas";
import * as q from "./pallets.queries";
import { lockedPallet } from "./pallets.service";

/**
 * POST /colli/{sscc}/annulla (docs/api.md section 12): every arrival of a pallet's receipt cancelled at once, all
 * or nothing, by the one cancellation of arrivals (arrivals/cancel.service.ts cancelArrivals), which
 * POST /arrivi/{id}/annulla runs for one: same checks, same codes, one writer in the lock order.
 */
export async function cancelPallet(tx: Tx, actor: Actor, raw: string, opts: { timeZone: string }): Promise<CancelPalletOutput> {
  const pallet = await lockedPallet(tx, raw);
  if (pallet.ricevimento_id === null)
    throw new DomainError("collo_non_ricevuto", `Il collo ${pallet.sscc} non risulta ricevuto: non c'è nulla da annullare.`, {
      campo: "sscc",
    });
  const receipt = (await first(tx, q.receiptOf(pallet.ricevimento_id)))!;
  const movements = await arrivalsOfReceipt(tx, receipt.id, receipt.movimenti);
  const cancelled = await cancelArrivals(tx, actor, movements, { timeZone: opts.timeZone, causale: `Annullamento collo ${pallet.sscc}` });
  return finish(
    tx,
    pallet,
    receipt.id,
    cancelled.map((c) => ({ annullato: c.annullato, movimento: c.movimento, riga: c.riga })),
  );
}

/** The receipt voided with its differences, the notice's version moved (its pallet is expected again). */
async function finish(tx: Tx, pallet: q.LockedPallet, receipt: number, righe: CancelPalletOutput["righe"]): Promise<CancelPalletOutput> {
  const [voided] = await rows(tx, q.cancelReceipt(pallet.id, receipt));
  await execute(tx, q.touchNotice(pallet.avviso_id));
  return { annullati: righe.length, righe, differenze_annullate: voided?.annullate ?? 0, collo: { sscc: pallet.sscc, stato: "atteso" } };
}
