import type pg from "pg";
import * as availabilityQueries from "../../src/server/modules/availability/availability.queries";
import * as locationStockQueries from "../../src/server/modules/locations/locations-stock.queries";
import { SYNC_TABLES } from "../../src/server/db/advisory-locks";
import { cutPage } from "../../src/server/modules/lists/lists";
import * as listsQueries from "../../src/server/modules/lists/lists.queries";
import * as movementsQueries from "../../src/server/modules/movements/movements.queries";
import { run } from "./statements";

// The floor of the paged lists (bench/floor/statements.ts says what the floor is).

/** lists.ts syncBound: the highest id a page may show. */
export async function syncBound(c: pg.ClientBase, tag: number, seq: string): Promise<number> {
  const r = await run(c, `bound_${tag}`, listsQueries.syncBound(tag, seq));
  return Number(r.rows[0]?.b ?? 0);
}

/** A page as the scenarios read it. */
type Page = { rows: { id: number }[]; altri: boolean; cursore: number };

/** GET /movimenti page (movements.service.ts listMovements, no filters): bound, then the page. */
export async function movementsPage(c: pg.ClientBase, dopo: number, limite: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.movimenti.tag, SYNC_TABLES.movimenti.seq);
  const r = await run(c, "movements_page", movementsQueries.movementsPage(dopo, {}, limite + 1));
  return cutPage(r.rows, limite, bound, dopo);
}

/** GET /disponibilita page (availability.service.ts listAvailability, no filters): bound, then the page. */
export async function availabilityPage(c: pg.ClientBase, dopo: number, limite: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.articoli.tag, SYNC_TABLES.articoli.seq);
  const r = await run(c, "availability_page", availabilityQueries.availabilityPage(dopo, limite + 1, null, {}));
  return cutPage(
    r.rows.filter((x): x is typeof x & { id: number } => x.id !== null),
    limite,
    bound,
    dopo,
  );
}

/** GET /disponibilita?articolo= (listAvailability with one article): bound, then that article's row. */
export async function availabilityOf(c: pg.ClientBase, articolo: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.articoli.tag, SYNC_TABLES.articoli.seq);
  const r = await run(c, "availability_of", availabilityQueries.availabilityPage(0, 501, null, { articolo }));
  return cutPage(
    r.rows.filter((x): x is typeof x & { id: number } => x.id !== null),
    500,
    bound,
    0,
  );
}

/** GET /giacenze-ubicazioni page (locations-stock.service.ts listLocationStock, no filters): bound, then the page. */
export async function locationStockPage(c: pg.ClientBase, magazzino: number, dopo: number, limite: number): Promise<Page> {
  const bound = await syncBound(c, SYNC_TABLES.giacenze_ubicazioni.tag, SYNC_TABLES.giacenze_ubicazioni.seq);
  const r = await run(c, "location_stock_page", locationStockQueries.locationStockPage(magazzino, dopo, {}, limite + 1));
  return cutPage(
    r.rows.filter((x): x is typeof x & { id: number } => x.id !== null),
    limite,
    bound,
    dopo,
  );
}
