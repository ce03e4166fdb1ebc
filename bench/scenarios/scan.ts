import type * as floor from "../floor/lists";
import { sampleMemory } from "../server";
import { fmtInt, progress, sleep } from "../util";
import { CpuTally, logSides, metered, side, ticker, withClient, type Ctx, type ScenarioResult } from "./harness";

/** A full scan of a paged list, page after page from the start, the same way through the floor and the API. */

interface ScanOutcome {
  rows: number;
  idSum: number;
  pages: number;
  latencies: number[];
  ms: number;
}

type PageRead = (dopo: number) => Promise<{ ids: number[]; altri: boolean; cursore: number; ms: number }>;

/** Pages read by one side before the other takes its turn (scanned in blocks: see pairedScans). */
const BLOCK_PAGES = 20;

/**
 * Both full scans at once, in alternating blocks of BLOCK_PAGES pages (floor, API, API, floor, floor, API…:
 * each side reads first in every other block), each side's time, latencies and CPU its own. Scanned one after
 * the other, the two sides met different conditions: the first movement scan's floor read far faster than
 * the ceiling's floor later in the same run, with PostgreSQL's time per page to match; a ratio over the
 * floor followed which scan came first. In blocks, whatever reading a range of
 * rows first costs (pages not yet cached, hint bits of fresh rows) falls on the two sides alike.
 */
async function pairedScans(ctx: Ctx, label: string, floorPage: PageRead, apiPage: PageRead) {
  const reader = (page: PageRead) => ({
    page,
    out: { rows: 0, idSum: 0, pages: 0, latencies: [], ms: 0 } as ScanOutcome,
    cpu: new CpuTally(),
    dopo: 0,
    done: false,
  });
  const fl = reader(floorPage);
  const api = reader(apiPage);
  const stop = ticker(label, () => `pavimento ${fmtInt(fl.out.rows)} righe, API ${fmtInt(api.out.rows)} righe`);
  try {
    for (let block = 0; !fl.done || !api.done; block++) {
      for (const s of block % 2 === 0 ? [fl, api] : [api, fl]) {
        if (s.done) continue;
        const from = ctx.cpu.snapshot();
        const t0 = performance.now();
        for (let n = 0; n < BLOCK_PAGES && !s.done; n++) {
          const p = await s.page(s.dopo);
          s.out.pages++;
          s.out.latencies.push(p.ms);
          s.out.rows += p.ids.length;
          for (const id of p.ids) s.out.idSum += id;
          if (!p.altri) s.done = true;
          else if (p.cursore === s.dopo) await sleep(1); // rows above the sync bound: come back for them
          s.dopo = p.cursore;
        }
        s.out.ms += performance.now() - t0;
        s.cpu.add(ctx.cpu.since(from));
      }
    }
  } finally {
    stop();
  }
  return { floor: { ...fl.out, cpu: fl.cpu.use(fl.out.pages) }, api: { ...api.out, cpu: api.cpu.use(api.out.pages) } };
}

export async function scanScenario(
  ctx: Ctx,
  o: {
    id: string;
    name: string;
    path: string;
    limite: number;
    floorPage: typeof floor.movementsPage;
    key: string;
    count: string;
    warm: string;
  },
): Promise<ScenarioResult> {
  // A path may carry a required filter of its own (?magazzino=N).
  const sep = o.path.includes("?") ? "&" : "?";
  const expected = await withClient(ctx.pool, async (c) => Number((await c.query<{ n: string }>(o.count)).rows[0]!.n));
  progress(`${o.name}: ${fmtInt(expected)} righe attese, pagine da ${o.limite}`);
  // Warm-up for both, not measured: the tables read once (into the OS cache), 200 pages each way.
  await withClient(ctx.pool, async (c) => {
    await c.query(o.warm);
    let dopo = 0;
    for (let i = 0; i < 200; i++) {
      const p = await o.floorPage(c, dopo, o.limite);
      if (!p.altri) break;
      dopo = p.cursore;
    }
  });
  {
    let dopo = 0;
    for (let i = 0; i < 200; i++) {
      const r = await ctx.api.json<{ altri: boolean; cursore: number }>("GET", `${o.path}${sep}limite=${o.limite}&dopo=${dopo}`);
      if (!r.data.altri) break;
      dopo = r.data.cursore;
    }
  }
  const mem = sampleMemory(ctx.serverPid);
  // metered only for --pg-stats: the statements of both sides together (each side's CPU is counted by block).
  const [{ floor: fl, api }] = await metered(ctx, () =>
    withClient(ctx.pool, (c) =>
      pairedScans(
        ctx,
        o.name,
        async (dopo) => {
          const t = performance.now();
          const p = await o.floorPage(c, dopo, o.limite);
          return { ids: p.rows.map((r) => r.id), altri: p.altri, cursore: p.cursore, ms: performance.now() - t };
        },
        async (dopo) => {
          const t = performance.now();
          const r = await ctx.api.request("GET", `${o.path}${sep}limite=${o.limite}&dopo=${dopo}`);
          if (r.status !== 200) throw new Error(`GET ${o.path}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
          const body = JSON.parse(r.body) as Record<string, unknown> & { altri: boolean; cursore: number };
          const rows = body[o.key] as ({ id: number } | { articolo: { id: number } })[];
          return {
            ids: rows.map((x) => ("id" in x ? x.id : x.articolo.id)),
            altri: body.altri,
            cursore: body.cursore,
            ms: performance.now() - t,
          };
        },
      ),
    ),
  );
  const rssMb = mem.stop();
  const apiSide = { ...side(api.latencies, api.rows, api.ms, api.rows / (api.ms / 1000)), cpu: api.cpu };
  const flSide = { ...side(fl.latencies, fl.rows, fl.ms, fl.rows / (fl.ms / 1000)), cpu: fl.cpu };
  logSides(o.name, "righe/s", apiSide, flSide);
  const same = api.rows === fl.rows && api.idSum === fl.idSum && api.rows === expected;
  return {
    id: o.id,
    name: o.name,
    unit: "righe/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok: same,
      text: same ? `stesse ${fmtInt(api.rows)} righe` : `righe diverse: API ${api.rows}, pavimento ${fl.rows}, attese ${expected}`,
    },
    details: { pagine: api.pages, righe: api.rows },
  };
}
