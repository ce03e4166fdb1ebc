import { progress, seconds } from "../util";
import { concurrentSides, noErrors, SIDE_SLICES, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, type Article, floorMovement, movementPlan, plainArticles } from "./movement-requests";

const CLIENTS = 8;

/**
 * One-row movements by 8 clients, alternating loads and unloads of one piece on `articles`: the runner of
 * `post-movimenti` and of `post-movimenti-prenotate` (reservations.ts), which differ by their articles.
 */
export async function movementSides(
  ctx: Ctx,
  o: { id: string; name: string; label: string; articles: Article[]; seed: number; details?: Record<string, unknown> },
): Promise<ScenarioResult> {
  progress(`${o.name}: durata ${seconds(ctx.durationMs)} per lato`);
  const plans = Array.from({ length: CLIENTS }, (_, c) => movementPlan(o.articles, o.seed + c));
  const {
    api,
    floor: fl,
    apiSide,
    floorSide,
    rssMb,
  } = await concurrentSides(ctx, {
    name: o.name,
    label: o.label,
    clients: CLIENTS,
    warmUpMs: 1_000,
    slices: SIDE_SLICES,
    floor: async (conn, c, i) => (await floorMovement(ctx, conn, plans[c]!(i)), true),
    api: async (c, i) => (await apiMovement(ctx, plans[c]!(i)), true),
  });
  return {
    id: o.id,
    name: o.name,
    unit: "richieste/s",
    api: apiSide,
    floor: floorSide,
    rssMb,
    check: noErrors(api, fl),
    details: { client: CLIENTS, ...o.details },
  };
}

export async function writeMovements(ctx: Ctx): Promise<ScenarioResult> {
  return movementSides(ctx, {
    id: "post-movimenti",
    name: `POST /movimenti, 1 riga, ${CLIENTS} client`,
    label: "movimenti",
    articles: await plainArticles(ctx, 5_000),
    seed: 100,
  });
}
