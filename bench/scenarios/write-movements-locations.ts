import { businessDate } from "../../src/server/lib/dates";
import * as floor from "../floor/movements";
import { progress, rng, seconds } from "../util";
import { concurrentSides, noErrors, SIDE_SLICES, withClient, type Ctx, type ScenarioResult } from "./harness";
import { plainArticles, type Article } from "./movement-requests";

/**
 * POST /movimenti, one row, in a warehouse that manages locations, beside `post-movimenti` (the
 * same request in a warehouse without): each client loads one unit into a location, then unloads it from
 * there, so the guarded unload always finds it. The warehouse (`BENCH-UBI`, 200 locations) is created on
 * first use with no stock, so switching it on moves nothing.
 */
const LOCATIONS = 200;

async function locationWarehouse(ctx: Ctx): Promise<{ magazzino: number; ubicazioni: { id: number; codice: string }[] }> {
  return withClient(ctx.pool, async (c) => {
    const w = await c.query<{ id: number }>(
      `INSERT INTO magazzini (codice, nome) VALUES ('BENCH-UBI', 'Magazzino a ubicazioni (bench)')
       ON CONFLICT (codice) DO UPDATE SET nome = EXCLUDED.nome RETURNING id`,
    );
    const magazzino = w.rows[0]!.id;
    await c.query(
      `INSERT INTO ubicazioni (magazzino_id, codice, tipo)
       SELECT $1, 'U-' || lpad(n::text, 3, '0'), CASE WHEN n = 1 THEN 'ricevimento' ELSE 'stoccaggio' END FROM generate_series(1, $2) n
       ON CONFLICT (magazzino_id, codice) DO NOTHING`,
      [magazzino, LOCATIONS],
    );
    await c.query(
      `UPDATE magazzini SET gestione_ubicazioni = true, ubicazione_ricevimento_id = (SELECT id FROM ubicazioni WHERE magazzino_id = $1 AND codice = 'U-001')
        WHERE id = $1 AND NOT gestione_ubicazioni AND NOT EXISTS (SELECT 1 FROM giacenze WHERE magazzino_id = $1 AND quantita <> 0)`,
      [magazzino],
    );
    const u = await c.query<{ id: number; codice: string }>("SELECT id, codice FROM ubicazioni WHERE magazzino_id = $1 ORDER BY id", [
      magazzino,
    ]);
    return { magazzino, ubicazioni: u.rows };
  });
}

/** Request i: a load (even i) into a random location, then (odd i) the unload of the same unit from it. */
function plan(articles: Article[], ubicazioni: { id: number; codice: string }[], seed: number) {
  const rand = rng(seed);
  let last: { article: Article; ubicazione: { id: number; codice: string } } | undefined;
  return (i: number) => {
    if (i % 2 === 0 || !last) {
      last = { article: articles[Math.floor(rand() * articles.length)]!, ubicazione: ubicazioni[Math.floor(rand() * ubicazioni.length)]! };
      return { ...last, natura: "carico" as const };
    }
    return { ...last, natura: "scarico" as const };
  };
}

export async function writeMovementsInLocations(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /movimenti, 1 riga, magazzino a ubicazioni, 8 client";
  const clients = 8;
  const articles = await plainArticles(ctx, 5_000);
  const { magazzino, ubicazioni } = await locationWarehouse(ctx);
  progress(`${name}: durata ${seconds(ctx.durationMs)} per lato`);
  // One plan per client and side: a client's unload follows its own load.
  const plans = (offset: number) => Array.from({ length: clients }, (_, c) => plan(articles, ubicazioni, offset + c));
  const floorPlans = plans(200);
  const apiPlans = plans(300);
  const {
    api,
    floor: fl,
    apiSide,
    floorSide: flSide,
    rssMb,
  } = await concurrentSides(ctx, {
    name,
    label: "movimenti",
    clients,
    warmUpMs: 1_000,
    slices: SIDE_SLICES,
    floor: async (conn, c, i) => {
      const m = floorPlans[c]!(i);
      await floor.writeMovementInLocation(conn, {
        natura: m.natura,
        magazzino,
        ubicazione: m.ubicazione.id,
        articolo: m.article.id,
        quantita: "1",
        prezzo: "1.5",
        data: businessDate(ctx.timeZone),
        chiave: ctx.key.id,
      });
      return true;
    },
    api: async (c, i) => {
      const m = apiPlans[c]!(i);
      const r = await ctx.api.json<{ scritte: number }>("POST", "/movimenti", {
        natura: m.natura,
        magazzino,
        righe: [{ codice: m.article.codice, quantita: 1, prezzo: "1.5", ubicazione: m.ubicazione.codice }],
      });
      if (r.data.scritte !== 1) throw new Error(`POST /movimenti: riga non scritta: ${JSON.stringify(r.data).slice(0, 300)}`);
      return true;
    },
  });
  return {
    id: "post-movimenti-ubicazioni",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: noErrors(api, fl),
    details: { client: clients, ubicazioni: LOCATIONS },
  };
}
