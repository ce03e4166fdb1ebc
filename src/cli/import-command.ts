import fs from "node:fs";
import { importMasterData } from "../server/modules/import/import.service";
import { Failure, parseOptions, UsageError, type Run } from "./command";

/** `import FILE.json`: the id maps on stdout; problems on stderr, one `percorso: messaggio` a line. */
export function importCommand(args: string[]): Run {
  const file = parseOptions(args, {}, 1).positionals[0];
  if (file === undefined) throw new UsageError("indicare il file da importare: import FILE.json");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Failure(`Impossibile leggere ${file}: ${err.code === "ENOENT" ? "il file non esiste" : err.message}`);
  }
  let data: unknown;
  try {
    // Editors on Windows save JSON with a byte order mark, which JSON.parse refuses.
    data = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    throw new Failure(`${file} non è un JSON valido: ${(e as Error).message}`);
  }
  return async (db, config) => {
    const outcome = await importMasterData(db.prisma, data, { timeZone: config.SERVICE_TIME_ZONE });
    process.stdout.write(`${JSON.stringify(outcome.ids, null, 2)}\n`);
  };
}
