import { spawn } from "node:child_process";
import path from "node:path";
import { npmStartArgs } from "../../e2e/support/start-command";
import { freePort } from "../../src/server/lib/ports";
import { ApiClient } from "../http";
import { stopOnExit } from "../server";
import { progress } from "../util";
import type { Ctx, ScenarioResult } from "./harness";
import { openLoop } from "./open-loop";
import { postReservations } from "./reservations";
import { scanAvailability } from "./scan-availability";
import { scanLocationStock } from "./scan-location-stock";
import { scanMovements } from "./scan-movements";
import { writeMovements } from "./write-movements";

/**
 * bench/bare-server.ts started beside the service, on the same database: the context of a scenario run
 * against it instead (its `api`, its pid for the CPU meter, `bare` set). `stop` ends it.
 */
export async function startBareServer(ctx: Ctx): Promise<{ ctx: Ctx; stop(): void }> {
  const port = await freePort();
  // With the V8 flags `npm start` gives the service (the heap's sizes: smaller semi-spaces than Node's
  // default), so that the two servers differ by the stack alone; compared run against run, the flags moved
  // the bare server's CPU per page by less than the runs' noise.
  const flags = npmStartArgs(path.join(import.meta.dirname, "..", "..")).filter((word) => word.startsWith("--")); // the flags, not the script
  const child = spawn(process.execPath, [...flags, "--import", "tsx", path.join(import.meta.dirname, "..", "bare-server.ts")], {
    env: { ...process.env, NODE_ENV: "production", DATABASE_URL: ctx.databaseUrl, PORT: String(port), SERVICE_TIME_ZONE: ctx.timeZone },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const kill = () => void child.kill("SIGTERM");
  stopOnExit.add(kill);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (b: Buffer) => b.toString().includes("pronto") && resolve());
    child.once("exit", (code) => reject(new Error(`bare-server.ts si è fermato (uscita ${code})`)));
  });
  progress(`tetto-node: server node:http + pg senza framework sulla porta ${port}, pid ${child.pid}`);
  const api = new ApiClient(port, ctx.key.chiave, 32);
  return {
    ctx: { ...ctx, api, serverPid: child.pid!, cpu: ctx.cpu.forServer(child.pid!), bare: true },
    stop() {
      api.close();
      kill();
      stopOnExit.delete(kill);
    },
  };
}

/**
 * `tetto-node` (only with --only): the POST /movimenti scenario, the open loop, the movement scan, the
 * location-stock scan, the availability scan and POST /prenotazioni, each with its floor, run against bench/bare-server.ts (plain `node:http` and `pg`, none of our stack)
 * instead of the service. Their ratios are about the most a Node HTTP service can reach on this machine
 * for the same database work: what separates the service's from them is the cost of the stack (tRPC,
 * trpc-to-openapi, zod, our layers).
 */
export async function bareNode(ctx: Ctx): Promise<ScenarioResult[]> {
  const bare = await startBareServer(ctx);
  // Named apart from the service's rows, and left out of the goals (report.ts matches their ids).
  const named = (r: ScenarioResult): ScenarioResult => ({
    ...r,
    id: `tetto-node:${r.id}`,
    name: `${r.name}: node:http + pg, senza framework`,
  });
  try {
    return [
      named(await writeMovements(bare.ctx)),
      named(await openLoop(bare.ctx)),
      named(await scanMovements(bare.ctx)),
      named(await scanLocationStock(bare.ctx)),
      named(await scanAvailability(bare.ctx)),
      named(await postReservations(bare.ctx)),
    ];
  } finally {
    bare.stop();
  }
}
