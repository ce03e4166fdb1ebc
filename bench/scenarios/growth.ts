import type pg from "pg";
import type { Query } from "../../src/server/db/sql";
import * as availabilityQueries from "../../src/server/modules/availability/availability.queries";
import * as eventsQueries from "../../src/server/modules/events/events.queries";
import { withinMovementBudget } from "../../src/server/modules/events/events.service";
import { SYNC_TABLES } from "../../src/server/db/advisory-locks";
import { cutPage } from "../../src/server/modules/lists/lists";
import * as listsQueries from "../../src/server/modules/lists/lists.queries";
import * as movementsQueries from "../../src/server/modules/movements/movements.queries";
import * as floor from "../floor/lists";
import { sampleMemory } from "../server";
import { fmtInt, progress } from "../util";
import { load, logSides, loadSide, metered, withClient, type Ctx, type ScenarioResult } from "./harness";
import { scanScenario } from "./scan";

/**
 * The scenarios of the growth mode ("cost flat as the work grows"): the reads that could grow with
 * the history the ledger keeps. Compared between two scales by bench/growth.ts.
 * - scan-disponibilita-passato: GET /disponibilita?a= a year ago, a full scan in pages of 500 (its page p50 is
 *   the cost of one 500-row page);
 * - testa-movimenti, testa-eventi: the change feed and the events feed read from 0, as a new integrator
 *   starts: the first 20 pages of 100 from dopo=0, over and over for the phase's length (a full scan of
 *   5 million movements in pages of 100 would take the bench's hour; scan-movimenti measures that at scale 1).
 */

type Page = { rows: ({ id: number } & Record<string, unknown>)[]; altri: boolean; cursore: number };

/** A service statement as a named prepared statement, as bench/floor/statements.ts runs them. */
function run<Row>(c: pg.ClientBase, name: string, statement: Query<Row>) {
  return c.query<Row & pg.QueryResultRow>({ name, text: statement.sql.text, values: statement.sql.values });
}

async function bound(c: pg.ClientBase, table: keyof typeof SYNC_TABLES): Promise<number> {
  const t = SYNC_TABLES[table];
  const r = await run(c, `bound_${t.tag}`, listsQueries.syncBound(t.tag, t.seq));
  return Number(r.rows[0]?.b ?? 0);
}

/** The business day a year before today, in the bench's time zone. */
async function aYearAgo(ctx: Ctx): Promise<string> {
  const r = await ctx.pool.query<{ d: string }>(`SELECT to_char((now() AT TIME ZONE $1)::date - 365, 'YYYY-MM-DD') AS d`, [ctx.timeZone]);
  return r.rows[0]!.d;
}

export async function scanAvailabilityAsOf(ctx: Ctx): Promise<ScenarioResult> {
  const a = await aYearAgo(ctx);
  // availability.service.ts listAvailability with `a`: bound, then the page (the floor of scan-disponibilita, with a).
  const floorPage = async (c: pg.ClientBase, dopo: number, limite: number): Promise<Page> => {
    const b = await bound(c, "articoli");
    const r = await run(c, "availability_page_as_of", availabilityQueries.availabilityPage(dopo, limite + 1, null, { a }));
    return cutPage(
      r.rows.filter((x): x is typeof x & { id: number } => x.id !== null),
      limite,
      b,
      dopo,
    );
  };
  return scanScenario(ctx, {
    id: "scan-disponibilita-passato",
    name: `GET /disponibilita?a=${a}&limite=500, scansione completa`,
    path: `/disponibilita?a=${a}`,
    limite: 500,
    floorPage,
    key: "disponibilita",
    count: "SELECT count(*) AS n FROM articoli WHERE NOT ha_varianti",
    warm: "SELECT count(*), max(codice) FROM articoli; SELECT count(*), sum(quantita) FROM movimenti_mensili; SELECT count(*), sum(ordinata) FROM righe_ordine",
  });
}

const HEAD_PAGES = 20;
const HEAD_LIMIT = 100;

/**
 * The first HEAD_PAGES pages of a feed from dopo=0, again and again for the phase's length, one client:
 * the figure is pages/s, the latencies per page. Both sides must read the same ids.
 */
async function feedHead(
  ctx: Ctx,
  o: {
    id: string;
    name: string;
    path: string;
    key: string;
    idOf: (row: Record<string, unknown>) => number;
    floorPage: (c: pg.ClientBase, dopo: number) => Promise<Page>;
    /** The movements a row of a page carries (either side's): the head's work, when its pages differ in size. */
    movementsOf?: (row: Page["rows"][number]) => number;
  },
): Promise<ScenarioResult> {
  const headOf = async (page: (dopo: number) => Promise<Page>) => {
    let dopo = 0;
    let idSum = 0;
    for (let i = 0; i < HEAD_PAGES; i++) {
      const p = await page(dopo);
      for (const r of p.rows) idSum += r.id;
      if (!p.altri) break;
      dopo = p.cursore;
    }
    return idSum;
  };
  const apiPage = async (dopo: number): Promise<Page> => {
    const r = await ctx.api.request("GET", `${o.path}?limite=${HEAD_LIMIT}&dopo=${dopo}`);
    if (r.status !== 200) throw new Error(`GET ${o.path}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
    const body = JSON.parse(r.body) as Record<string, unknown> & { altri: boolean; cursore: number };
    // The rows as answered (for movementsOf), with their cursor's id.
    return {
      rows: (body[o.key] as Record<string, unknown>[]).map((x) => Object.assign(x, { id: o.idOf(x) })),
      altri: body.altri,
      cursore: body.cursore,
    };
  };
  const sums = { api: 0, floor: 0 };
  // One page per op; the head starts again from 0 after HEAD_PAGES pages (or at the feed's end).
  const carried = { api: 0, floor: 0 };
  const pageLoad = (label: string, side: keyof typeof carried, page: (dopo: number) => Promise<Page>) => {
    let dopo = 0;
    let n = 0;
    return load(label, 1, ctx.durationMs, async () => {
      const p = await page(dopo);
      if (o.movementsOf) for (const r of p.rows) carried[side] += o.movementsOf(r);
      n++;
      dopo = p.altri && n % HEAD_PAGES !== 0 ? p.cursore : 0;
      return true;
    });
  };
  const [fl, flCpu] = await withClient(ctx.pool, async (c) => {
    sums.floor = await headOf((dopo) => o.floorPage(c, dopo)); // warm-up, and the check
    return metered(ctx, () => pageLoad(`${o.name} pavimento`, "floor", (dopo) => o.floorPage(c, dopo)));
  });
  sums.api = await headOf(apiPage);
  const mem = sampleMemory(ctx.serverPid);
  const [api, apiCpu] = await metered(ctx, () => pageLoad(`${o.name} API`, "api", apiPage));
  const rssMb = mem.stop();
  const apiSide = loadSide(api, apiCpu);
  const flSide = loadSide(fl, flCpu);
  logSides(o.name, "pagine/s", apiSide, flSide);
  const same = sums.api === sums.floor && sums.api > 0;
  return {
    id: o.id,
    name: o.name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok: same,
      text: same ? `stesse prime ${HEAD_PAGES} pagine` : `pagine diverse: somme degli id API ${sums.api}, pavimento ${sums.floor}`,
    },
    // With movementsOf: the movements the measured pages carried, per page, on each side.
    details: {
      pagine: HEAD_PAGES,
      limite: HEAD_LIMIT,
      ...(o.movementsOf ? { movimentiPerPagina: { api: carried.api / api.ok, pavimento: carried.floor / fl.ok } } : {}),
    },
  };
}

export function movementsFromZero(ctx: Ctx): Promise<ScenarioResult> {
  return feedHead(ctx, {
    id: "testa-movimenti",
    name: `GET /movimenti da dopo=0, prime ${HEAD_PAGES} pagine da ${HEAD_LIMIT}`,
    path: "/movimenti",
    key: "movimenti",
    idOf: (r) => r.id as number,
    floorPage: (c, dopo) => floor.movementsPage(c, dopo, HEAD_LIMIT),
  });
}

export async function eventsFromZero(ctx: Ctx): Promise<ScenarioResult> {
  const n = Number((await ctx.pool.query<{ n: string }>("SELECT count(*) AS n FROM eventi")).rows[0]!.n);
  progress(`eventi nel registro: ${fmtInt(n)}`);
  return feedHead(ctx, {
    id: "testa-eventi",
    name: `GET /eventi da dopo=0, prime ${HEAD_PAGES} pagine da ${HEAD_LIMIT}`,
    path: "/eventi",
    key: "eventi",
    idOf: (r) => r.sequenza as number,
    // events.service.ts listEvents: bound, the page (cut to its movement budget), then its movements (what rendering the stock events
    // reads; the delivery notes and sales documents of the page are left out: a few rows by id).
    floorPage: async (c, dopo) => {
      const b = await bound(c, "eventi");
      const r = await run(c, "events_page", eventsQueries.eventsPage(dopo, null, HEAD_LIMIT + 1));
      const page = withinMovementBudget(cutPage(r.rows, HEAD_LIMIT, b, dopo));
      const ids = page.rows.flatMap((e) => (e.dati.movimenti as number[] | undefined) ?? []);
      if (ids.length) {
        const m = movementsQueries.movementsByIds(ids); // its text depends on the page (LIMIT): not a named statement
        await c.query(m.sql.text, m.sql.values);
      }
      return page;
    },
    movementsOf: (r) => ((r as { dati?: { movimenti?: unknown[] } }).dati?.movimenti ?? []).length,
  });
}
