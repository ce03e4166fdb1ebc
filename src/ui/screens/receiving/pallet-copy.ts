import type { PalletOutput, ReceivePalletRequest } from "../../../server/modules/arrivals/receiving.schemas";
import type { NoticeOutput } from "../../../server/modules/notices/notices.schemas";
import type { QueueItem } from "../../offline/device-queue";
import type { ExpectedCopy } from "./local-lookup";

/**
 * The handheld's copy of the announced pallets (docs/api.md section 12), for an SSCC scanned in a dead spot: each
 * pallet not yet received, with its rows as a scan online shows them (notices.pallet). Built from the shipping
 * notices the operator can read (GET /avvisi-spedizione, not received); an SSCC is unique across warehouses,
 * and the online scan of a pallet does not ask for the warehouse either, so the copy holds them all.
 */
export interface PalletCopy {
  colli: PalletOutput[];
  /** When it was fetched (ms since the epoch): its age is shown. */
  il: number;
}

/** A pallet receipt confirmed on the handheld and not yet confirmed by the service (POST /colli/{sscc}/ricevi). */
export interface QueuedPallet extends QueueItem {
  richiesta: ReceivePalletRequest;
  /** For the list: the notice's number and how many rows. */
  avviso: string;
  righe: number;
}

/**
 * The pallets of the notices, as the copy keeps them. A row's remainder is the expected copy's, when that
 * copy has the row (offline nothing fresher exists); else the pallet's own quantity, so no excess is
 * announced that the service might not find.
 */
export function palletsFromNotices(avvisi: NoticeOutput[], expected: ExpectedCopy | null, il: number): PalletCopy {
  const residue = new Map((expected?.righe ?? []).map((r) => [r.riga, r.residua]));
  const colli: PalletOutput[] = [];
  for (const a of avvisi)
    for (const c of a.colli) {
      if (c.stato !== "atteso") continue;
      colli.push({
        sscc: c.sscc,
        avviso: { id: a.id, numero: a.numero },
        stato: "atteso",
        righe: c.righe.map(({ numero_riga: _, ...r }) => ({ ...r, residua: residue.get(r.riga) ?? r.quantita })),
      });
    }
  return { colli, il };
}

/**
 * An SSCC looked up in the copy: the pallet, "ricevuto" when the device already queued its receipt (a second
 * Enter must not queue it twice), or null when no notice of the copy announces it.
 */
export function lookUpPallet(sscc: string, copy: PalletCopy | null, queued: readonly QueuedPallet[]): PalletOutput | null {
  const found = copy?.colli.find((c) => c.sscc === sscc);
  if (!found) return null;
  return queued.some((q) => q.richiesta.sscc === sscc && q.stato !== "rifiutato") ? { ...found, stato: "ricevuto" } : found;
}
