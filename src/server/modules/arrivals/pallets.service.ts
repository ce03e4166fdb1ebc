import type { Tx } from "../../db/client";
import { execute, first, holdingCommit, rows } from "../../db/sql";
import { businessDate } from "../../lib/dates";
import { canonical, Decimal, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { type CheckedRows, checkRows } from "../../lib/rows";
import { ssccOrRefuse } from "../../lib/sscc";
import { type Actor, authorColumns } from "../auth/actor";
import { lockOrderRows, remaining } from "./order-rows.service";
import { registerArrivals } from "./register.service";
import {
  type MotivoDifferenza,
  type PalletDifference,
  palletDifferenceInput,
  type ReceivePalletInput,
  type ReceivePalletOutput,
} from "./receiving.schemas";
import * as dq from "./differences.queries";
import * as q from "./pallets.queries";
import { receivedBy } from "./pallet-scan.service";

/**
 * A pallet received in one scan (docs/api.md section 12). `POST /colli/{sscc}/ricevi` turns each of its rows into
 * an arrival through the arrivals' own service (registerArrivals: one delivery note, one operation, the
 * over-receipt guarantee, the row refusals), less what the operator declares missing, damaged or wrong, and
 * less what the order row can no longer take (`eccedente`); a receipt record ties the arrivals and the
 * differences to the SSCC. `POST /colli/{sscc}/annulla` cancels every arrival of the receipt through
 * cancelArrival, voids its differences, and the pallet can be received again.
 *
 * Locks: the pallet's notice row first (lockPallet: receipts, cancellations and replacements of one
 * notice's pallets queue there, so five concurrent receipts are one receipt and four `collo_gia_ricevuto`),
 * then what the arrivals' services take, in the ledger's order (order rows by id, lots, balances, orders).
 * Their last statements do not commit (holdingCommit): the receipt record follows them in the same unit.
 */

/** The pallet and its notice, locked (FOR UPDATE): receipts and cancellations of one notice's pallets queue here. */
export async function lockedPallet(tx: Tx, raw: string): Promise<q.LockedPallet> {
  const sscc = ssccOrRefuse(raw);
  const pallet = await first(tx, q.lockPallet(sscc));
  if (!pallet)
    throw new DomainError("collo_non_trovato", `Il collo ${sscc} non è in nessun avviso di spedizione: ricevere la merce riga per riga.`, {
      campo: "sscc",
    });
  return pallet;
}

/**
 * The refusal of a second receipt, naming the receipt that stands (who, which DDT, when): the loser of two
 * handhelds learns whom to settle its declared differences with.
 */
async function alreadyReceived(tx: Tx, pallet: q.LockedPallet, timeZone: string): Promise<DomainError> {
  const scanned = await first(tx, q.palletBySscc(pallet.sscc));
  const by = scanned ? receivedBy(scanned, timeZone) : undefined;
  const who = by ? ` da ${by.da} con il DDT ${by.ddt} (${by.il})` : "";
  return new DomainError(
    "collo_gia_ricevuto",
    `Il collo ${pallet.sscc} (avviso ${pallet.avviso_numero}) è già stato ricevuto${who}: non si riceve una seconda volta.`,
    { campo: "sscc" },
  );
}

interface Declared {
  quantita: Decimal;
  motivo: MotivoDifferenza;
  nota: string | null;
}

/**
 * A malformed difference (a field missing, mistyped or unknown) refuses the pallet row it names, as
 * `campo_non_valido` with the field's path in the call; one that names no row of the pallet is the request's fault.
 */
function malformedDifferences(input: ReceivePalletInput, palletRows: q.PalletRow[], refused: Map<number, RowError>): Map<number, RowError> {
  const byRow = new Map<number, RowError>();
  for (const [i, e] of refused) {
    const indice = input.differenze?.[i]?.indice;
    const row = palletRows.find((r) => r.indice === indice);
    if (!row)
      throw new DomainError(
        "richiesta_non_valida",
        indice === undefined
          ? `differenze[${i}]: manca 'indice', la riga del collo a cui la differenza si riferisce.`
          : `differenze[${i}]: il collo non ha la riga ${JSON.stringify(indice)}.`,
        { campo: `differenze[${i}].indice` },
      );
    if (!byRow.has(row.indice))
      byRow.set(
        row.indice,
        new RowError(
          "campo_non_valido",
          `${e.message} La riga ${row.indice} del collo (${row.articolo_codice}) non è ricevuta: riceverla con la differenza corretta.`,
          `differenze[${i}]${e.campo ? `.${e.campo}` : ""}`,
        ),
      );
  }
  return byRow;
}

/** What the operator declares, by the pallet row's index; a difference beyond its row is the request's fault. */
function declaredByRow(differenze: CheckedRows<PalletDifference>["rows"], palletRows: q.PalletRow[]): Map<number, Declared[]> {
  const byRow = new Map<number, Declared[]>();
  for (const { indice: i, row: d } of differenze) {
    const row = palletRows.find((r) => r.indice === d.indice);
    if (!row)
      throw new DomainError("richiesta_non_valida", `differenze[${i}]: il collo non ha la riga ${d.indice}.`, {
        campo: `differenze[${i}].indice`,
      });
    const quantita = quantityFromNumber(d.quantita);
    if (quantita === null)
      throw new DomainError(
        "richiesta_non_valida",
        `differenze[${i}]: quantità ${d.quantita} non valida (maggiore di zero, al massimo 3 decimali).`,
        {
          campo: `differenze[${i}].quantita`,
        },
      );
    const list = byRow.get(d.indice) ?? [];
    list.push({ quantita: new Decimal(quantita), motivo: d.motivo, nota: d.nota ?? null });
    byRow.set(d.indice, list);
    const total = list.reduce((s, x) => s.plus(x.quantita), new Decimal(0));
    if (total.gt(row.quantita))
      throw new DomainError(
        "richiesta_non_valida",
        `differenze[${i}]: per la riga ${d.indice} del collo (${row.articolo_codice}) si dichiarano ${canonical(total)}, ma il collo ne porta ${row.quantita}.`,
        { campo: `differenze[${i}].quantita` },
      );
  }
  return byRow;
}

interface Plan {
  row: q.PalletRow;
  declared: Declared[];
  take: Decimal;
  eccedente: Decimal;
}

export async function receivePallet(
  tx: Tx,
  actor: Actor,
  input: ReceivePalletInput,
  opts: { timeZone: string },
): Promise<ReceivePalletOutput> {
  const pallet = await lockedPallet(tx, input.sscc);
  if (pallet.ricevimento_id !== null) throw await alreadyReceived(tx, pallet, opts.timeZone);
  const palletRows = await rows(tx, q.palletRows(pallet.id));
  const differenze = checkRows(input.differenze ?? [], palletDifferenceInput, (i) => `Differenza differenze[${i}]`);
  const malformed = malformedDifferences(input, palletRows, differenze.refused);
  const declared = declaredByRow(differenze.rows, palletRows);

  // The order rows locked now (lock order 1; registerArrivals takes them again, a no-op), so what a row can
  // still take is read under the lock the arrival will write under: what exceeds it is `eccedente`.
  const locked = await lockOrderRows(
    tx,
    palletRows.map((r) => r.riga),
  );
  const left = new Map([...locked].map(([id, r]) => [id, remaining(r)]));
  const plans: Plan[] = palletRows.map((row) => {
    const mine = declared.get(row.indice) ?? [];
    const net = new Decimal(row.quantita).minus(mine.reduce((s, x) => s.plus(x.quantita), new Decimal(0)));
    const room = Decimal.max(left.get(row.riga) ?? 0, 0);
    const take = Decimal.min(net, room);
    left.set(row.riga, room.minus(take));
    return { row, declared: mine, take, eccedente: net.minus(take) };
  });

  const toRegister = plans.filter((p) => p.take.gt(0) && !malformed.has(p.row.indice));
  const registered = new Map<
    number,
    { movimento?: number; arrivata?: string; residua?: string; errore?: { codice: string; messaggio: string } }
  >();
  let operazione: number | null = null;
  if (toRegister.length > 0) {
    const out = await holdingCommit(tx, () =>
      registerArrivals(
        tx,
        actor,
        {
          magazzino: pallet.magazzino_id,
          ddt: input.ddt,
          righe: toRegister.map((p) => ({
            riga: p.row.riga,
            quantita: p.take.toNumber(),
            lotto: p.row.lotto ?? undefined,
            scadenza: p.row.scadenza ?? undefined,
            ubicazione: input.ubicazione,
          })),
        },
        opts,
      ),
    );
    if (!("righe" in out)) throw new Error("registerArrivals: risposta di una riga sola per più righe");
    operazione = out.operazione;
    for (const r of out.righe) registered.set(toRegister[r.indice]!.row.indice, r);
  }

  const refused = (p: Plan) => malformed.has(p.row.indice) || registered.get(p.row.indice)?.errore !== undefined;
  const taken = plans.filter((p) => !refused(p));
  const outcomeRows = plans.map((p) => {
    const bad = malformed.get(p.row.indice);
    if (bad) return { indice: p.row.indice, riga: p.row.riga, esito: "rifiutata" as const, errore: bad.toBody() };
    const r = registered.get(p.row.indice);
    if (r?.errore) return { indice: p.row.indice, riga: p.row.riga, esito: "rifiutata" as const, errore: r.errore };
    if (r)
      return {
        indice: p.row.indice,
        riga: p.row.riga,
        esito: "registrata" as const,
        movimento: r.movimento,
        arrivata: r.arrivata,
        residua: r.residua,
        ricevuta: canonical(p.take),
      };
    return { indice: p.row.indice, riga: p.row.riga, esito: "non_ricevuta" as const, ricevuta: "0" };
  });
  const registrate = outcomeRows.filter((r) => r.esito === "registrata").length;
  const rifiutate = outcomeRows.length - taken.length;
  // Every row refused for its own reason: nothing was received, the pallet stays expected.
  if (taken.length === 0)
    return { operazione: null, registrate, rifiutate, righe: outcomeRows, collo: { sscc: pallet.sscc, stato: "atteso" } };

  const author = authorColumns(actor);
  const movimenti = outcomeRows.flatMap((r) => ("movimento" in r && r.movimento !== undefined ? [r.movimento] : []));
  const receipt = (await first(tx, q.insertReceipt({ collo: pallet.id, operazione, ddt: input.ddt, movimenti, author })))!.id;
  if (!(await first(tx, q.markReceived(pallet.id, receipt))))
    throw new DomainError("collo_gia_ricevuto", `Il collo ${pallet.sscc} è già stato ricevuto.`, { campo: "sscc" });

  const data = businessDate(opts.timeZone);
  const differences = taken.flatMap((p) => {
    const base = {
      data,
      fornitore: pallet.fornitore_id,
      avviso: pallet.avviso_id,
      collo: pallet.id,
      ricevimento: receipt,
      sscc: pallet.sscc,
      riga: p.row.riga,
      articolo: p.row.articolo_id,
      attesa: p.row.quantita,
      ricevuta: canonical(p.take),
    };
    const list = p.declared.map((d) => ({
      ...base,
      indice: p.row.indice,
      quantita: canonical(d.quantita),
      motivo: d.motivo,
      nota: d.nota,
    }));
    if (p.eccedente.gt(0))
      list.push({
        ...base,
        indice: p.row.indice,
        quantita: canonical(p.eccedente),
        motivo: "eccedente",
        nota: "Oltre il residuo della riga d'ordine: non ricevuto",
      });
    return list;
  });
  const ids = differences.length > 0 ? await rows(tx, dq.insertDifferences(differences, author)) : [];
  await execute(tx, q.touchNotice(pallet.avviso_id));

  const byRow = new Map<number, { id: number; motivo: MotivoDifferenza; quantita: string }[]>();
  for (const [i, d] of differences.entries()) {
    const list = byRow.get(d.indice) ?? [];
    list.push({ id: ids[i]!.id, motivo: d.motivo, quantita: d.quantita });
    byRow.set(d.indice, list);
  }
  return {
    operazione,
    registrate,
    rifiutate,
    righe: outcomeRows.map((r) => (byRow.has(r.indice) ? { ...r, differenze: byRow.get(r.indice) } : r)),
    collo: { sscc: pallet.sscc, stato: "ricevuto" },
  };
}
