import type { Db, Tx } from "../../db/client";
import { first, holdingCommit, rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import { ssccOrRefuse } from "../../lib/sscc";
import type { Actor } from "../auth/actor";
import { writeMovements } from "../movements/movements.service";
import * as q from "./putaway.queries";
import type { StorePalletInput, StorePalletOutput, WorklistOutput } from "./putaway.schemas";

/**
 * Putaway by SSCC (docs/api.md section 11, "Putaway detail"; section 12: it reads the pallet receipt record). A
 * pallet moves whole: one destination for all of it, one operation, one transfer per (article, lot) of
 * what of the pallet is still in its receiving location.
 *
 * Locks, in this order: the pallet's row FOR SHARE (after whatever receipt or cancellation of it holds it:
 * those take its notice, then it, FOR UPDATE), then the putaway record's key (a second putaway of the same
 * receipt waits there for the first to commit and is refused `collo_gia_stoccato`), then the ledger's own
 * (ledger.service.ts). Nothing of the ledger is held before the record, so two handhelds never deadlock.
 */

/** The handheld's copy of the warehouse's pallets waiting for putaway: their parts name the copy's rows. */
export async function palletsWaiting(db: Db, magazzino: number): Promise<WorklistOutput["colli"]> {
  const parts = await rows(db, q.palletParts(magazzino, null));
  const bySscc = new Map<string, WorklistOutput["colli"][number]>();
  for (const p of parts) {
    const c = bySscc.get(p.sscc) ?? { sscc: p.sscc, parti: [] };
    c.parti.push({ riga: p.giacenza_id, quantita: canonical(p.quantita) });
    bySscc.set(p.sscc, c);
  }
  return [...bySscc.values()];
}

async function refuseDone(tx: Tx, sscc: string, ricevimento: number, timeZone: string): Promise<never> {
  const done = await first(tx, q.palletPutawayDone(ricevimento));
  throw new DomainError(
    "collo_gia_stoccato",
    done
      ? `Il collo ${sscc} è già stato stoccato${done.ubicazione ? ` in ${done.ubicazione}` : ""} (${formatInstant(timeZone, done.stoccato_il)}): nulla da spostare.`
      : `Del collo ${sscc} non resta nulla nelle ubicazioni di ricevimento: è già stato stoccato articolo per articolo.`,
    { campo: "sscc" },
  );
}

export async function storePallet(tx: Tx, actor: Actor, input: StorePalletInput, timeZone: string): Promise<StorePalletOutput> {
  const sscc = ssccOrRefuse(input.sscc);
  const pallet = await first(tx, q.lockPalletForPutaway(sscc));
  if (!pallet || pallet.magazzino_id !== input.magazzino)
    throw new DomainError(
      "collo_non_trovato",
      pallet
        ? `Il collo ${sscc} è annunciato per un altro magazzino: stoccarlo da quel magazzino.`
        : `Il collo ${sscc} non è in nessun avviso di spedizione: stoccare la merce leggendo gli articoli.`,
      { campo: "sscc" },
    );
  if (pallet.ricevimento_id === null)
    throw new DomainError("collo_non_ricevuto", `Il collo ${sscc} non è stato ricevuto: riceverlo prima dalla banchina.`, {
      campo: "sscc",
    });
  const ricevimento = pallet.ricevimento_id;
  // What is left of it (none once its record stands), then the record: of two handhelds at once, the
  // second waits at the record for the first to commit and then hears its outcome.
  const parts = await rows(tx, q.palletParts(input.magazzino, ricevimento));
  if (parts.length === 0) return refuseDone(tx, sscc, ricevimento, timeZone);
  const recorded = await first(tx, q.recordPalletPutaway(ricevimento, input.a, input.magazzino));
  if (!recorded) return refuseDone(tx, sscc, ricevimento, timeZone);
  const already = parts.find((p) => p.ubicazione === input.a);
  if (already)
    throw new DomainError("richiesta_non_valida", `Il collo ${sscc} è già in ${input.a}: leggere l'etichetta di un'altra ubicazione.`, {
      campo: "a",
    });
  // The record's operation follows the ledger's append: its commit is held for it (sql.ts holdingCommit).
  return holdingCommit(tx, async () => {
    const out = await writeMovements(
      tx,
      actor,
      {
        natura: "trasferimento",
        magazzino: input.magazzino,
        magazzino_origine: input.magazzino,
        causale: `Stoccaggio collo ${sscc}`,
        righe: parts.map((p) => ({
          codice: p.codice,
          quantita: Number(canonical(p.quantita)),
          ...(p.lotto === null ? {} : { lotto: p.lotto }),
          ubicazione_origine: p.ubicazione,
          ubicazione: input.a,
        })),
      },
      { timeZone, origine: "stoccaggio" },
    );
    // All or nothing: a pallet moves whole. The first refused row is the call's refusal (the unit rolls back).
    const refused = out.righe.find((r) => r.esito !== "scritta");
    if (refused || out.operazione === null) {
      const i = refused ? out.righe.indexOf(refused) : 0;
      const e = refused?.errore ?? { codice: "richiesta_non_valida", messaggio: "Stoccaggio non scritto." };
      throw new DomainError(
        e.codice as never,
        `Collo ${sscc}, ${parts[i]?.codice ?? ""}${parts[i]?.lotto ? ` lotto ${parts[i]?.lotto}` : ""}: ${e.messaggio}`,
      );
    }
    await rows(tx, q.setPalletPutawayOperation(ricevimento, out.operazione));
    return {
      operazione: out.operazione,
      sscc,
      a: input.a,
      righe: parts.map((p, i) => ({
        articolo: p.codice,
        lotto: p.lotto,
        da: p.ubicazione,
        quantita: canonical(p.quantita),
        movimento: out.righe[i]?.movimento ?? 0,
      })),
    };
  });
}
