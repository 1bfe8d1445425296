/**
 * The roles command the chart's postgres-roles pod runs, on a real Postgres as its superuser: it
 * makes a schema's owner and service logins from the roles file, the service login is held to its
 * own schema, a second run changes nothing, and a file without a role's password fails naming
 * the role and never a password.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { runCli } from "@gantry/infra/testing/run-cli.ts";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

const CLI = fileURLToPath(new URL("./postgres-roles-cli.ts", import.meta.url));

let t: TestStack;
let dir: string;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  dir = mkdtempSync(join(tmpdir(), "gantry-roles-"));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t?.stop();
});

const run = (args: string[], env: Record<string, string | undefined>) => runCli(CLI, args, env);

const outcome = (db: pg.Client, sql: string) =>
  db.query(sql).then(
    () => "ok",
    (e: { code?: string }) => e.code ?? "error",
  );

test("makes a schema's owner and service logins; the service login is held to its schema", async () => {
  const passwords = {
    gantry_rolecli_owner: "owner-password-0123456789",
    gantry_rolecli: "service-password-0123456789",
  };
  const file = join(dir, "roles.json");
  writeFileSync(file, JSON.stringify(passwords));
  const env = { DATABASE_URL: t.stack.env.DATABASE_URL, POSTGRES_ROLES_FILE: file };
  const first = await run(["rolecli"], env);
  assert.equal(first.code, 0, first.out);
  assert.match(first.out, /"msg":"schema roles in place"/);
  assert.ok(!first.out.includes(passwords.gantry_rolecli), "a password in the log");

  const login = (user: string, password: string) => {
    const url = new URL(t.stack.env.DATABASE_URL);
    url.username = user;
    url.password = password;
    return new pg.Client({ connectionString: url.toString() });
  };
  const owner = login("gantry_rolecli_owner", passwords.gantry_rolecli_owner);
  await owner.connect();
  try {
    assert.equal(await outcome(owner, "CREATE TABLE rolecli.notes (id int PRIMARY KEY)"), "ok", "the owner migrates");
  } finally {
    await owner.end();
  }
  const service = login("gantry_rolecli", passwords.gantry_rolecli);
  await service.connect();
  try {
    assert.equal(await outcome(service, "INSERT INTO rolecli.notes VALUES (1)"), "ok", "the service writes its rows");
    for (const sql of [
      "DROP TABLE rolecli.notes",
      "CREATE TABLE rolecli.more (id int)",
      "SET ROLE gantry_rolecli_owner",
    ])
      assert.notEqual(await outcome(service, sql), "ok", sql);
  } finally {
    await service.end();
  }

  const again = await run(["rolecli"], env);
  assert.equal(again.code, 0, again.out);
});

test("a roles file without a role's password fails, naming the role and no password", async () => {
  const file = join(dir, "partial.json");
  writeFileSync(file, JSON.stringify({ gantry_other_owner: "owner-password-0123456789" }));
  const res = await run(["other"], { DATABASE_URL: t.stack.env.DATABASE_URL, POSTGRES_ROLES_FILE: file });
  assert.equal(res.code, 1, res.out);
  assert.match(res.out, /no password \(16\+ characters\) for gantry_other\b/);
  assert.ok(!res.out.includes("owner-password-0123456789"));
});

test("usage errors exit 64", async () => {
  assert.equal((await run([], {})).code, 64);
  assert.equal((await run(["Bad-Name"], { DATABASE_URL: "postgres://x", POSTGRES_ROLES_FILE: "f" })).code, 64);
  assert.equal((await run(["keys"], { POSTGRES_ROLES_FILE: "f" })).code, 64);
});
