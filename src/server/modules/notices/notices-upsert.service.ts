import type { Tx } from "../../db/client";
import { execute, first, rows, rowsInOrder } from "../../db/sql";
import { canonical, quantityFromNumber } from "../../lib/decimal";
import { DomainError, RowError } from "../../lib/errors";
import { malformedRow } from "../../lib/rows";
import { isValidSscc } from "../../../lib/sscc";
import {
  MAX_NOTICE_ROWS_PER_CALL,
  MAX_NOTICES_PER_CALL,
  type NoticeInput,
  noticeStrict,
  type UpsertNoticesInput,
  type UpsertNoticesOutput,
} from "./notices.schemas";
import * as q from "./notices.queries";

/**
 * POST /avvisi-spedizione (docs/api.md section 12): creates a notice, or replaces one not yet received,
 * identified by (supplier, number). Each notice is all or nothing and its outcome is its own, as orders'
 * are (a malformed notice is `campo_non_valido`, the others are written).
 *
 * - Every SSCC is 18 digits with its GS1 check digit (`sscc_non_valido`) and belongs to one notice
 *   (`sscc_in_uso`: another notice's, or twice in one call).
 * - Each row names a row of an open order (not `evaso`) by the order's number and the row's `numero_riga`:
 *   unknown, or of a closed order, `riga_non_trovata`; an order of another supplier only,
 *   `fornitore_diverso`; an order of another warehouse, `magazzino_diverso`; a lot-handled article without
 *   `lotto`, `lotto_obbligatorio`; lot or expiry on an article without lots, `lotto_non_previsto`.
 * - A notice with a pallet that has been received, even if that receipt was cancelled since, is not
 *   replaced (`avviso_in_ricevimento`): its receipts and differences point at its pallets, history that
 *   a replacement would have to delete. (Decision: the contract says "until one of its pallets has been
 *   received"; a cancelled receipt still was one.)
 * - The same notice sent again is `invariato` and writes nothing.
 *
 * Locks: the notices' keys (advisory, sorted), the notices' rows (lock order: notices first, before
 * anything a pallet's receipt takes), then the order rows named, FOR SHARE.
 */

type Outcome = UpsertNoticesOutput["righe"][number];

interface Checked {
  indice: number;
  input: NoticeInput;
  fornitore: number;
  magazzino: number;
  colli: { sscc: string; righe: { riga: number; quantita: string; lotto: string | null; scadenza: string | null }[] }[];
}

const key = (fornitore: number, numero: string) => `${fornitore}/${numero}`;

export async function upsertNotices(tx: Tx, input: UpsertNoticesInput): Promise<UpsertNoticesOutput> {
  const rowsOf = (raw: unknown) =>
    Array.isArray((raw as { colli?: unknown }).colli)
      ? ((raw as { colli: unknown[] }).colli as { righe?: unknown }[]).reduce(
          (n, c) => n + (Array.isArray(c?.righe) ? c.righe.length : 0),
          0,
        )
      : 0;
  const totalRows = input.avvisi.reduce((n, a) => n + rowsOf(a), 0);
  if (input.avvisi.length > MAX_NOTICES_PER_CALL || totalRows > MAX_NOTICE_ROWS_PER_CALL) {
    throw new DomainError(
      "troppe_righe",
      `Al massimo ${MAX_NOTICES_PER_CALL} avvisi e ${MAX_NOTICE_ROWS_PER_CALL} righe in tutto per chiamata: ricevuti ${input.avvisi.length} avvisi con ${totalRows} righe. Dividere l'invio in più chiamate.`,
      { campo: "avvisi" },
    );
  }
  const outcomes = new Map<number, Outcome>();
  const numeroOf = (indice: number) => {
    const n = (input.avvisi[indice] as { numero?: unknown }).numero;
    return typeof n === "string" ? n.trim() : null;
  };
  const refuse = (indice: number, e: RowError) =>
    outcomes.set(indice, { indice, numero: numeroOf(indice), esito: "rifiutato", errore: e.toBody() });

  const wellFormed: { indice: number; a: NoticeInput }[] = [];
  for (const [indice, raw] of input.avvisi.entries()) {
    const parsed = noticeStrict.safeParse(raw);
    if (parsed.success) wellFormed.push({ indice, a: parsed.data });
    else refuse(indice, malformedRow(`Avviso ${numeroOf(indice) ?? "senza numero"} (avvisi[${indice}])`, parsed.error.issues));
  }

  const distinct = (values: string[]) => [...new Set(values)];
  const fornitori = new Map(
    (await rows(tx, q.suppliersByCode(distinct(wellFormed.map((w) => w.a.fornitore))))).map((f) => [f.codice, f.id]),
  );
  const magazzini = new Map(
    (await rows(tx, q.warehousesByCode(distinct(wellFormed.map((w) => w.a.magazzino))))).map((m) => [m.codice, m.id]),
  );
  const known = wellFormed.filter(({ indice, a }) => {
    if (!fornitori.has(a.fornitore))
      refuse(indice, new RowError("fornitore_non_trovato", `Fornitore '${a.fornitore}' sconosciuto.`, "fornitore"));
    else if (!magazzini.has(a.magazzino))
      refuse(indice, new RowError("magazzino_non_trovato", `Magazzino '${a.magazzino}' sconosciuto.`, "magazzino"));
    else return true;
    return false;
  });

  // The same notice twice in one call: which one should win is not ours to guess.
  const occurrences = new Map<string, number>();
  for (const { a } of known)
    occurrences.set(key(fornitori.get(a.fornitore)!, a.numero), (occurrences.get(key(fornitori.get(a.fornitore)!, a.numero)) ?? 0) + 1);
  const unique = known.filter(({ indice, a }) => {
    if (occurrences.get(key(fornitori.get(a.fornitore)!, a.numero)) === 1) return true;
    refuse(
      indice,
      new RowError(
        "avviso_ripetuto",
        `L'avviso ${a.numero} del fornitore ${a.fornitore} compare più volte in questa chiamata: inviarlo una volta sola.`,
      ),
    );
    return false;
  });
  if (unique.length === 0) return summary(input, outcomes);

  const ids = unique.map(({ a }) => fornitori.get(a.fornitore)!);
  const numeri = unique.map(({ a }) => a.numero);
  await execute(tx, q.lockNoticeKeys(ids, numeri));
  const stored = new Map((await rows(tx, q.lockNotices(ids, numeri))).map((n) => [key(n.fornitore_id, n.numero), n]));
  const named = unique.flatMap(({ a }) => a.colli.flatMap((c) => c.righe.map((r) => ({ ordine: r.ordine, numero_riga: r.numero_riga }))));
  const ordini = named.map((n) => n.ordine);
  const righe = named.map((n) => n.numero_riga);
  const [, orderRows] = await rowsInOrder(tx, q.orderRowsByNumber(ordini, righe, true), q.orderRowsByNumber(ordini, righe, false));
  const ssccs = unique.flatMap(({ a }) => a.colli.map((c) => c.sscc));
  const used = new Map((await rows(tx, q.palletsBySscc(distinct(ssccs)))).map((p) => [p.sscc, p]));
  const ssccCount = new Map<string, number>();
  for (const s of ssccs) ssccCount.set(s, (ssccCount.get(s) ?? 0) + 1);

  for (const { indice, a } of unique) {
    const fornitore = fornitori.get(a.fornitore)!;
    const magazzino = magazzini.get(a.magazzino)!;
    const existing = stored.get(key(fornitore, a.numero));
    try {
      const c = checkNotice(indice, a, fornitore, magazzino, orderRows, used, ssccCount, existing?.id ?? null);
      if (existing && existing.ricevuti > 0) {
        throw new RowError(
          "avviso_in_ricevimento",
          `L'avviso ${a.numero} ha già colli ricevuti: non si sostituisce più. Annunciare la merce mancante con un nuovo avviso.`,
        );
      }
      outcomes.set(indice, await writeNotice(tx, c, existing));
    } catch (e) {
      if (!(e instanceof RowError)) throw e;
      refuse(indice, e);
    }
  }
  return summary(input, outcomes);
}

function summary(input: UpsertNoticesInput, outcomes: Map<number, Outcome>): UpsertNoticesOutput {
  const righe = input.avvisi.map((_, i) => outcomes.get(i)!);
  const count = (esito: Outcome["esito"]) => righe.filter((r) => r.esito === esito).length;
  return { creati: count("creato"), aggiornati: count("aggiornato"), invariati: count("invariato"), rifiutati: count("rifiutato"), righe };
}

function checkNotice(
  indice: number,
  a: NoticeInput,
  fornitore: number,
  magazzino: number,
  orderRows: q.NamedOrderRow[],
  used: Map<string, { avviso_id: number; numero: string; fornitore_codice: string }>,
  ssccCount: Map<string, number>,
  own: number | null,
): Checked {
  const colli: Checked["colli"] = [];
  for (const [k, collo] of a.colli.entries()) {
    const at = `colli[${k}].sscc`;
    if (!isValidSscc(collo.sscc))
      throw new RowError("sscc_non_valido", `SSCC '${collo.sscc}' non valido: 18 cifre con la cifra di controllo GS1.`, at);
    const other = used.get(collo.sscc);
    if (other && other.avviso_id !== own)
      throw new RowError(
        "sscc_in_uso",
        `L'SSCC ${collo.sscc} è già nell'avviso ${other.numero} del fornitore ${other.fornitore_codice}.`,
        at,
      );
    if ((ssccCount.get(collo.sscc) ?? 0) > 1)
      throw new RowError("sscc_in_uso", `L'SSCC ${collo.sscc} compare più volte in questa chiamata: un collo sta in un solo avviso.`, at);
    const righe: Checked["colli"][number]["righe"] = [];
    for (const [j, r] of collo.righe.entries()) {
      const field = `colli[${k}].righe[${j}]`;
      const candidates = orderRows.filter((o) => o.numero === r.ordine && o.numero_riga === r.numero_riga);
      const row = candidates.find((o) => o.fornitore_id === fornitore);
      if (!row) {
        const others = candidates.map((o) => o.fornitore_codice);
        if (others.length > 0)
          throw new RowError(
            "fornitore_diverso",
            `L'ordine ${r.ordine} è del fornitore ${others.join(", ")}, non di ${a.fornitore} (${field}).`,
            `${field}.ordine`,
          );
        throw new RowError("riga_non_trovata", `L'ordine ${r.ordine} non ha la riga ${r.numero_riga} (${field}).`, `${field}.numero_riga`);
      }
      if (row.stato === "evaso")
        throw new RowError("riga_non_trovata", `L'ordine ${r.ordine} è evaso: non attende più merce (${field}).`, `${field}.ordine`);
      if (row.magazzino_id !== magazzino)
        throw new RowError(
          "magazzino_diverso",
          `L'ordine ${r.ordine} è atteso nel magazzino ${row.magazzino_codice}, l'avviso nel magazzino ${a.magazzino} (${field}).`,
          `${field}.ordine`,
        );
      const quantita = quantityFromNumber(r.quantita);
      if (quantita === null)
        throw new RowError(
          "quantita_non_valida",
          `Quantità ${r.quantita} non valida: maggiore di zero, al massimo 3 decimali (${field}).`,
          `${field}.quantita`,
        );
      if (row.gestione_lotti && r.lotto === undefined)
        throw new RowError(
          "lotto_obbligatorio",
          `L'articolo ${row.codice} è gestito a lotti: indicare il lotto (${field}).`,
          `${field}.lotto`,
        );
      if (!row.gestione_lotti && (r.lotto !== undefined || r.scadenza !== undefined))
        throw new RowError(
          "lotto_non_previsto",
          `L'articolo ${row.codice} non è gestito a lotti: togliere lotto e scadenza (${field}).`,
          `${field}.lotto`,
        );
      righe.push({ riga: row.id, quantita: canonical(quantita), lotto: r.lotto ?? null, scadenza: r.scadenza ?? null });
    }
    colli.push({ sscc: collo.sscc, righe });
  }
  return { indice, input: a, fornitore, magazzino, colli };
}

/** The content the upsert compares with what is stored (notices.queries.ts lockNotices), as one text. */
const contentOf = (c: Checked) => JSON.stringify({ magazzino: c.magazzino, data_prevista: c.input.data_prevista ?? null, colli: c.colli });

async function writeNotice(tx: Tx, c: Checked, existing: q.StoredNotice | undefined): Promise<Outcome> {
  const numero = c.input.numero;
  if (existing && canonicalJson(existing.contenuto) === contentOf(c))
    return { indice: c.indice, numero, id: existing.id, esito: "invariato" };
  let id: number;
  if (existing) {
    id = existing.id;
    await execute(tx, q.deletePallets(id));
  } else {
    id = (await first(
      tx,
      q.insertNotice({ numero, fornitore: c.fornitore, magazzino: c.magazzino, data_prevista: c.input.data_prevista ?? null }),
    ))!.id;
  }
  const pallets = new Map(
    (
      await rows(
        tx,
        q.insertPallets(
          id,
          c.colli.map((k) => k.sscc),
        ),
      )
    ).map((p) => [p.sscc, p.id]),
  );
  const flat = c.colli.flatMap((k) => k.righe.map((r, posizione) => ({ collo: pallets.get(k.sscc)!, posizione, ...r })));
  await execute(
    tx,
    q.insertPalletRows({
      collo: flat.map((r) => r.collo),
      posizione: flat.map((r) => r.posizione),
      riga: flat.map((r) => r.riga),
      quantita: flat.map((r) => r.quantita),
      lotto: flat.map((r) => r.lotto),
      scadenza: flat.map((r) => r.scadenza),
    }),
  );
  // The header last: its UPDATE takes the version, so the event at commit carries the new pallets.
  if (existing) await execute(tx, q.updateNotice(id, c.magazzino, c.input.data_prevista ?? null));
  return { indice: c.indice, numero, id, esito: existing ? "aggiornato" : "creato" };
}

/** The stored content re-serialised with JSON.stringify, so both sides compare in one spelling. */
const canonicalJson = (text: string) => JSON.stringify(JSON.parse(text));
