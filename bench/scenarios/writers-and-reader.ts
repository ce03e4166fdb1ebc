import * as floor from "../floor/lists";
import { sampleMemory } from "../server";
import { fmtInt, progress, seconds, sleep } from "../util";
import { floorClients, load, loadSide, logSides, metered, withClient, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";

interface Completeness {
  written: number;
  seen: number;
  missing: number;
  duplicated: number;
  extra: number;
  pages: number;
  ok: boolean;
}

/** Pages from `start` until, after the writers stopped, a page says there is nothing more. */
async function syncReader(
  start: number,
  page: (dopo: number) => Promise<{ ids: number[]; altri: boolean; cursore: number }>,
  writersDone: () => boolean,
): Promise<{ seen: Map<number, number>; pages: number }> {
  const seen = new Map<number, number>();
  let dopo = start;
  let pages = 0;
  for (;;) {
    const done = writersDone();
    const p = await page(dopo);
    pages++;
    for (const id of p.ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    dopo = p.cursore;
    if (!p.altri) {
      if (done) break;
      await sleep(2);
    }
  }
  return { seen, pages };
}

function completeness(written: number[], seen: Map<number, number>, pages: number): Completeness {
  const w = new Set(written);
  let missing = 0;
  let duplicated = 0;
  let extra = 0;
  for (const id of w) if ((seen.get(id) ?? 0) === 0) missing++;
  for (const [id, n] of seen) {
    if (n > 1) duplicated++;
    if (!w.has(id)) extra++;
  }
  return {
    written: w.size,
    seen: seen.size,
    missing,
    duplicated,
    extra,
    pages,
    ok: missing === 0 && duplicated === 0 && extra === 0 && w.size === written.length,
  };
}

export async function writersAndReader(ctx: Ctx): Promise<ScenarioResult> {
  const name = "8 scrittori POST /movimenti + 1 lettore GET /movimenti";
  const clients = 8;
  const articles = await plainArticles(ctx, 5_000);
  const plans = Array.from({ length: clients }, (_, c) => movementPlan(articles, 900 + c));
  const lastId = () =>
    withClient(ctx.pool, async (c) => Number((await c.query<{ n: string }>("SELECT last_value AS n FROM movimenti_id_seq")).rows[0]!.n));
  progress(`${name}: durata ${seconds(ctx.durationMs)} per lato`);

  // Floor: writers and reader on their own connections.
  const floorRun = await floorClients(ctx.pool, clients + 1, async (cs) => {
    const start = await lastId();
    const written: number[] = [];
    let done = false;
    const readerP = syncReader(
      start,
      (dopo) => floor.movementsPage(cs[clients]!, dopo, 100).then((p) => ({ ids: p.rows.map((r) => r.id), ...p })),
      () => done,
    );
    const [w, cpu] = await metered(ctx, () =>
      load("scrittori+lettore pavimento", clients, ctx.durationMs, async (c, i) => {
        written.push(await floorMovement(ctx, cs[c]!, plans[c]!(i)));
        return true;
      }).finally(() => (done = true)),
    );
    const r = await readerP;
    return { w, cpu, c: completeness(written, r.seen, r.pages) };
  });

  const start = await lastId();
  const written: number[] = [];
  let done = false;
  const mem = sampleMemory(ctx.serverPid);
  const readerP = syncReader(
    start,
    async (dopo) => {
      const r = await ctx.api.json<{ movimenti: { id: number }[]; altri: boolean; cursore: number }>(
        "GET",
        `/movimenti?limite=100&dopo=${dopo}`,
      );
      return { ids: r.data.movimenti.map((m) => m.id), altri: r.data.altri, cursore: r.data.cursore };
    },
    () => done,
  );
  const [w, wCpu] = await metered(ctx, () =>
    load("scrittori+lettore API", clients, ctx.durationMs, async (c, i) => {
      written.push(await apiMovement(ctx, plans[c]!(i)));
      return true;
    }).finally(() => (done = true)),
  );
  const reader = await readerP;
  const rssMb = mem.stop();
  const apiC = completeness(written, reader.seen, reader.pages);
  const apiSide = loadSide(w, wCpu);
  const flSide = loadSide(floorRun.w, floorRun.cpu);
  logSides(name, "richieste/s", apiSide, flSide);
  const describe = (c: Completeness) =>
    c.ok
      ? `${fmtInt(c.written)}/${fmtInt(c.written)} visti una volta`
      : `mancanti ${c.missing}, doppi ${c.duplicated}, estranei ${c.extra} su ${c.written}`;
  const ok = apiC.ok && floorRun.c.ok && w.errors === 0;
  progress(`${name}: lettore API ${describe(apiC)} (${apiC.pages} pagine); lettore pavimento ${describe(floorRun.c)}`);
  return {
    id: "scrittori-lettore",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: `${ok ? "PASS" : "FAIL"}: lettore API ${describe(apiC)}; pavimento ${describe(floorRun.c)}${w.errors ? `; errori API ${w.errors}: ${w.firstError}` : ""}`,
    },
    details: { completezzaApi: apiC, completezzaPavimento: floorRun.c },
  };
}
