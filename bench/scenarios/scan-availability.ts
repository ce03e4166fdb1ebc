import * as floor from "../floor/lists";
import type { Ctx, ScenarioResult } from "./harness";
import { scanScenario } from "./scan";

export function scanAvailability(ctx: Ctx): Promise<ScenarioResult> {
  return scanScenario(ctx, {
    id: "scan-disponibilita",
    name: "GET /disponibilita?limite=500, scansione completa",
    path: "/disponibilita",
    limite: 500,
    floorPage: floor.availabilityPage,
    key: "disponibilita",
    count: "SELECT count(*) AS n FROM articoli WHERE NOT ha_varianti",
    warm: "SELECT count(*), max(codice) FROM articoli; SELECT count(*), sum(quantita) FROM giacenze; SELECT count(*), sum(ordinata) FROM righe_ordine",
  });
}
