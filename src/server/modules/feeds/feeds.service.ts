import type { Db } from "../../db/client";
import { first, type Query } from "../../db/sql";
import { canonical, canonicalOrNull, Decimal, type DecimalLike } from "../../lib/decimal";
import { DomainError } from "../../lib/errors";
import { eanCandidates, parseScan } from "../../../lib/barcode";
import { assertPeriod, boundAndRows, type SyncGate } from "../lists/lists";
import type { Window } from "../lists/window";
import type {
  ArticleRowOutput,
  FeedInput,
  ListArticlesInput,
  ListLocationsInput,
  ListPurchaseOrdersInput,
  LocationRowOutput,
  ListSuppliersInput,
  ListWarehousesInput,
  PurchaseOrderRowOutput,
  SupplierRowOutput,
  WarehouseRowOutput,
} from "./feeds.schemas";
import { MAX_FEED_PAGE } from "./feeds.schemas";
import * as q from "./feeds.queries";

/**
 * GET /articoli, /fornitori, /magazzini, /ordini-acquisto (docs/api.md section 9).
 *
 * Without `modificati_dopo` a list pages by id exactly as section 4: rows after `dopo`, up to the id
 * gate's bound. With it, the list is a change feed: the rows whose `versione` is above it, in version
 * order, each in its current state, up to the version gate's bound (see the migration
 * 20261123000000_versioni for why nothing at or below that bound can still appear). In both cases the
 * bound is read in its own statement before the page, so the page's snapshot is taken after it.
 */

/** A row read by a list (versione: bigint) or kept in an event (versione: a JSON number). */
type Versioned<R extends { versione: bigint }> = Omit<R, "versione"> & { versione: bigint | number };

type Page<R> = { rows: R[]; altri: boolean; cursore?: number; cursore_versione?: number };

/**
 * One page of a list by id or of its change feed: refuses `dopo` with `modificati_dopo`, reads the
 * right gate's bound, runs the statement (given its window and LIMIT) and cuts what lies above the bound.
 * Exported for the other synced lists that gain a feed (GET /clienti: `idGate` "clienti").
 */
export async function feedPage<Row extends { id: number; versione: bigint }>(
  db: Db,
  input: FeedInput,
  idGate: SyncGate,
  statement: (w: Window, take: number) => Query<Row>,
): Promise<Page<Row>> {
  if (input.dopo !== undefined && input.modificati_dopo !== undefined) {
    throw new DomainError(
      "filtro_non_valido",
      "I parametri 'dopo' e 'modificati_dopo' non si combinano: 'dopo' pagina per id, 'modificati_dopo' legge il feed delle modifiche per versione.",
      { campo: "modificati_dopo" },
    );
  }
  const limite = input.limite ?? MAX_FEED_PAGE;
  const byVersion = input.modificati_dopo !== undefined;
  const after = (byVersion ? input.modificati_dopo : input.dopo) ?? 0;
  const [bound, fetched] = await boundAndRows(
    db,
    byVersion ? "versioni" : idGate,
    statement({ by: byVersion ? "versione" : "id", after }, limite + 1),
    { campo: byVersion ? "modificati_dopo" : "dopo", valore: after },
  );
  const key = (r: Row) => (byVersion ? Number(r.versione) : r.id);
  // Rows above the bound are not shown yet: `altri` stays true and the client comes back for them.
  const shown = fetched.filter((r) => key(r) <= bound).slice(0, limite);
  const altri = fetched.length > shown.length;
  const lastRow = shown.at(-1);
  const last = lastRow === undefined ? after : key(lastRow);
  return byVersion ? { rows: shown, altri, cursore_versione: last } : { rows: shown, altri, cursore: last };
}

/** The page's `altri` and its cursor (`cursore` by id, `cursore_versione` in the feed), for the response. */
export const cursors = <R>(p: Page<R>) => ({
  altri: p.altri,
  ...(p.cursore === undefined ? {} : { cursore: p.cursore }),
  ...(p.cursore_versione === undefined ? {} : { cursore_versione: p.cursore_versione }),
});

/** An article as the contract shows it (GET /articoli, and articolo.modificato). */
export const toArticleOutput = (
  r: Versioned<Omit<q.ArticleRow, "costo" | "confezione" | "ubicazioni_preferite">> & {
    costo: DecimalLike | null;
    confezione?: string;
    ubicazioni_preferite?: q.ArticleRow["ubicazioni_preferite"];
  },
): ArticleRowOutput => ({
  id: r.id,
  codice: r.codice,
  descrizione: r.descrizione,
  ean: r.ean,
  gestione_lotti: r.gestione_lotti,
  costo: canonicalOrNull(r.costo),
  unita: r.unita,
  modello: r.modello,
  attivo: r.attivo,
  versione: Number(r.versione),
  // Events recorded before locations (migration 20261128000000_ubicazioni) carry neither.
  confezione: r.confezione ?? "1",
  ubicazioni_preferite: r.ubicazioni_preferite ?? [],
});

/**
 * The EANs a search text names on the screens: an EAN, or the GTIN of a GS1 code, read as receiving reads a
 * scan (parseScan), in every form the catalogue may store it; none when the text is neither.
 */
function eansSearched(cerca: string | undefined): string[] {
  if (cerca === undefined) return [];
  const scan = parseScan(cerca);
  return scan.kind === "ean" || scan.kind === "gs1" ? eanCandidates(scan.gtin) : [];
}

/**
 * GET /articoli, and with `byEan` the articles screen's look-up (tRPC only): its text also finds an article
 * by its EAN (a variant by its own), typed in part, scanned whole or inside a GS1 code.
 */
export async function listArticles(db: Db, input: ListArticlesInput, opts: { byEan?: boolean } = {}) {
  const eans = opts.byEan ? eansSearched(input.cerca) : undefined;
  const p = await feedPage(db, input, "articoli", (w, take) => q.articlesPage(w, take, input, eans));
  return {
    articoli: p.rows.map(toArticleOutput),
    ...cursors(p),
  };
}

/** A supplier or a warehouse as the contract shows it (and fornitore.modificato). */
export const toNamedOutput = (r: Versioned<q.NamedRow>): SupplierRowOutput => ({
  id: r.id,
  codice: r.codice,
  nome: r.nome,
  attivo: r.attivo,
  versione: Number(r.versione),
});

export async function listSuppliers(db: Db, input: ListSuppliersInput) {
  const p = await feedPage(db, input, "fornitori", (w, take) => q.suppliersPage(w, take, input));
  return { fornitori: p.rows.map(toNamedOutput), ...cursors(p) };
}

/** A warehouse as the contract shows it (GET /magazzini, and magazzino.modificato). */
export const toWarehouseOutput = (r: Versioned<q.NamedRow> & Partial<Omit<q.WarehouseRow, keyof q.NamedRow>>): WarehouseRowOutput => ({
  ...toNamedOutput(r),
  // Events recorded before locations (migration 20261128000000_ubicazioni) carry neither.
  gestione_ubicazioni: r.gestione_ubicazioni ?? false,
  ubicazione_ricevimento: r.ubicazione_ricevimento ?? null,
});

export async function listWarehouses(db: Db, input: ListWarehousesInput) {
  const p = await feedPage(db, input, "magazzini", (w, take) => q.warehousesPage(w, take, input));
  return { magazzini: p.rows.map(toWarehouseOutput), ...cursors(p) };
}

/** A location as the contract shows it (GET /ubicazioni, and ubicazione.modificato). */
export const toLocationOutput = (r: Versioned<q.LocationRow>): LocationRowOutput => ({
  id: r.id,
  magazzino: r.magazzino,
  codice: r.codice,
  descrizione: r.descrizione,
  tipo: r.tipo,
  attiva: r.attiva,
  versione: Number(r.versione),
});

/** GET /ubicazioni (docs/api.md section 11): an unknown warehouse is named before any cursor is looked at. */
export async function listLocations(db: Db, input: ListLocationsInput) {
  if (input.magazzino !== undefined && !(await first(db, q.warehouseExists(input.magazzino)))) {
    throw new DomainError("magazzino_non_trovato", `Il magazzino ${input.magazzino} non esiste.`, { campo: "magazzino" });
  }
  const p = await feedPage(db, input, "ubicazioni", (w, take) => q.locationsPage(w, take, input));
  return { ubicazioni: p.rows.map(toLocationOutput), ...cursors(p) };
}

/** An order as the contract shows it (GET /ordini-acquisto, and ordine_acquisto.modificato). */
export const toPurchaseOrderOutput = (o: Versioned<q.PurchaseOrderRow>): PurchaseOrderRowOutput => ({
  id: o.id,
  numero: o.numero,
  fornitore: { id: o.fornitore_id, codice: o.fornitore_codice, nome: o.fornitore_nome },
  data: o.data,
  magazzino: o.magazzino,
  stato: o.stato,
  versione: Number(o.versione),
  righe: o.righe.map((r) => ({
    numero_riga: r.numero_riga,
    riga: r.riga,
    etichetta: `R${r.riga}`,
    articolo: { id: r.articolo_id, codice: r.articolo_codice },
    ordinata: canonical(r.ordinata),
    arrivata: canonical(r.arrivata),
    chiusa: canonical(r.chiusa),
    // Events recorded before the rows carried it (migration 20261127100000_eventi_magazzini) have none.
    motivo_chiusura: r.motivo_chiusura ?? null,
    residua: canonical(new Decimal(r.ordinata).minus(r.arrivata).minus(r.chiusa)),
    prezzo: canonical(r.prezzo),
  })),
});

export async function listPurchaseOrders(db: Db, input: ListPurchaseOrdersInput) {
  assertPeriod(input.da, input.a);
  const p = await feedPage(db, input, "ordini_acquisto", (w, take) => q.purchaseOrdersPage(w, take, input));
  return {
    ordini: p.rows.map(toPurchaseOrderOutput),
    ...cursors(p),
  };
}
