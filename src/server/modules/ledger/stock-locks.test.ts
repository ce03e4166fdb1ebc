import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";

/**
 * Only the ledger module takes the row locks of the stock: the lots (`lotti`), the location stock
 * (`giacenze_ubicazioni`) and the balances (`giacenze`). A statement that locks one of them (FOR UPDATE /
 * FOR NO KEY UPDATE / FOR SHARE on it) or writes it (INSERT, UPDATE, DELETE, which lock the rows they
 * touch) anywhere else would take a lock outside the lock order the ledger holds (ledger.service.ts),
 * and could deadlock against every writer of stock: this test fails as soon as one appears.
 */
const root = path.resolve(import.meta.dirname, "../../..");
const TABLES = "(lotti|giacenze_ubicazioni|giacenze)";
const WRITES = new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+"?${TABLES}"?(\\s|$|\\()`, "i");
/** A locking read: a FROM (or JOIN) of a stock table and a row-locking clause in the same SQL template. */
const READS = new RegExp(`\\b(FROM|JOIN)\\s+"?${TABLES}"?\\b`, "i");
const LOCKS = /\bFOR\s+(UPDATE|NO\s+KEY\s+UPDATE|SHARE|KEY\s+SHARE)\b/i;

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) sources(p, out);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.includes(".test.")) out.push(p);
  }
  return out;
}

/** The SQL templates of a file (Prisma.sql`…`, and the text of raw strings handed to pg). */
function templates(text: string): string[] {
  return [...text.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
}

/** Files outside the ledger module whose SQL writes a stock table or reads one under a row lock. */
function stockLockers(files: string[]): string[] {
  const found = new Set<string>();
  for (const file of files) {
    const rel = path.relative(root, file);
    if (rel.startsWith(`server${path.sep}modules${path.sep}ledger${path.sep}`)) continue;
    for (const sql of templates(fs.readFileSync(file, "utf8"))) {
      if (WRITES.test(sql) || (READS.test(sql) && LOCKS.test(sql))) found.add(rel);
    }
  }
  return [...found].sort();
}

test("no code outside the ledger module locks or writes lots, location stock or balances", () => {
  const files = [...sources(path.join(root, "server")), ...sources(path.join(root, "cli"))];
  expect(files.length).toBeGreaterThan(100);
  expect(stockLockers(files)).toEqual([]);
});

test("the scan sees a lock or a write of a stock table when one is there", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stock-locks-"));
  try {
    const write = (name: string, sql: string) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, `export const s = Prisma.sql\`${sql}\`;\n`);
      return p;
    };
    const files = [
      write("a.queries.ts", "SELECT id FROM lotti WHERE id = 1 FOR UPDATE"),
      write("b.queries.ts", "UPDATE giacenze SET quantita = 0"),
      write("c.queries.ts", "INSERT INTO giacenze_ubicazioni (articolo_id) VALUES (1)"),
      write("d.queries.ts", "SELECT g.quantita FROM giacenze g JOIN articoli a ON a.id = g.articolo_id FOR UPDATE OF g"),
      write("e.queries.ts", "SELECT quantita FROM giacenze WHERE articolo_id = 1"),
      write("f.queries.ts", "SELECT id FROM ordini_acquisto FOR UPDATE"),
    ];
    expect(stockLockers(files).map((f) => path.basename(f))).toEqual(["a.queries.ts", "b.queries.ts", "c.queries.ts", "d.queries.ts"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Inside the ledger module, the SQL that locks or writes the stock lives in its query files alone, and each
 * such statement is run by the step that guards it (ledger.service.ts, location-balances.service.ts) or by the
 * count's locked read (count-stock.ts), and by no other file.
 */
const LEDGER = path.join(root, "server", "modules", "ledger");
const STOCK_QUERIES = ["count.queries.ts", "ledger.queries.ts", "location-balances.queries.ts"];
const STEP_FILES = ["count-stock.ts", "ledger.service.ts", "location-balances.service.ts"];

/** The exported statements of a query file whose SQL locks or writes a stock table. */
function lockingStatements(file: string): string[] {
  const chunks = fs
    .readFileSync(file, "utf8")
    .split(/^export const /m)
    .slice(1);
  return chunks.flatMap((chunk) => {
    const name = /^(\w+)/.exec(chunk)![1]!;
    return templates(chunk).some((sql) => WRITES.test(sql) || (READS.test(sql) && LOCKS.test(sql))) ? [name] : [];
  });
}

/** The names a file uses from the modules `targets` (named imports, or `ns.name` of a namespace import). */
function namesUsedFrom(file: string, targets: string[]): string[] {
  const text = fs.readFileSync(file, "utf8");
  const used: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s+(type\s+)?(\{[^}]*\}|\*\s+as\s+(\w+))\s+from\s+"([^"]+)"/g)) {
    if (m[1] || !m[4]!.startsWith(".")) continue;
    if (!targets.includes(path.resolve(path.dirname(file), `${m[4]}.ts`))) continue;
    if (m[3]) used.push(...[...text.matchAll(new RegExp(`\\b${m[3]}\\.(\\w+)`, "g"))].map((r) => r[1]!));
    else
      used.push(
        ...m[2]!
          .slice(1, -1)
          .split(",")
          .map(
            (n) =>
              n
                .trim()
                .replace(/^type\s+/, "")
                .split(/\s+as\s+/)[0]!,
          ),
      );
  }
  return used.filter((n) => n !== "");
}

test("the SQL that locks or writes the stock lives in the ledger's query files, run only by its steps", () => {
  const ledgerFiles = sources(LEDGER);
  const lockers = ledgerFiles.filter((f) =>
    templates(fs.readFileSync(f, "utf8")).some((sql) => WRITES.test(sql) || (READS.test(sql) && LOCKS.test(sql))),
  );
  expect(lockers.map((f) => path.basename(f)).sort()).toEqual(STOCK_QUERIES);
  const statements = new Set(STOCK_QUERIES.flatMap((f) => lockingStatements(path.join(LEDGER, f))));
  expect(statements.size).toBeGreaterThan(10);
  const targets = STOCK_QUERIES.map((f) => path.join(LEDGER, f));
  const runners = [...sources(path.join(root, "server")), ...sources(path.join(root, "cli"))]
    .filter((f) => namesUsedFrom(f, targets).some((n) => statements.has(n)))
    .map((f) => path.relative(LEDGER, f))
    .sort();
  expect(runners).toEqual(STEP_FILES);
});

/**
 * The ledger's steps (a lot, location stock, the append) are called by the stock writer (stock-writer.ts)
 * alone: every writer of stock hands it its intents. The count's locked read (count-stock.ts: the counted
 * locations' gates, lots, location stock and balances, read under lock before the count writes through
 * the writer) has its one caller, the alignment.
 */
const STEPS =
  /\b(unloadLot|loadLot|lockLot|takeBackFromLot|lockLocation|unloadLocation|loadLocation|undoLotChange|ledgerAppend|appendToLedger|setCountedLots)\b/;
const COUNT_READS = /\b(countedLocationGates|countedLots|countedLocationStock|countedBalances)\b/;

test("the ledger's steps are called by the stock writer alone, the count's locked read by the alignment alone", () => {
  const files = [...sources(path.join(root, "server")), ...sources(path.join(root, "cli"))];
  const callers = (targets: string[], names: RegExp) =>
    files
      .filter((f) => namesUsedFrom(f, targets).some((n) => names.test(n)))
      .map((f) => path.relative(root, f))
      .sort();
  const steps = STEP_FILES.map((f) => path.join(LEDGER, f));
  expect(callers(steps, STEPS)).toEqual(["server/modules/ledger/stock-writer.ts"]);
  expect(callers([path.join(LEDGER, "count-stock.ts")], COUNT_READS)).toEqual(["server/modules/alignment/alignment-stock.ts"]);
});

test("the scan sees the names a file takes from a module, named or through a namespace", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stock-steps-"));
  try {
    const target = path.join(dir, "steps.ts");
    fs.writeFileSync(target, "export const unloadLot = 1;\n");
    const write = (name: string, text: string) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, text);
      return p;
    };
    const named = write("a.ts", 'import { type X, unloadLot as take, loadLocation } from "./steps";\n');
    const spaced = write("b.ts", 'import * as s from "./steps";\nexport const y = s.lockLot(1);\n');
    const typeOnly = write("c.ts", 'import type { unloadLot } from "./steps";\n');
    const elsewhere = write("d.ts", 'import { unloadLot } from "./other";\n');
    const passedOn = write("e.ts", 'export { unloadLot } from "./steps";\n');
    expect(namesUsedFrom(named, [target])).toEqual(["X", "unloadLot", "loadLocation"]);
    expect(namesUsedFrom(spaced, [target])).toEqual(["lockLot"]);
    expect(namesUsedFrom(typeOnly, [target])).toEqual([]);
    expect(namesUsedFrom(elsewhere, [target])).toEqual([]);
    expect(namesUsedFrom(passedOn, [target])).toEqual(["unloadLot"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
