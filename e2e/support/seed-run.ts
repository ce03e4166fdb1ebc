import { apiKeyCommand } from "../../src/cli/api-key-command";
import type { Run } from "../../src/cli/command";
import { importCommand } from "../../src/cli/import-command";
import { userCommand } from "../../src/cli/user-command";
import { getConfig } from "../../src/server/config";
import { openDatabase } from "../../src/server/db/runtime";

/**
 * Several administration commands (docs/api.md section 6: `import`, `user`, `api-key`) in one process on one attached
 * database: a process of the CLI costs seconds on shared cores, and a spec needs a handful. The command lines come
 * as JSON (`string[][]`) in argv[2]; what each printed on stdout goes back as one JSON array of strings.
 */
const steps = JSON.parse(process.argv[2]!) as string[][];
const commands: Record<string, (args: string[]) => Run> = { import: importCommand, user: userCommand, "api-key": apiKeyCommand };
const runs = steps.map(([name, ...args]) => commands[name!]!(args));
const config = getConfig();
const db = await openDatabase(config, { mode: "attach" });
const outputs: string[] = [];
const write = process.stdout.write.bind(process.stdout);
try {
  for (const run of runs) {
    let out = "";
    process.stdout.write = ((chunk: string | Uint8Array) => {
      out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      return true;
    }) as typeof process.stdout.write;
    try {
      await run(db, config);
    } finally {
      process.stdout.write = write;
    }
    outputs.push(out);
  }
} finally {
  await db.close();
}
write(`${JSON.stringify(outputs)}\n`);
