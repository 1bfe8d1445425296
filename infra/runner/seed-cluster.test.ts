/**
 * A new cluster copied from the machine's cache (./seed-cluster.ts), with the real Postgres: the
 * copy holds every migration of its schemas; a migration added after an entry was built makes a new
 * entry (the old one goes) instead of serving the old schema; a cluster copied before a migration
 * existed still gets it at the start that finds it; and the copy's superuser password is replaced by
 * the data directory's own at the first start (as the old fixed password still is); a spare copy,
 * made in the background, is taken by a rename. A copy a crash cut short is never used and its
 * leftovers go at the next start (or warming of the cache); the entry's key follows migrations and the code applying them,
 * not other kit edits.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import { adoptPassword, binaries, postgresUser, SEED_PASSWORD_FILE } from "./postgres.ts";
import { migrationsDirOf, prepareLocalSchemas } from "./schemas.ts";
import { seedCluster, seedKey, warmSeed, withServer } from "./seed-cluster.ts";
import { REPO_ROOT } from "./binaries.ts";

const SCHEMA = "seedtest";
let root: string;
let migrations: string;
let cache: string;
const lines: string[] = [];
const log = (line: string) => lines.push(line);

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "seed-cluster-"));
  // Postgres runs as the `postgres` user when we are root: it must pass through the directory.
  fs.chmodSync(root, 0o711);
  migrations = path.join(root, "migrations");
  cache = path.join(root, "cache");
  addMigration("20270101000000_a", "CREATE TABLE a (id int PRIMARY KEY);");
});
// The spare the last test's start set off is still being made in the background: removing the
// directory under it would leave its half copy behind.
after(async () => {
  const making = () => fs.existsSync(cache) && fs.readdirSync(cache).some((name) => name.includes(".spare."));
  for (let i = 0; i < 300 && making(); i++) await new Promise((resolve) => setTimeout(resolve, 200));
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
});

function addMigration(name: string, sql: string): void {
  fs.mkdirSync(path.join(migrations, name), { recursive: true });
  fs.writeFileSync(path.join(migrations, name, "migration.sql"), sql);
}

/** The cache's entries, without spare copies and copies being made. */
const entries = () => fs.readdirSync(cache).filter((name) => !name.includes("."));

const seed = (name: string) =>
  seedCluster({
    dir: path.join(root, name, "postgres"),
    cacheDir: cache,
    schemas: [SCHEMA],
    migrationsDir: () => migrations,
    log,
  });

/** Runs a server on the copied cluster with the password it carries, and hands `fn` the superuser URL. */
async function onCluster<T>(name: string, fn: (superUrl: string) => Promise<T>): Promise<T> {
  const dir = path.join(root, name, "postgres");
  const password = fs.readFileSync(path.join(dir, SEED_PASSWORD_FILE), "utf8").trim();
  return withServer(await binaries(), await postgresUser(), dir, password, undefined, fn);
}

async function query(url: string, sql: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows.map((r) => String(Object.values(r)[0]));
  } finally {
    await client.end();
  }
}

const applied = (url: string) =>
  query(url, `SELECT migration_name FROM ${SCHEMA}."_prisma_migrations" ORDER BY migration_name`);

test("the first cluster builds the machine's entry; the next is a copy of it, migrations applied", async () => {
  assert.equal(await seed("one"), "built");
  assert.equal(entries().length, 1);
  assert.equal(await seed("two"), "copied");
  await onCluster("two", async (url) => {
    assert.deepEqual(await applied(url), ["20270101000000_a"]);
    assert.deepEqual(await query(url, `SELECT to_regclass('${SCHEMA}.a')::text`), [`${SCHEMA}.a`]);
    // The roles exist, so the start only has to set the data directory's passwords.
    assert.deepEqual(
      await query(url, "SELECT rolname FROM pg_roles WHERE rolname LIKE 'gantry_seedtest%' ORDER BY 1"),
      ["gantry_seedtest", "gantry_seedtest_owner"],
    );
  });
});

test("a migration added after the entry was built makes a new entry, and the old one goes", async () => {
  const before = entries();
  addMigration("20270102000000_b", "CREATE TABLE b (id int PRIMARY KEY);");
  assert.equal(await seed("three"), "built");
  const now = entries();
  assert.equal(now.length, 1);
  assert.notDeepEqual(now, before);
  assert.equal(await seed("four"), "copied");
  await onCluster("four", async (url) => {
    assert.deepEqual(await applied(url), ["20270101000000_a", "20270102000000_b"]);
  });
});

test("a cluster copied before a migration existed gets it at the start that finds it", async () => {
  // "two" was copied from the first entry; the start's own step applies what is pending.
  await onCluster("two", async (url) => {
    const roles = new Map([
      [
        SCHEMA,
        {
          owner: { name: "gantry_seedtest_owner", password: "owner-pw" },
          service: { name: "gantry_seedtest", password: "service-pw" },
        },
      ],
    ]);
    await prepareLocalSchemas(url, roles, log, () => migrations);
    assert.deepEqual(await applied(url), ["20270101000000_a", "20270102000000_b"]);
    assert.ok(lines.includes(`${SCHEMA}: applied 20270102000000_b`), lines.join("\n"));
  });
});

test("the first start replaces the copy's superuser password with the data directory's", async () => {
  const dir = path.join(root, "four", "postgres");
  const seedPassword = fs.readFileSync(path.join(dir, SEED_PASSWORD_FILE), "utf8").trim();
  await withServer(await binaries(), await postgresUser(), dir, seedPassword, undefined, async (seedUrl) => {
    const own = new URL(seedUrl);
    own.password = "the-data-directorys-own";
    await adoptPassword(own.toString(), log, dir);
    assert.equal(fs.existsSync(path.join(dir, SEED_PASSWORD_FILE)), false);
    assert.deepEqual(await query(own.toString(), "SELECT current_user"), ["gantry"]);
    await assert.rejects(query(seedUrl, "SELECT 1"), /password authentication failed/);
    // Already the data directory's: nothing to do, and no file needed.
    await adoptPassword(own.toString(), log, dir);
    // A cluster from before generated passwords (the fixed one) is still taken over.
    await query(own.toString(), "ALTER ROLE gantry PASSWORD 'gantry'");
    await adoptPassword(own.toString(), log, dir);
    assert.deepEqual(await query(own.toString(), "SELECT current_user"), ["gantry"]);
    assert.ok(lines.some((l) => l.includes("had the old fixed password")));
  });
});

test("a spare copy made in the background is taken by a rename: the next directory costs no copy", async () => {
  const [key] = entries();
  const spare = path.join(cache, `${key}.spare`);
  for (let i = 0; i < 600 && !fs.existsSync(spare); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  const inode = fs.statSync(spare).ino;
  assert.equal(await seed("five"), "copied");
  assert.equal(fs.statSync(path.join(root, "five", "postgres")).ino, inode, "the spare itself, renamed");
  await onCluster("five", async (url) => {
    assert.deepEqual(await applied(url), ["20270101000000_a", "20270102000000_b"]);
  });
});

/** The spare copy of the machine's entry, once the background copy has published it. */
async function readySpare(): Promise<string> {
  const [key] = entries();
  const spare = path.join(cache, `${key}.spare`);
  const done = path.join(spare, "gantry-seed-complete");
  for (let i = 0; i < 600 && !fs.existsSync(done); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(fs.existsSync(done), "the spare copy was published");
  return spare;
}

test("copies into the cache that a killed process left part-way go at the next start; a live one's stay", async () => {
  const [key] = entries();
  const dead = spawnSync("true").pid; // exited: its pid names no process now
  const leftovers = [`${key}.spare.${dead}`, `.${key}.${dead}`].map((name) => path.join(cache, name));
  const working = path.join(cache, `${key}.spare.${process.pid}`);
  const leave = (dirs: string[]) => {
    for (const dir of dirs) {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, "PG_VERSION"), "17\n");
    }
  };
  leave([...leftovers, working]);
  try {
    assert.equal(await seed("six"), "copied");
    for (const dir of leftovers) assert.equal(fs.existsSync(dir), false, `${dir} was removed`);
    assert.ok(fs.existsSync(working), "a copy whose process is alive is left to it");
    // The bench warms the cache without starting a cluster: that clears them too.
    leave(leftovers);
    await warmSeed(cache, [SCHEMA], log, 0, () => migrations);
    for (const dir of leftovers) assert.equal(fs.existsSync(dir), false, `${dir} was removed by warmSeed`);
    assert.ok(fs.existsSync(working), "a copy whose process is alive is left to it by warmSeed");
  } finally {
    fs.rmSync(working, { recursive: true, force: true });
  }
});

test("a spare or entry without its completion marker (a copy a crash cut short) is never used", async () => {
  const spare = await readySpare();
  fs.rmSync(path.join(spare, "gantry-seed-complete"));
  const inode = fs.statSync(spare).ino;
  assert.equal(await seed("seven"), "copied");
  assert.notEqual(fs.statSync(path.join(root, "seven", "postgres")).ino, inode, "copied from the entry instead");
  assert.equal(fs.existsSync(path.join(root, "seven", "postgres", "gantry-seed-complete")), false);
  await readySpare(); // made again, whole
  const [key] = entries();
  fs.rmSync(path.join(cache, key, "gantry-seed-complete"));
  assert.equal(await seed("eight"), "built");
  assert.deepEqual(entries(), [key]);
  assert.ok(fs.existsSync(path.join(cache, key, "gantry-seed-complete")), "the entry built again is whole");
  await onCluster("eight", async (url) => {
    assert.deepEqual(await applied(url), ["20270101000000_a", "20270102000000_b"]);
  });
  await readySpare();
});

test("the entry's key follows the migrations and the code applying them, not other kit edits", async () => {
  const bin = await binaries();
  const ids = await postgresUser();
  const checkout = path.join(root, "checkout");
  const files = [
    "kit/src/migrate.ts",
    "kit/src/tenancy.ts",
    "kit/src/postgres-roles.ts",
    "kit/src/data/idempotency.ts",
    "infra/runner/schemas.ts",
    "infra/runner/seed-cluster.ts",
  ];
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, file), path.join(checkout, file));
  }
  const ownMigrations = path.join(root, "key-migrations");
  fs.cpSync(migrations, ownMigrations, { recursive: true });
  const key = () =>
    seedKey(bin, ids, [SCHEMA, "payments"], (s) => (s === SCHEMA ? ownMigrations : migrationsDirOf(s)), checkout);
  const edit = (file: string) => fs.appendFileSync(path.join(checkout, file), "\n// an edit\n");
  const first = await key();
  assert.equal(await key(), first, "the same inputs, the same key");
  edit("kit/src/data/idempotency.ts");
  edit("kit/src/tenancy.ts");
  edit("infra/runner/seed-cluster.ts");
  assert.equal(await key(), first, "kit and runner code that does not make the cluster keeps the entry");
  fs.appendFileSync(path.join(ownMigrations, "20270101000000_a", "migration.sql"), "\nCREATE INDEX ON a (id);");
  const edited = await key();
  assert.notEqual(edited, first, "an edited migration is a new entry");
  fs.mkdirSync(path.join(ownMigrations, "20270103000000_c"));
  fs.writeFileSync(path.join(ownMigrations, "20270103000000_c", "migration.sql"), "CREATE TABLE c (id int);");
  const added = await key();
  assert.notEqual(added, edited, "an added migration is a new entry");
  edit("kit/src/migrate.ts");
  assert.notEqual(await key(), added, "an edit of the migration runner is a new entry");
});
