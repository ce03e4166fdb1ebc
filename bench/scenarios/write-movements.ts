import { progress, seconds } from "../util";
import { concurrentSides, SIDE_SLICES, type Ctx, type ScenarioResult } from "./harness";
import { apiMovement, floorMovement, movementPlan, plainArticles } from "./movement-requests";

export async function writeMovements(ctx: Ctx): Promise<ScenarioResult> {
  const name = "POST /movimenti, 1 riga, 8 client";
  const clients = 8;
  const articles = await plainArticles(ctx, 5_000);
  progress(`${name}: durata ${seconds(ctx.durationMs)} per lato`);
  const plans = Array.from({ length: clients }, (_, c) => movementPlan(articles, 100 + c));
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
    floor: async (conn, c, i) => (await floorMovement(ctx, conn, plans[c]!(i)), true),
    api: async (c, i) => (await apiMovement(ctx, plans[c]!(i)), true),
  });
  const ok = api.errors === 0 && fl.errors === 0;
  return {
    id: "post-movimenti",
    name,
    unit: "richieste/s",
    api: apiSide,
    floor: flSide,
    rssMb,
    check: {
      ok,
      text: ok ? "nessun errore" : `errori API ${api.errors} (${api.firstError ?? "-"}), pavimento ${fl.errors} (${fl.firstError ?? "-"})`,
    },
    details: { client: clients },
  };
}
