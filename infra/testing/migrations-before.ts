/**
 * A schema as it was before one of its migrations, for the tests that check what a migration does
 * to rows written before it: a temporary directory holding copies of the migrations that sort
 * before `name`, which kit `migrate` applies like the real directory; `add` copies later ones in.
 *
 * @example
 * const earlier = migrationsBefore(MIGRATIONS, "20270116000000_ledger_journals");
 * await migrate(pool, schema, earlier.dir); // rows written as they were, then:
 * earlier.add("20270116000000_ledger_journals");
 * await migrate(pool, schema, earlier.dir);
 * earlier.remove();
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface EarlierMigrations {
  /** The directory to hand to `migrate`. */
  dir: string;
  /** Copies migration `name` of the real directory in. */
  add(name: string): void;
  /** Deletes the directory. */
  remove(): void;
}

export function migrationsBefore(migrationsDir: string, name: string): EarlierMigrations {
  const dir = mkdtempSync(join(tmpdir(), "gantry-migrations-"));
  const add = (migration: string) => cpSync(join(migrationsDir, migration), join(dir, migration), { recursive: true });
  for (const migration of readdirSync(migrationsDir).filter((n) => n < name)) add(migration);
  return { dir, add, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
