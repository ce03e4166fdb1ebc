import type { Db, ModelDb, Tx } from "../../db/client";
import { first, rows } from "../../db/sql";
import { formatDateOrNull, formatInstant } from "../../lib/dates";
import { canonical } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { writeMovements } from "../movements/movements.service";
import * as q from "./putaway.queries";
import type { IdentifyOutput, StoreInput, WorklistOutput, WorklistRow } from "./putaway.schemas";
import { parseScan } from "../../../lib/barcode";
import { resolveArticles } from "../catalogue/catalogue.service";
import { palletsWaiting } from "./pallet-putaway.service";

/** The warehouses whose goods are put away (those that manage locations), for the handheld's choice. */
export async function putawayWarehouses(db: Db) {
  return { magazzini: await rows(db, q.putawayWarehouses()) };
}

/**
 * The proposed destination (docs/api.md section 11): the article's preferred location, else a location already
 * holding the same lot, else one holding the article. The queries never offer a quarantine or receiving
 * location, nor an inactive one.
 */
export function proposal(r: Pick<q.WorklistRecord, "preferita" | "con_lotto" | "con_articolo">): WorklistRow["proposta"] {
  if (r.preferita) return { ubicazione: r.preferita, motivo: "preferita" };
  if (r.con_lotto) return { ubicazione: r.con_lotto, motivo: "lotto" };
  if (r.con_articolo) return { ubicazione: r.con_articolo, motivo: "articolo" };
  return null;
}

async function assertManagesLocations(db: Db, magazzino: number): Promise<void> {
  const w = await first(db, q.warehouseManagesLocations(magazzino));
  if (!w) throw new DomainError("magazzino_non_trovato", `Il magazzino ${magazzino} non esiste.`, { campo: "magazzino" });
  if (!w.gestione_ubicazioni)
    throw new DomainError("richiesta_non_valida", "Questo magazzino non gestisce le ubicazioni: non c'è nulla da stoccare.", {
      campo: "magazzino",
    });
}

/** The putaway screen's copy of a warehouse (putaway.schemas.ts `worklistOutput`). */
export async function worklist(db: Db, magazzino: number, timeZone: string): Promise<WorklistOutput> {
  await assertManagesLocations(db, magazzino);
  const [records, locations, colli] = await Promise.all([
    rows(db, q.worklist(magazzino)),
    rows(db, q.locationsOf(magazzino)),
    palletsWaiting(db, magazzino),
  ]);
  const articles = [...new Set(records.map((r) => r.articolo_id))];
  const labels = articles.length === 0 ? [] : await rows(db, q.labelsOf(magazzino, articles));
  return {
    magazzino,
    letto_il: formatInstant(timeZone, Date.now()),
    righe: records.map((r) => ({
      id: r.id,
      articolo: { id: r.articolo_id, codice: r.codice },
      descrizione: r.descrizione,
      ean: r.ean,
      unita: r.unita,
      confezione: canonical(r.confezione),
      lotto: r.lotto,
      scadenza: formatDateOrNull(r.scadenza),
      ubicazione: r.ubicazione,
      quantita: canonical(r.quantita),
      arrivato_il: formatInstant(timeZone, r.caricata_il),
      proposta: proposal(r),
    })),
    ubicazioni: locations,
    etichette: labels,
    colli,
  };
}

/**
 * One putaway: one transfer inside the warehouse, from the receiving location to the destination, with
 * origin `stoccaggio`. The ledger checks everything (the locations, what the origin holds, under its
 * locks); a refused row is this call's refusal, so that the Idempotency-Key stores it and a retry hears it.
 */
export async function storeGoods(tx: Tx, actor: Actor, input: StoreInput, timeZone: string) {
  if (input.da === input.a)
    throw new DomainError("richiesta_non_valida", `La merce è già in ${input.a}: leggere l'etichetta di un'altra ubicazione.`, {
      campo: "a",
    });
  const out = await writeMovements(
    tx,
    actor,
    {
      natura: "trasferimento",
      magazzino: input.magazzino,
      magazzino_origine: input.magazzino,
      causale: "Stoccaggio",
      righe: [
        {
          codice: input.codice,
          quantita: input.quantita,
          ...(input.lotto === null ? {} : { lotto: input.lotto }),
          ubicazione_origine: input.da,
          ubicazione: input.a,
        },
      ],
    },
    { timeZone, origine: "stoccaggio" },
  );
  const row = out.righe[0];
  if (row?.esito !== "scritta" || row.movimento === undefined || row.movimento_origine === undefined || out.operazione === null) {
    const e = row?.errore ?? { codice: "richiesta_non_valida", messaggio: "Stoccaggio non scritto." };
    throw new DomainError(e.codice as never, e.messaggio);
  }
  return { operazione: out.operazione, movimento: row.movimento, movimento_origine: row.movimento_origine };
}

/**
 * A code read while counting (the inventory screen): a location of the warehouse first (its code never
 * reads as goods: docs/api.md section 11), else an article as every screen reads one (code, EAN, GS1 with its
 * lot, an `R<riga>` label), with its pack size: one scan counts `confezione` units.
 */
export async function identifyCode(db: ModelDb, magazzino: number, codice: string): Promise<IdentifyOutput> {
  const location = await first(db, q.locationByCode(magazzino, codice));
  if (location) return { tipo: "ubicazione", ubicazione: location };
  const scan = parseScan(codice);
  let articleId: number | undefined;
  if (scan.kind === "etichetta") articleId = (await first(db, q.articleOfOrderRow(scan.riga)))?.articolo_id;
  else if (scan.kind === "illeggibile") return { tipo: "sconosciuto", motivo: scan.motivo };
  else articleId = (await resolveArticles(db, { letture: [codice] })).articoli[0]?.articolo?.id;
  const article = articleId === undefined ? undefined : await first(db, q.articleForCount(articleId));
  if (!article) return { tipo: "sconosciuto", motivo: `«${codice}» non è un articolo né un'ubicazione di questo magazzino.` };
  return {
    tipo: "articolo",
    articolo: { ...article, confezione: canonical(article.confezione) },
    lotto: scan.kind === "gs1" ? scan.lotto : null,
  };
}
