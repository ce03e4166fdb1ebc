import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import { formatInstant } from "../../lib/dates";
import { DomainError } from "../../lib/errors";
import { boundAndRows, cutPage } from "../lists/lists";
import * as q from "./locations-stock.queries";
import {
  type ArticleLocationsOutput,
  type AwaitingPutawayOutput,
  type ListLocationStockInput,
  MAX_LOCATION_STOCK_PAGE,
  MAX_PUTAWAY_ROWS,
  type ScreenLocationsInput,
  type ScreenLocationsOutput,
  type WhereIsOutput,
} from "./locations-stock.schemas";

/**
 * Reads of stock by location (docs/api.md section 11). The rows of `giacenze_ubicazioni` are moved by the ledger
 * (ledger/location-balances.service.ts) and never deleted, so their id is a stable cursor; a warehouse that does not
 * manage locations simply has none, and answers empty lists.
 */

const warehouseNotFound = (magazzino: number) =>
  new DomainError("magazzino_non_trovato", `Il magazzino ${magazzino} non esiste.`, { campo: "magazzino" });

/**
 * GET /giacenze-ubicazioni: what each location holds above zero, paged by id with the sync bound of tag 11
 * (the table's inserts take that gate): a row inserted by a transaction still open bounds the page until
 * it commits, so a client paging with its cursor never misses a (article, location, lot) that holds stock.
 * Like /disponibilita it is a snapshot: a row that drops to zero or comes back above it is seen by the
 * next scan from the start, not by paging on from the stored cursor.
 */
export async function listLocationStock(db: Db, input: ListLocationStockInput) {
  const limite = input.limite ?? MAX_LOCATION_STOCK_PAGE;
  const dopo = input.dopo ?? 0;
  const [bound, window] = await boundAndRows(
    db,
    "giacenze_ubicazioni",
    q.locationStockPage(input.magazzino, dopo, input, limite + 1),
    { campo: "dopo", valore: dopo },
    (found) => {
      if (found[0] && !found[0].magazzino_trovato) throw warehouseNotFound(input.magazzino);
    },
  );
  const page = cutPage(
    window.filter((r): r is q.LocationStockRow & { id: number } => r.id !== null),
    limite,
    bound,
    dopo,
  );
  return { giacenze: page.rows.map(toLocationStockOutput), altri: page.altri, cursore: page.cursore };
}

/** A row of GET /giacenze-ubicazioni as the contract shows it (also the bench's bare server's). */
export const toLocationStockOutput = (r: q.LocationStockRow & { id: number }) => ({
  id: r.id,
  ubicazione: r.ubicazione,
  articolo: { id: r.articolo_id, codice: r.articolo_codice },
  lotto: r.lotto,
  scadenza: r.scadenza,
  quantita: r.quantita,
});

type WarehouseLocations = Omit<ArticleLocationsOutput, "articolo" | "magazzino">;

/** The rows of articleLocations grouped by warehouse, then location (the rows come in that order). */
function groupLocations(found: q.ArticleLocationRow[]): Map<number, WarehouseLocations> {
  const byWarehouse = new Map<number, WarehouseLocations>();
  for (const r of found) {
    if (r.magazzino_id === null) continue;
    let w = byWarehouse.get(r.magazzino_id);
    if (!w) {
      w = { giacenza: r.totale, ubicazioni: [] };
      byWarehouse.set(r.magazzino_id, w);
    }
    if (r.ubicazione === null) continue;
    let at = w.ubicazioni.at(-1);
    if (at?.ubicazione !== r.ubicazione) {
      at = {
        ubicazione: r.ubicazione,
        descrizione: r.ubicazione_descrizione,
        tipo: r.tipo,
        attiva: r.attiva,
        quantita: r.in_ubicazione,
        lotti: [],
      };
      w.ubicazioni.push(at);
    }
    if (r.lotto !== null) at.lotti.push({ lotto: r.lotto, scadenza: r.scadenza, quantita: r.quantita });
  }
  return byWarehouse;
}

const articleNotFound = (articolo: number) => new DomainError("non_trovato", `L'articolo ${articolo} non esiste.`);

/** GET /articoli/{id}/ubicazioni: where one article lies in a warehouse, location by location, with its lots. */
export async function listArticleLocations(db: Db, articolo: number, magazzino: number): Promise<ArticleLocationsOutput> {
  const found = await rows(db, q.articleLocations(articolo, magazzino));
  const head = found[0];
  if (!head || head.articolo_id === null) throw articleNotFound(articolo);
  if (head.magazzino_id === null) throw warehouseNotFound(magazzino);
  const w = groupLocations(found).get(magazzino)!;
  return { articolo: { id: articolo, codice: head.codice, descrizione: head.descrizione }, magazzino, ...w };
}

/** The screens' "Dov'è?": where one article lies in every warehouse that manages locations. */
export async function whereIsArticle(db: Db, articolo: number): Promise<WhereIsOutput> {
  const found = await rows(db, q.articleLocations(articolo, null));
  const head = found[0];
  if (!head || head.articolo_id === null) throw articleNotFound(articolo);
  const codes = new Map(found.map((r) => [r.magazzino_id, r.magazzino_codice]));
  return {
    articolo: { id: articolo, codice: head.codice, descrizione: head.descrizione },
    magazzini: [...groupLocations(found)].map(([id, w]) => ({ magazzino: { id, codice: codes.get(id) ?? "" }, ...w })),
  };
}

/** The locations screen: a warehouse's locations (by default the first that manages them) and what each holds. */
export async function listScreenLocations(db: Db, input: ScreenLocationsInput): Promise<ScreenLocationsOutput> {
  const warehouses = await rows(db, q.locationWarehouses());
  const magazzino = input.magazzino ?? warehouses[0]?.id;
  if (magazzino === undefined) return { magazzini: warehouses, magazzino: null, ubicazioni: [], altri: false, cursore: 0 };
  const limite = input.limite ?? 50;
  const dopo = input.dopo ?? 0;
  const found = await rows(db, q.screenLocations(magazzino, dopo, input, limite + 1));
  const page = found.slice(0, limite);
  return { magazzini: warehouses, magazzino, ubicazioni: page, altri: found.length > limite, cursore: page.at(-1)?.id ?? dopo };
}

/**
 * GET /da-stoccare: what lies in the warehouse's receiving locations, oldest arrival first, paged as docs/api.md
 * section 4 by each row's arrival: the movement that brought goods into it while it was empty (`movimento`,
 * kept while the row is topped up). A row put away drops out; one that empties and fills again is a new
 * arrival, with a later key. Keys are movement ids, so the page is cut at the movements' sync bound: a row
 * filled by a transaction still open shows only once it commits, above every cursor already handed out.
 * `sscc`: the oldest pallet still waiting whose goods lie in the row (a row may hold several pallets' goods
 * and goods received line by line; scanning that SSCC on /stoccaggio moves that pallet's part of it).
 */
export async function listAwaitingPutaway(
  db: Db,
  input: { magazzino: number; limite?: number | undefined; dopo?: number | undefined },
  timeZone: string,
): Promise<AwaitingPutawayOutput> {
  const limite = input.limite ?? MAX_PUTAWAY_ROWS;
  const dopo = input.dopo ?? 0;
  const [bound, found] = await boundAndRows(
    db,
    "movimenti",
    q.awaitingPutaway(input.magazzino, dopo, limite + 1),
    { campo: "dopo", valore: dopo },
    (rows) => {
      if (rows[0] && !rows[0].magazzino_trovato) throw warehouseNotFound(input.magazzino);
    },
  );
  const shown = found.flatMap((r) => (r.id !== null && r.arrivo_id !== null ? [{ ...r, id: r.arrivo_id, riga: r.id }] : []));
  const page = cutPage(shown, limite, bound, dopo);
  return {
    da_stoccare: page.rows.map((r) => ({
      id: r.riga,
      movimento: r.id,
      articolo: { id: r.articolo_id, codice: r.codice, descrizione: r.descrizione },
      lotto: r.lotto,
      scadenza: r.scadenza,
      ubicazione: r.ubicazione,
      quantita: r.quantita,
      arrivato_il: formatInstant(timeZone, r.arrivato_ms),
      sscc: r.sscc,
    })),
    altri: page.altri,
    cursore: page.cursore,
  };
}
