import type { Tx } from "../../db/client";
import { execute, rows } from "../../db/sql";
import { canonical, Decimal } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { malformedRow } from "../../lib/rows";
import { type Checked, checkReservation, sameAsStored } from "./reservations-check";
import type { Actor } from "../auth/actor";
import { loadArticles } from "../catalogue/articles";
import { balanceLockOrder, lockBalancesForHolds } from "../ledger/ledger.service";
import { uncoverPairs } from "../ledger/uncover";
import {
  MAX_RESERVATION_ROWS_PER_CALL,
  MAX_RESERVATIONS_PER_CALL,
  type ReservationInput,
  reservationStrict,
  type UpsertReservationsInput,
  type UpsertReservationsOutput,
} from "./reservations.schemas";
import * as q from "./reservations.queries";

/**
 * POST /prenotazioni (docs/api.md section 14): creates a reservation or replaces the rows of one still `attiva`,
 * identified by (author, `riferimento`); rows by `numero_riga`. Each reservation is all-or-nothing (or, with
 * `parziale`, each row holds what is free up to its quantity); a refused one never blocks the others, and a
 * refused update leaves the previous version in force.
 *
 * THE PROMISE. The holds of an (article, warehouse), and of a lot where one is named, never exceed what was free
 * when each was taken, under any concurrency and across instances. Locks: the references' keys (0e), the
 * reservations found by id (2b), then the balances of every (article, warehouse) the call holds, FOR UPDATE in
 * (article, warehouse) order (level 5, ledger.service.ts lockBalancesForHolds: the row every stock writer locks for that stock);
 * only then, in statements of their own, what is free (reservations.queries.ts freeToHold, lotsToHold). A hold of
 * a lot draws from the lot and from its article in that warehouse; a hold without lot from the article: so a
 * reservation of a lot and one without lot racing on the same stock queue on the same balance and never overlap.
 *
 * Inside one call the reservations take in the call's order from one pool: the free quantity with every active
 * hold subtracted, to which a reservation being updated adds back its own current holds; a refused update gives
 * nothing back because it took nothing.
 */

type Outcome = UpsertReservationsOutput["righe"][number];

const pairKey = (articolo: number, magazzino: number) => `${articolo}/${magazzino}`;
const lotKey = (articolo: number, magazzino: number, lotto: string) => `${articolo}/${magazzino}/${lotto}`;
const ZERO = new Decimal(0);
const clamp = (d: Decimal) => (d.isNegative() ? ZERO : d);

export async function upsertReservations(
  tx: Tx,
  actor: Actor,
  input: UpsertReservationsInput,
  opts: { oggi: string },
): Promise<UpsertReservationsOutput> {
  const totalRows = input.prenotazioni.reduce((n, p) => n + (Array.isArray(p.righe) ? p.righe.length : 0), 0);
  if (input.prenotazioni.length > MAX_RESERVATIONS_PER_CALL || totalRows > MAX_RESERVATION_ROWS_PER_CALL) {
    throw new DomainError(
      "troppe_righe",
      `Al massimo ${MAX_RESERVATIONS_PER_CALL} prenotazioni e ${MAX_RESERVATION_ROWS_PER_CALL} righe in tutto per chiamata: ricevute ${input.prenotazioni.length} prenotazioni con ${totalRows} righe. Dividere l'invio in più chiamate.`,
      { campo: "prenotazioni" },
    );
  }
  const chiave = actor.kind === "chiave" ? actor.id : null;
  const utente = actor.kind === "utente" ? actor.id : null;
  const autore = `${actor.kind}:${actor.id}`;
  const outcomes = new Map<number, Outcome>();
  const riferimentoOf = (indice: number) => {
    const r = input.prenotazioni[indice]!.riferimento;
    return typeof r === "string" ? r.trim() : null;
  };
  const refuse = (indice: number, e: RowError, righe?: { numero_riga: number; richiesta: string; disponibile: string }[]) =>
    outcomes.set(indice, {
      indice,
      riferimento: riferimentoOf(indice),
      esito: "rifiutata",
      errore: righe ? { ...e.toBody(), righe } : e.toBody(),
    });

  const wellFormed: { indice: number; p: ReservationInput }[] = [];
  for (const [indice, raw] of input.prenotazioni.entries()) {
    const parsed = reservationStrict.safeParse(raw);
    if (parsed.success) wellFormed.push({ indice, p: parsed.data });
    else
      refuse(
        indice,
        malformedRow(`Prenotazione ${riferimentoOf(indice) ?? "senza riferimento"} (prenotazioni[${indice}])`, parsed.error.issues),
      );
  }
  const distinct = (values: string[]) => [...new Set(values)];
  const magazzini = new Map(
    (await rows(tx, q.warehousesByCode(distinct(wellFormed.map((w) => w.p.magazzino))))).map((m) => [m.codice, m.id]),
  );
  const clienti = new Map((await rows(tx, q.clientsByCode(distinct(wellFormed.map((w) => w.p.cliente))))).map((c) => [c.codice, c.id]));
  const index = await loadArticles(
    tx,
    wellFormed.flatMap((w) => w.p.righe.map((r) => ({ codice: r.codice, ean: r.ean }))),
  );

  const checked: Checked[] = [];
  for (const { indice, p } of wellFormed) {
    try {
      checked.push(checkReservation(indice, p, { magazzini, clienti, index }));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      refuse(indice, e);
    }
  }
  // The same reference twice in one call: which one should win is not ours to guess.
  const occurrences = new Map<string, number>();
  for (const c of checked) occurrences.set(c.input.riferimento, (occurrences.get(c.input.riferimento) ?? 0) + 1);
  const unique = checked.filter((c) => {
    if (occurrences.get(c.input.riferimento) === 1) return true;
    refuse(
      c.indice,
      new RowError(
        "riferimento_ripetuto",
        `La prenotazione ${c.input.riferimento} compare più volte in questa chiamata: inviarla una volta sola.`,
      ),
    );
    return false;
  });
  if (unique.length === 0) return summary(input, outcomes);

  await rows(
    tx,
    q.lockReservationKeys(
      unique.map(() => autore),
      unique.map((c) => c.input.riferimento),
    ),
  );
  const existing = new Map(
    (
      await rows(
        tx,
        q.lockReservationsByReference(
          chiave,
          utente,
          unique.map((c) => c.input.riferimento),
        ),
      )
    ).map((r) => [r.riferimento, r]),
  );
  const notClosed = unique.filter((c) => {
    const known = existing.get(c.input.riferimento);
    if (!known || (known.stato === "attiva" && known.tiene)) return true;
    const why = known.stato === "attiva" || known.stato === "scaduta" ? "scaduta" : known.stato;
    refuse(
      c.indice,
      new RowError(
        "prenotazione_chiusa",
        `Prenotazione ${c.input.riferimento} (prenotazioni[${c.indice}]): è ${why} e non si modifica più; un riferimento chiuso non si riusa: usarne uno nuovo.`,
      ),
    );
    return false;
  });
  const open = await withoutPastExpiry(tx, notClosed, refuse);
  const updated = open.flatMap((c) => existing.get(c.input.riferimento)?.id ?? []);
  // A call that only creates has no rows to read: a round trip less.
  const currentRows = updated.length === 0 ? [] : await rows(tx, q.rowsOfReservations(updated));

  // Level 5: the balances of every (article, warehouse) held, before what is free is read.
  const pairs = new Map<string, { articolo: number; magazzino: number }>();
  for (const c of open)
    for (const r of c.rows) pairs.set(pairKey(r.articolo, c.magazzino), { articolo: r.articolo, magazzino: c.magazzino });
  const sorted = [...pairs.values()].sort(balanceLockOrder);
  // The pairs an update may leave (a row moved to another warehouse or article, or left out): what it frees there
  // covers the others' `scoperta`, so they are locked and recomputed too, not read as free.
  const left = new Map<string, { articolo: number; magazzino: number }>();
  for (const r of currentRows)
    if (!pairs.has(pairKey(r.articolo_id, r.magazzino_id)) && new Decimal(r.prenotata).gt(0))
      left.set(pairKey(r.articolo_id, r.magazzino_id), { articolo: r.articolo_id, magazzino: r.magazzino_id });
  const lockedPairs = [...sorted, ...left.values()].sort(balanceLockOrder);
  const locked = await lockBalancesForHolds(tx, lockedPairs);
  const pool = new Map<string, Decimal>();
  if (sorted.length > 0) {
    for (const f of await rows(
      tx,
      q.freeToHold(
        sorted.map((p) => p.articolo),
        sorted.map((p) => p.magazzino),
        opts.oggi,
      ),
    ))
      if (locked.has(`${f.articolo_id}:${f.magazzino_id}`)) pool.set(pairKey(f.articolo_id, f.magazzino_id), new Decimal(f.libera));
  }
  const named = open.flatMap((c) =>
    c.rows.filter((r) => r.lotto !== null).map((r) => ({ articolo: r.articolo, magazzino: c.magazzino, lotto: r.lotto! })),
  );
  const lots = new Map<string, q.LotRow>();
  const lotPool = new Map<number, Decimal>();
  if (named.length > 0) {
    const found = await rows(
      tx,
      q.lotsToHold(
        named.map((n) => n.articolo),
        named.map((n) => n.magazzino),
        named.map((n) => n.lotto),
        opts.oggi,
      ),
    );
    for (const l of found) {
      lots.set(lotKey(l.articolo_id, l.magazzino_id, l.codice), l);
      lotPool.set(l.id, new Decimal(l.fuori_quarantena).minus(l.tenuta));
    }
  }

  const creations: { c: Checked; held: Decimal[]; lotIds: (number | null)[] }[] = [];
  const changes: { c: Checked; id: number; held: Decimal[]; lotIds: (number | null)[]; remove: number[] }[] = [];
  const untouched: { c: Checked; id: number }[] = [];
  for (const c of open) {
    const known = existing.get(c.input.riferimento);
    const mine = known ? currentRows.filter((r) => r.prenotazione_id === known.id) : [];
    try {
      // This reservation's own holds count as free to itself.
      const own = new Map<string, Decimal>();
      const ownLot = new Map<number, Decimal>();
      for (const r of mine) {
        const k = pairKey(r.articolo_id, r.magazzino_id);
        own.set(k, (own.get(k) ?? ZERO).plus(r.prenotata));
        if (r.lotto_id !== null) ownLot.set(r.lotto_id, (ownLot.get(r.lotto_id) ?? ZERO).plus(r.prenotata));
      }
      const taken = new Map<string, Decimal>();
      const takenLot = new Map<number, Decimal>();
      const held: Decimal[] = [];
      const lotIds: (number | null)[] = [];
      const short: { numero_riga: number; richiesta: string; disponibile: string }[] = [];
      const stored = new Map(mine.map((r) => [r.numero_riga, r]));
      // What unloads naming the reservation already shipped of a row stays with it: the row holds what is left of
      // its quantity, cannot drop below what is shipped and picked, and is not left out (docs/api.md section 14).
      const wanted = new Set(c.rows.map((w) => w.numero_riga));
      const gone = mine.find((r) => !wanted.has(r.numero_riga) && new Decimal(r.spedita).gt(0));
      if (gone) {
        throw new RowError(
          "quantita_sotto_prelevata",
          `Prenotazione ${c.input.riferimento} (prenotazioni[${c.indice}]): la riga ${gone.numero_riga} ha già ${canonical(gone.spedita)} spediti: inviarla ancora, con una quantità di almeno ${canonical(gone.spedita)}.`,
        );
      }
      for (const w of c.rows) {
        const before = stored.get(w.numero_riga);
        const shipped = before ? new Decimal(before.spedita) : ZERO;
        if (before && shipped.gt(0) && (before.articolo_id !== w.articolo || w.richiesta.lt(shipped.plus(before.prelevata)))) {
          throw new RowError(
            "quantita_sotto_prelevata",
            `${w.at}: ha già ${canonical(shipped)} spediti${before.articolo_id === w.articolo ? "" : " di un altro articolo"}: la quantità non scende sotto ${canonical(shipped.plus(before.prelevata))} e l'articolo non cambia.`,
          );
        }
        const target = w.richiesta.minus(shipped);
        const k = pairKey(w.articolo, c.magazzino);
        let free = clamp((pool.get(k) ?? ZERO).plus(own.get(k) ?? ZERO).minus(taken.get(k) ?? ZERO));
        let lotId: number | null = null;
        if (w.lotto !== null) {
          const lot = lots.get(lotKey(w.articolo, c.magazzino, w.lotto));
          if (!lot || lot.scaduto || !new Decimal(lot.fuori_quarantena).gt(0)) {
            throw new RowError(
              "lotto_non_disponibile",
              `${w.at}: il lotto '${w.lotto}' di '${w.codice}' ${lot?.scaduto ? "è scaduto" : "non ha merce in questo magazzino fuori dalle ubicazioni di quarantena"}: non si prenota.`,
            );
          }
          lotId = lot.id;
          const lotFree = clamp((lotPool.get(lot.id) ?? ZERO).plus(ownLot.get(lot.id) ?? ZERO).minus(takenLot.get(lot.id) ?? ZERO));
          free = Decimal.min(free, lotFree);
        }
        // A cut releases at once (docs/api.md section 14): what the same row already holds of the same stock stays
        // held up to its new quantity, even where facts left less free than is held (its `scoperta` is recomputed).
        if (before && before.articolo_id === w.articolo && before.magazzino_id === c.magazzino && before.lotto_id === lotId)
          free = Decimal.max(free, Decimal.min(before.prenotata, target));
        const take = Decimal.min(free, target);
        if (take.lt(target)) short.push({ numero_riga: w.numero_riga, richiesta: canonical(w.richiesta), disponibile: canonical(free) });
        taken.set(k, (taken.get(k) ?? ZERO).plus(take));
        if (lotId !== null) takenLot.set(lotId, (takenLot.get(lotId) ?? ZERO).plus(take));
        held.push(take);
        lotIds.push(lotId);
      }
      if (short.length > 0 && !c.input.parziale) {
        refuse(
          c.indice,
          new RowError(
            "disponibilita_insufficiente",
            `Prenotazione ${c.input.riferimento} (prenotazioni[${c.indice}]): disponibilità insufficiente per ${short
              .map((s) => `la riga ${s.numero_riga} (richiesti ${s.richiesta}, disponibili ${s.disponibile})`)
              .join(", ")}; con "parziale": true ogni riga tiene quanto è disponibile.`,
          ),
          short,
        );
        continue;
      }
      // Taken: the pool moves by what this reservation holds now less what it held.
      for (const [k, d] of taken) pool.set(k, (pool.get(k) ?? ZERO).minus(d));
      for (const [k, d] of own) pool.set(k, (pool.get(k) ?? ZERO).plus(d));
      for (const [l, d] of takenLot) lotPool.set(l, (lotPool.get(l) ?? ZERO).minus(d));
      for (const [l, d] of ownLot) lotPool.set(l, (lotPool.get(l) ?? ZERO).plus(d));
      if (!known) {
        creations.push({ c, held, lotIds });
        continue;
      }
      if (sameAsStored(c, known, mine, held, lotIds)) untouched.push({ c, id: known.id });
      else {
        const wanted = new Set(c.rows.map((w) => w.numero_riga));
        changes.push({ c, id: known.id, held, lotIds, remove: mine.filter((r) => !wanted.has(r.numero_riga)).map((r) => r.id) });
      }
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      refuse(c.indice, e);
    }
  }

  const created =
    creations.length === 0
      ? []
      : await rows(
          tx,
          q.insertReservations({
            chiave,
            utente,
            riferimento: creations.map((x) => x.c.input.riferimento),
            magazzino: creations.map((x) => x.c.magazzino),
            cliente: creations.map((x) => x.c.cliente),
            scade_il: creations.map((x) => x.c.scade_il),
            parziale: creations.map((x) => x.c.input.parziale ?? false),
          }),
        );
  const idOf = new Map(created.map((r) => [r.riferimento, r.id]));
  const remove = changes.flatMap((x) => x.remove);
  if (remove.length > 0) await execute(tx, q.deleteRows(remove));
  const writes = [...creations.map((x) => ({ id: idOf.get(x.c.input.riferimento)!, ...x })), ...changes.map((x) => ({ ...x }))].flatMap(
    (x) => x.c.rows.map((w, i) => ({ id: x.id, magazzino: x.c.magazzino, w, held: x.held[i]!, lotto: x.lotIds[i]! })),
  );
  if (writes.length > 0) {
    await execute(
      tx,
      q.upsertRows({
        prenotazione: writes.map((x) => x.id),
        numero_riga: writes.map((x) => x.w.numero_riga),
        articolo: writes.map((x) => x.w.articolo),
        magazzino: writes.map((x) => x.magazzino),
        lotto: writes.map((x) => x.lotto),
        richiesta: writes.map((x) => canonical(x.w.richiesta)),
        prenotata: writes.map((x) => canonical(x.held)),
        prezzo: writes.map((x) => x.w.prezzo),
      }),
    );
  }
  if (changes.length > 0) {
    const byId = [...changes].sort((a, b) => a.id - b.id);
    await execute(
      tx,
      q.updateReservations({
        id: byId.map((x) => x.id),
        magazzino: byId.map((x) => x.c.magazzino),
        cliente: byId.map((x) => x.c.cliente),
        scade_il: byId.map((x) => x.c.scade_il),
        parziale: byId.map((x) => x.c.input.parziale ?? false),
        // A reservation that holds nothing at all after a partial update stays attiva: the caller may send it again.
        stato: byId.map(() => "attiva"),
      }),
    );
  }
  // Once its rows and headers are written: what this call now holds changes what is uncovered in the pairs it locked (a cut covers others again).
  if (writes.length > 0 || remove.length > 0)
    await uncoverPairs(
      tx,
      lockedPairs.filter((p) => locked.has(`${p.articolo}:${p.magazzino}`)),
      opts.oggi,
    );
  const heldRows = (c: Checked, held: Decimal[]) =>
    c.rows.map((w, i) => ({ numero_riga: w.numero_riga, richiesta: canonical(w.richiesta), prenotata: canonical(held[i]!) }));
  const done = (c: Checked, id: number, esito: "creata" | "aggiornata" | "invariata", righe: Outcome["righe"]) =>
    outcomes.set(c.indice, { indice: c.indice, riferimento: c.input.riferimento, id, esito, righe });
  for (const x of creations) done(x.c, idOf.get(x.c.input.riferimento)!, "creata", heldRows(x.c, x.held));
  for (const x of changes) done(x.c, x.id, "aggiornata", heldRows(x.c, x.held));
  for (const x of untouched) {
    const mine = currentRows.filter((r) => r.prenotazione_id === x.id);
    done(
      x.c,
      x.id,
      "invariata",
      mine.map((r) => ({ numero_riga: r.numero_riga, richiesta: canonical(r.richiesta), prenotata: canonical(r.prenotata) })),
    );
  }
  return summary(input, outcomes);
}

/**
 * A `scade_il` at or before the database's `now()` is refused (`campo_non_valido`, `errore.campo` `scade_il`):
 * such a reservation would hold nothing from its first instant. Compared with this transaction's `now()`, the
 * clock the holds are read by (banchina_prenotazione_tiene), so what is accepted here holds in this transaction.
 * One round trip, only when a reservation of the call has a `scade_il`.
 */
async function withoutPastExpiry(tx: Tx, open: Checked[], refuse: (indice: number, e: RowError) => unknown): Promise<Checked[]> {
  if (!open.some((c) => c.scade_il !== null)) return open;
  const now = Number((await rows(tx, q.transactionNowMs()))[0]!.ora_ms);
  return open.filter((c) => {
    if (c.scade_il === null || new Date(c.scade_il).getTime() > now) return true;
    refuse(
      c.indice,
      new RowError(
        "campo_non_valido",
        `Prenotazione ${c.input.riferimento} (prenotazioni[${c.indice}]): la scadenza 'scade_il' ${c.input.scade_il} è già passata: indicare un istante futuro, o nessuna scadenza.`,
        "scade_il",
      ),
    );
    return false;
  });
}

function summary(input: UpsertReservationsInput, outcomes: Map<number, Outcome>): UpsertReservationsOutput {
  const righe = input.prenotazioni.map((_, i) => outcomes.get(i)!);
  const count = (esito: Outcome["esito"]) => righe.filter((r) => r.esito === esito).length;
  return { create: count("creata"), aggiornate: count("aggiornata"), invariate: count("invariata"), rifiutate: count("rifiutata"), righe };
}
