/**
 * @module kit/schema-check
 * Proves a service's Prisma schema and its hand-written migration SQL agree: every model's table
 * exists with exactly the mapped columns, each with the Postgres type and nullability the Prisma
 * field implies. Services call it from a test after migrating a fresh database.
 */
import { readFileSync } from "node:fs";
import type pg from "pg";

export interface ExpectedColumn {
  table: string;
  column: string;
  dataType: string;
  nullable: boolean;
}

const SCALARS: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Boolean: "boolean",
  Float: "double precision",
  Decimal: "numeric",
  Json: "jsonb",
  Bytes: "bytea",
  DateTime: "timestamp without time zone",
};

/** A deliberately small parser: enough for the schema subset this project writes. */
export function expectedColumns(schemaPrismaPath: string): ExpectedColumn[] {
  const text = readFileSync(schemaPrismaPath, "utf8").replace(/\/\/.*$/gm, "");
  const out: ExpectedColumn[] = [];
  const enums = new Set([...text.matchAll(/^enum\s+(\w+)/gm)].map((m) => m[1]));
  for (const m of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const [, model, body] = m;
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? model;
    for (const line of body.split("\n")) {
      const f = /^\s*(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!f || line.trim().startsWith("@@")) continue;
      const [, name, type, list, optional, attrs] = f;
      if (!SCALARS[type] && !enums.has(type)) continue; // relation field
      const column = /@map\("([^"]+)"\)/.exec(attrs)?.[1] ?? name;
      let dataType = enums.has(type) ? "USER-DEFINED" : SCALARS[type];
      if (type === "DateTime" && /@db\.Timestamptz/.test(attrs)) dataType = "timestamp with time zone";
      if (type === "String" && /@db\.(VarChar|Uuid)/.test(attrs))
        dataType = /@db\.Uuid/.test(attrs) ? "uuid" : "character varying";
      if (list) dataType = "ARRAY";
      // Prisma scalar lists are nullable columns in Postgres even though the field is not optional.
      out.push({ table, column, dataType, nullable: Boolean(optional) || Boolean(list) });
    }
  }
  return out;
}

/** Returns the differences (empty when schema and database agree). */
export async function diffSchema(pool: pg.Pool, schema: string, schemaPrismaPath: string): Promise<string[]> {
  const expected = expectedColumns(schemaPrismaPath);
  const { rows } = await pool.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name <> '_prisma_migrations'`,
    [schema],
  );
  const actual = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r]));
  const problems: string[] = [];
  const tables = new Set(expected.map((e) => e.table));
  for (const e of expected) {
    const a = actual.get(`${e.table}.${e.column}`);
    if (!a) {
      problems.push(`${e.table}.${e.column}: in schema.prisma, missing in the database`);
      continue;
    }
    if (a.data_type !== e.dataType)
      problems.push(`${e.table}.${e.column}: type ${a.data_type} in the database, ${e.dataType} expected`);
    if ((a.is_nullable === "YES") !== e.nullable)
      problems.push(
        `${e.table}.${e.column}: nullable=${a.is_nullable} in the database, ${e.nullable ? "YES" : "NO"} expected`,
      );
  }
  const known = new Set(expected.map((e) => `${e.table}.${e.column}`));
  for (const [k, a] of actual) {
    if (!known.has(k) && tables.has(a.table_name)) problems.push(`${k}: in the database, missing in schema.prisma`);
    if (!tables.has(a.table_name)) problems.push(`${a.table_name}: table in the database has no model`);
  }
  return [...new Set(problems)];
}
