import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Config } from "../server/config";
import type { OpenDatabase } from "../server/db/runtime";

/**
 * A command is parsed before the database is opened (a usage mistake or an unreadable file costs no
 * database start), and returns the work to do with the database.
 */
export type Run = (db: OpenDatabase, config: Config) => Promise<void>;

/** Wrong command line: exit 2, with the usage. */
export class UsageError extends Error {}

/** The command ran and could not do what was asked: exit 1. */
export class Failure extends Error {}

/** node:util parseArgs, with its errors turned into usage errors worded in Italian. */
export function parseOptions<O extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: O, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    const { code, message } = e as NodeJS.ErrnoException;
    const option = /'(--?[\w-]+)/.exec(message)?.[1] ?? "";
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(`opzione sconosciuta: ${option}`);
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") throw new UsageError(`manca il valore dell'opzione ${option}`);
    throw new UsageError(message);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`argomento in più: ${parsed.positionals.slice(positionals).join(" ")}`);
  }
  return parsed;
}

/** Columns padded to their widest cell. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
