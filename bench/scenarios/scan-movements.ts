import * as floor from "../floor/lists";
import type { Ctx, ScenarioResult } from "./harness";
import { scanScenario } from "./scan";

export function scanMovements(ctx: Ctx): Promise<ScenarioResult> {
  return scanScenario(ctx, {
    id: "scan-movimenti",
    name: "GET /movimenti?limite=100, scansione completa",
    path: "/movimenti",
    limite: 100,
    floorPage: floor.movementsPage,
    key: "movimenti",
    count: "SELECT count(*) AS n FROM movimenti",
    warm: "SELECT count(*), sum(quantita), count(lotto_id) FROM movimenti; SELECT count(*), max(codice) FROM articoli; SELECT count(*) FROM lotti",
  });
}
