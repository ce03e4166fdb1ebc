import type * as floor from "../floor";
import { sampleMemory } from "../server";
import { fmtInt, progress, sleep } from "../util";
import { logSides, metered, side, ticker, withClient, type Ctx, type ScenarioResult } from "./harness";

/** A full scan of a paged list, page after page from the start, the same way through the floor and the API. */

interface ScanOutcome {
  rows: number;
  idSum: number;
  pages: number;
  latencies: number[];
  ms: number;
}

async function scan(
  label: string,
  page: (dopo: number) => Promise<{ ids: number[]; altri: boolean; cursore: number; ms: number }>,
): Promise<ScanOutcome> {
  const out: ScanOutcome = { rows: 0, idSum: 0, pages: 0, latencies: [], ms: 0 };
  const t0 = performance.now();
  const stop = ticker(label, () => `${fmtInt(out.rows)} righe in ${fmtInt(out.pages)} pagine`);
  try {
    let dopo = 0;
    for (;;) {
      const p = await page(dopo);
      out.pages++;
      out.latencies.push(p.ms);
      out.rows += p.ids.length;
      for (const id of p.ids) out.idSum += id;
      if (!p.altri) break;
      if (p.cursore === dopo) await sleep(1); // rows above the sync bound: come back for them
      dopo = p.cursore;
    }
  } finally {
    stop();
  }
  out.ms = performance.now() - t0;
  return out;
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
  const [fl, flCpu] = await metered(ctx, () =>
    withClient(ctx.pool, (c) =>
      scan(`${o.name} pavimento`, async (dopo) => {
        const t = performance.now();
        const p = await o.floorPage(c, dopo, o.limite);
        return { ids: p.rows.map((r) => r.id), altri: p.altri, cursore: p.cursore, ms: performance.now() - t };
      }),
    ),
  );
  const mem = sampleMemory(ctx.serverPid);
  const [api, apiCpu] = await metered(ctx, () =>
    scan(`${o.name} API`, async (dopo) => {
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
    }),
  );
  const rssMb = mem.stop();
  const apiSide = { ...side(api.latencies, api.rows, api.ms, api.rows / (api.ms / 1000)), cpu: apiCpu(api.pages) };
  const flSide = { ...side(fl.latencies, fl.rows, fl.ms, fl.rows / (fl.ms / 1000)), cpu: flCpu(fl.pages) };
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
