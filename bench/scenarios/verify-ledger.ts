import { Prisma } from "../../src/server/db/client";
import { closePrisma, createPrisma } from "../../src/server/db/client";
import * as ledgerQueries from "../../src/server/modules/ledger/ledger.queries";
import * as locationQueries from "../../src/server/modules/ledger/location-balances.queries";
import { verifyLedger } from "../../src/server/modules/ledger/verify.service";
import { median, progress, seconds } from "../util";
import { cpuText, metered, withClient, type Ctx, type CpuUse, type ScenarioResult, type SideResult } from "./harness";

/**
 * `verify` timed (exempt from the growth mode's flat rule, it recomputes everything from the ledger by design, but
 * reported): the service's verifyLedger through Prisma, against its statements run one after the other in
 * one REPEATABLE READ transaction through `pg`. Three runs each; the figure is the median, in seconds.
 */
const REPS = 3;

export async function verifyScenario(ctx: Ctx): Promise<ScenarioResult> {
  const name = "verify: il registro ricalcolato per intero";
  const statements = [
    ledgerQueries.balanceDifferences(),
    ledgerQueries.monthlyDifferences(),
    ledgerQueries.lotDifferences(),
    ledgerQueries.orderRowDifferences(),
    ledgerQueries.orderStateDifferences(),
    locationQueries.locationDifferences(),
    locationQueries.unlocatedStock(),
    ledgerQueries.ledgerCounts(),
    locationQueries.locationStockCount(),
  ];
  const prisma = createPrisma(ctx.databaseUrl, 2);
  const times = { api: [] as number[], floor: [] as number[] };
  const cpus = { api: [] as CpuUse[], floor: [] as CpuUse[] };
  let differences = 0;
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const [, fCpu] = await metered(ctx, () =>
        withClient(ctx.pool, async (c) => {
          const t = performance.now();
          await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
          for (const s of statements) await c.query(s.sql.text, s.sql.values);
          await c.query("COMMIT");
          times.floor.push(performance.now() - t);
        }),
      );
      cpus.floor.push(fCpu(1));
      const [r, aCpu] = await metered(ctx, async () => {
        const t = performance.now();
        const out = await verifyLedger(prisma);
        times.api.push(performance.now() - t);
        return out;
      });
      cpus.api.push(aCpu(1));
      differences = r.differenze.length;
    }
  } finally {
    await closePrisma(prisma);
  }
  const sideOf = (ms: number[], cpu: CpuUse[]): SideResult => ({
    figure: median(ms) / 1000,
    count: ms.length,
    ms: ms.reduce((s, x) => s + x, 0),
    p50: median(ms),
    p99: Math.max(...ms),
    errors: 0,
    cpu: cpu[cpu.length - 1],
  });
  const api = sideOf(times.api, cpus.api);
  const floor = sideOf(times.floor, cpus.floor);
  progress(`${name}: servizio ${seconds(api.p50)}, pavimento ${seconds(floor.p50)} (mediane di ${REPS}); CPU ${cpuText(api.cpu)}`);
  return {
    id: "verify",
    name,
    unit: "s",
    api,
    floor,
    rssMb: 0,
    check: { ok: differences === 0, text: differences === 0 ? "nessuna differenza" : `${differences} differenze` },
    details: {
      ripetizioni: REPS,
      tempiApiMs: times.api,
      tempiPavimentoMs: times.floor,
      isolamento: Prisma.TransactionIsolationLevel.RepeatableRead,
    },
  };
}
