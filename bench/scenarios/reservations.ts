import { businessDate } from "../../src/server/lib/dates";
import * as floor from "../floor/reservations";
import { rng } from "../util";
import { concurrentSides, noErrors, SIDE_SLICES, withClient, type Ctx, type ScenarioResult } from "./harness";
import { plainArticles, type Article } from "./movement-requests";
import { movementSides } from "./write-movements";

/**
 * `post-prenotazioni`: POST /prenotazioni, one new reservation of 3 rows without lot (`parziale`), 8 clients,
 * against its floor (bench/floor/reservations.ts, the service's statements through `pg`); under `tetto-node` the
 * same against bench/bare-server.ts, which runs those statements behind plain node:http. And
 * `post-movimenti-prenotate`: the POST /movimenti scenario on articles that something holds in every warehouse,
 * so that every unload pays the check of the holds (ledger/stock-holds.ts) and computes what is free; its CPU
 * per request beside post-movimenti's, run before any reservation exists, is what the check costs.
 */

const CLIENTS = 8;
const ROWS = 3;

interface Codes {
  magazzini: string[];
  clienti: string[];
}

async function codes(ctx: Ctx): Promise<Codes> {
  return withClient(ctx.pool, async (c) => ({
    magazzini: (await c.query<{ codice: string }>("SELECT codice FROM magazzini ORDER BY id")).rows.map((r) => r.codice),
    clienti: (await c.query<{ codice: string }>("SELECT codice FROM clienti ORDER BY id LIMIT 200")).rows.map((r) => r.codice),
  }));
}

/** One reservation request: 3 distinct random articles of 1 piece each, a random warehouse and client. */
function reservationPlan(articles: Article[], k: Codes, seed: number, prefix: string) {
  const rand = rng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  return (i: number) => {
    const chosen = new Set<Article>();
    while (chosen.size < ROWS) chosen.add(pick(articles));
    return {
      riferimento: `${prefix}-${seed}-${i}`,
      magazzino: pick(k.magazzini),
      cliente: pick(k.clienti),
      righe: [...chosen].map((a) => ({ codice: a.codice, quantita: 1 })),
    };
  };
}

export async function postReservations(ctx: Ctx): Promise<ScenarioResult> {
  const name = `POST /prenotazioni, ${ROWS} righe, ${CLIENTS} client`;
  const articles = await plainArticles(ctx, 5_000);
  const k = await codes(ctx);
  // References unique across runs on one database (the service's side and the ceiling's write to the same one).
  const run = Date.now().toString(36);
  const plans = {
    api: Array.from({ length: CLIENTS }, (_, c) => reservationPlan(articles, k, 300 + c, `BA${run}`)),
    floor: Array.from({ length: CLIENTS }, (_, c) => reservationPlan(articles, k, 300 + c, `BF${run}`)),
  };
  const oggi = businessDate(ctx.timeZone);
  let held = 0;
  let rows = 0;
  const {
    api,
    floor: fl,
    apiSide,
    floorSide,
    rssMb,
  } = await concurrentSides(ctx, {
    name,
    label: "prenotazioni",
    clients: CLIENTS,
    warmUpMs: 1_000,
    slices: SIDE_SLICES,
    floor: async (conn, c, i, warmUp) => {
      const r = plans.floor[c]!(warmUp ? 1_000_000 + i : i);
      await floor.reserve(conn, { chiave: ctx.key.id, oggi, ...r });
      return true;
    },
    api: async (c, i, warmUp) => {
      const r = plans.api[c]!(warmUp ? 1_000_000 + i : i);
      const out = await ctx.api.json<{ create: number; righe: { righe?: { prenotata: string }[] }[] }>("POST", "/prenotazioni", {
        prenotazioni: [
          { ...r, parziale: true, righe: r.righe.map((x, n) => ({ numero_riga: n + 1, codice: x.codice, quantita: x.quantita })) },
        ],
      });
      if (out.data.create !== 1) throw new Error(`POST /prenotazioni: non creata: ${JSON.stringify(out.data).slice(0, 300)}`);
      for (const x of out.data.righe[0]!.righe ?? []) {
        rows++;
        if (Number(x.prenotata) > 0) held++;
      }
      return true;
    },
  });
  return {
    id: "post-prenotazioni",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: floorSide,
    rssMb,
    check: noErrors(api, fl),
    // How many of the API's rows found a piece to hold: with stock run out a row holds 0 and costs the same statements.
    details: { client: CLIENTS, righe_api: rows, righe_tenute_api: held },
  };
}

/**
 * Holds one piece of each article in every warehouse where its balance has at least 10 more (one reservation per
 * warehouse, by SQL: what is measured is the movements' check, not the reservations' write), then runs the
 * movement scenario's alternating loads and unloads of one piece on those articles: none is refused.
 */
export async function writeMovementsWithHolds(ctx: Ctx): Promise<ScenarioResult> {
  const candidates = await plainArticles(ctx, 20_000);
  const articles = await withClient(ctx.pool, async (c) => {
    const ids = candidates.map((a) => a.id);
    const rich = await c.query<{ articolo_id: number }>(
      `SELECT articolo_id FROM giacenze WHERE articolo_id = ANY($1::int[]) AND magazzino_id IN (1, 2, 3) AND quantita >= 11
        GROUP BY articolo_id HAVING count(*) = 3 LIMIT 5000`,
      [ids],
    );
    const keep = new Set(rich.rows.map((r) => r.articolo_id));
    const chosen = candidates.filter((a) => keep.has(a.id));
    const client = (await c.query<{ id: number }>("SELECT id FROM clienti ORDER BY id LIMIT 1")).rows[0]!.id;
    const run = Date.now().toString(36);
    await c.query("BEGIN");
    for (const m of [1, 2, 3]) {
      const p = await c.query<{ id: number }>(
        `INSERT INTO prenotazioni (chiave_api_id, riferimento, magazzino_id, cliente_id) VALUES ($1, $2, $3, $4) RETURNING id`,
        [ctx.key.id, `BM${run}-${m}`, m, client],
      );
      await c.query(
        `INSERT INTO righe_prenotazione (prenotazione_id, numero_riga, articolo_id, magazzino_id, richiesta, prenotata)
         SELECT $1, row_number() OVER (ORDER BY a), a, $2, 1, 1 FROM unnest($3::int[]) AS a`,
        [p.rows[0]!.id, m, chosen.map((a) => a.id)],
      );
    }
    await c.query("COMMIT");
    // Thousands of holds in one instant, as no client writes them: the statistics autovacuum would gather about them
    // within its next round, before which the uncovering's plans, cached by every connection while nothing was held,
    // read the holds as if there were none (the migration 20261203010000_scopri_senza_blocchi says why).
    await c.query("ANALYZE righe_prenotazione, prenotazioni");
    return chosen;
  });
  if (articles.length < 100) throw new Error(`articoli con giacenza in tutti i magazzini: solo ${articles.length}`);
  return movementSides(ctx, {
    id: "post-movimenti-prenotate",
    name: "POST /movimenti, 1 riga, 8 client, articoli prenotati",
    label: "movimenti prenotati",
    articles,
    seed: 400,
    details: { articoli_prenotati: articles.length },
  });
}
