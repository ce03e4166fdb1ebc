import fs from "node:fs";
import { createRequire } from "node:module";
import { describe, expect } from "vitest";
import pg from "pg";
import { withDatabase } from "./embedded";
import { migrate, listMigrations } from "./migrate";
import { serverUrl, type TestDb } from "../testing/db";
import { test } from "../testing/test";

/**
 * schema.prisma and the SQL migrations must describe the same database: the migrated template is
 * introspected and compared with Prisma's own reading of the schema (its DMMF).
 */

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "object" | "enum";
  type: string;
  nativeType?: [string, string[]] | null;
  isRequired: boolean;
  isList: boolean;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  fields: { name: string }[];
}

const require = createRequire(import.meta.url);
const wasm = require("@prisma/prisma-schema-wasm") as { get_dmmf(params: string): string };
const dmmf = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: fs.readFileSync("prisma/schema.prisma", "utf8") }))) as {
  datamodel: { models: DmmfModel[]; indexes: DmmfIndex[] };
};
const models = dmmf.datamodel.models;
const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
const modelByName = new Map(models.map((m) => [m.name, m]));

function expectedType(f: DmmfField): string {
  const [native, args] = f.nativeType ?? [undefined, []];
  const base = (() => {
    switch (f.type) {
      case "Int":
        return "integer";
      case "BigInt":
        return "bigint";
      case "String":
        return "text";
      case "Boolean":
        return "boolean";
      case "Float":
        return "double precision";
      case "Json":
        return "jsonb";
      case "Bytes":
        return "bytea";
      case "Decimal":
        return `numeric(${args?.join(",") ?? "65,30"})`;
      case "DateTime":
        if (native === "Date") return "date";
        if (native === "Timestamptz") return `timestamp with time zone(${args?.[0] ?? 3})`;
        return `timestamp without time zone(${args?.[0] ?? 3})`;
      default:
        return `? ${f.type}`;
    }
  })();
  return f.isList ? `${base}[]` : base;
}

let t: TestDb;
let columns: Map<string, { type: string; notNull: boolean; hasDefault: boolean }>;
let indexes: Set<string>;
let foreignKeys: Set<string>;
let tables: Set<string>;

test.beforeAll(async ({ db }) => {
  t = db;
  const q = (sql: string) => t.pool.query(sql).then((r) => r.rows);
  tables = new Set((await q(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).map((r) => r.tablename));
  columns = new Map(
    (
      await q(`SELECT c.relname AS t, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS nn,
                      a.atthasdef AS def
                 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`)
    ).map((r) => [
      `${r.t}.${r.col}`,
      {
        type: String(r.type)
          .replace(/^timestamp\((\d)\) with time zone/, "timestamp with time zone($1)")
          .replace(/^timestamp\((\d)\) without time zone/, "timestamp without time zone($1)")
          .replace(/^text\[\]$/, "text[]"),
        notNull: r.nn,
        hasDefault: r.def,
      },
    ]),
  );
  indexes = new Set(
    (
      await q(`SELECT t.relname AS t, ix.indisunique AS u, ix.indisprimary AS p,
                      array_to_string(ARRAY(SELECT a.attname FROM unnest(ix.indkey) WITH ORDINALITY k(attnum, o)
                        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.o), ',') AS cols
                 FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE n.nspname = 'public'`)
    ).map((r) => `${r.t}(${r.cols}) ${r.p ? "id" : r.u ? "unique" : "normal"}`),
  );
  foreignKeys = new Set(
    (
      await q(`SELECT conrelid::regclass::text AS t, confrelid::regclass::text AS rt, confdeltype AS del,
                      array_to_string(ARRAY(SELECT attname FROM unnest(conkey) WITH ORDINALITY k(n, o)
                        JOIN pg_attribute ON attrelid = conrelid AND attnum = k.n ORDER BY k.o), ',') AS cols,
                      array_to_string(ARRAY(SELECT attname FROM unnest(confkey) WITH ORDINALITY k(n, o)
                        JOIN pg_attribute ON attrelid = confrelid AND attnum = k.n ORDER BY k.o), ',') AS rcols
                 FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`)
    ).map((r) => `${r.t}(${r.cols}) -> ${r.rt}(${r.rcols}) on delete ${r.del}`),
  );
});

describe("schema.prisma and the migrations agree", () => {
  test("the same tables, nothing more", () => {
    const expected = new Set([...models.map(tableOf), "banchina_migrazioni"]);
    expect([...tables].sort()).toEqual([...expected].sort());
  });

  test.each(models.map((m) => [m.name, m] as const))("%s: every column with its type, nullability and default", (_n, m) => {
    const scalars = m.fields.filter((f) => f.kind !== "object");
    const table = tableOf(m);
    const actual = [...columns.keys()].filter((k) => k.startsWith(`${table}.`)).map((k) => k.slice(table.length + 1));
    expect(actual.sort()).toEqual(scalars.map((f) => f.dbName ?? f.name).sort());
    for (const f of scalars) {
      const col = columns.get(`${table}.${f.dbName ?? f.name}`)!;
      expect({ field: f.name, type: col.type, notNull: col.notNull, hasDefault: col.hasDefault }).toEqual({
        field: f.name,
        type: expectedType(f),
        // Prisma's String[] is nullable in SQL but required in the schema.
        notNull: f.isList ? col.notNull : f.isRequired,
        hasDefault: f.default !== undefined,
      });
    }
  });

  test("every primary key, unique and plain index", () => {
    const expected = dmmf.datamodel.indexes
      .filter((i) => i.type !== "fulltext")
      .map((i) => {
        const m = modelByName.get(i.model)!;
        const cols = i.fields.map((f) => m.fields.find((x) => x.name === f.name)!).map((f) => f.dbName ?? f.name);
        return `${tableOf(m)}(${cols.join(",")}) ${i.type}`;
      });
    expected.push("banchina_migrazioni(nome) id"); // the migration runner's own table
    expect([...indexes].sort()).toEqual([...new Set(expected)].sort());
  });

  test("every foreign key with its delete rule", () => {
    const rule: Record<string, string> = { Restrict: "r", Cascade: "c", SetNull: "n", NoAction: "a", SetDefault: "d" };
    const expected = models.flatMap((m) =>
      m.fields
        .filter((f) => f.kind === "object" && (f.relationFromFields?.length ?? 0) > 0)
        .map((f) => {
          const target = modelByName.get(f.type)!;
          const onDelete = f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull");
          return `${tableOf(m)}(${f.relationFromFields!.join(",")}) -> ${tableOf(target)}(${f.relationToFields!.join(",")}) on delete ${rule[onDelete]}`;
        }),
    );
    expect([...foreignKeys].sort()).toEqual(expected.sort());
  });
});

test("two instances migrating one empty database together apply each migration once", async () => {
  const adminUrl = serverUrl();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = `m_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = withDatabase(adminUrl, name);
    const [a, b] = await Promise.all([migrate(url), migrate(url)]);
    const all = listMigrations().map((m) => m.name);
    expect([...a, ...b].sort()).toEqual(all.sort());
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query("SELECT nome FROM banchina_migrazioni ORDER BY nome");
    await c.end();
    expect(rows.map((r) => r.nome)).toEqual(all);
    expect(await migrate(url)).toEqual([]);
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
});

test("the ledger is append-only", async () => {
  await t.pool.query(`INSERT INTO magazzini (codice, nome) VALUES ('M', 'M')`);
  await t.pool.query(`INSERT INTO articoli (codice, descrizione) VALUES ('A', 'A')`);
  await t.pool.query(`INSERT INTO operazioni (origine) VALUES ('api')`);
  await t.pool.query(`INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
                      VALUES (1, current_date, 'api', 'carico', 1, 1, 1)`);
  await expect(t.pool.query("UPDATE movimenti SET quantita = 2")).rejects.toThrow(/sola aggiunta/);
  await expect(t.pool.query("DELETE FROM movimenti")).rejects.toThrow(/sola aggiunta/);
  await expect(t.pool.query("TRUNCATE movimenti CASCADE")).rejects.toThrow(/sola aggiunta/);
});
