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
 * The ledger's steps (a lot, location stock, the append) are called by the stock writer (stock-writer.ts)
 * and by the writers listed here, which still call them in the lock order by hand. The list only
 * shrinks: a new writer of stock calls writeStock, and this test fails if it calls the steps itself.
 */
const BY_HAND = ["server/modules/movements/movements.service.ts"];
const STEPS =
  /\b(unloadLot|loadLot|lockLot|takeBackFromLot|moveLocationStock|unloadLocation|loadLocation|undoLotChange|ledgerAppend|appendToLedger|setCountedLots)\b/;

test("the ledger's steps are called by the stock writer, and by the writers not yet moved onto it", () => {
  const callers = sources(path.join(root, "server"))
    .filter((f) => !path.relative(root, f).startsWith(`server${path.sep}modules${path.sep}ledger${path.sep}`))
    .filter((f) =>
      [...fs.readFileSync(f, "utf8").matchAll(/import\s*\{([^}]*)\}\s*from\s*"[^"]*\/ledger\/[^"]*"/g)].some((m) => STEPS.test(m[1]!)),
    )
    .map((f) => path.relative(root, f))
    .sort();
  expect(callers).toEqual(BY_HAND);
});
