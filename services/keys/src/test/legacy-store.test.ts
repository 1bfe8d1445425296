/**
 * The legacy credential store end to end: keys from GANTRY_LEGACY_KEYS authenticate through the
 * gateway (also when they are not gk_ keys), keep their scopes and tenant, are counted per request
 * (admins see the count in key.list), cannot be revoked or rotated through the API; and a bad store
 * or a test clock outside NODE_ENV=test stop the keys service at start.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { generateKey } from "@gantry/kit";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { REPO_ROOT } from "@gantry/infra/runner/stack.ts";
import { assertNoSecretsInLogs, startKeysStack, type KeysTestStack } from "../testing.ts";

const LEGACY_ACME = "acme-legacy-secret-2019-abcdef";
const LEGACY_GLOBEX = generateKey(); // a deployment may also have handed out gk_ keys
const t: KeysTestStack = await startKeysStack({
  env: {
    GANTRY_LEGACY_KEYS: JSON.stringify([
      {
        tenant: "acme",
        secret: LEGACY_ACME,
        scopes: ["key.issue", "key.list", "key.revoke", "gantry.about"],
        name: "old acme app",
        collections: ["support"],
      },
      { tenant: "globex", secret: LEGACY_GLOBEX, scopes: ["gantry.about"], name: "old globex app" },
    ]),
  },
});
after(async () => t.stop());
t.secrets.add(LEGACY_ACME);
t.secrets.add(LEGACY_GLOBEX);

test("legacy keys authenticate with their tenant and scopes, and are counted", async () => {
  const a = await t.call("gantry.about", { input: {} }, LEGACY_ACME).expect(200);
  assert.equal(a.body.result.tenant, "acme");
  await t.call("gantry.about", { input: {} }, LEGACY_GLOBEX).expect(200);
  await t.call("key.list", { input: {} }, LEGACY_GLOBEX).expect(403); // authenticated, refused by scope: still counted
  const inspect = await t.call("key.inspect", { input: {} }, LEGACY_ACME).expect(200);
  assert.equal(inspect.body.result.source, "legacy");
  assert.match(inspect.body.result.id, /^key_legacy_/);
  assert.equal(inspect.body.result.name, "old acme app");
  assert.deepEqual(inspect.body.result.collections, ["support"]);
  assert.equal(inspect.body.result.prefix, LEGACY_ACME.slice(0, 4));
  // 2 (acme) + 2 (globex) so far; usage reports arrive every 5 s.
  const list = await eventually(
    async () => {
      const res = await t.call("key.list", { input: {} }).expect(200);
      return res.body.result.legacyRequests === 4 ? res.body.result : undefined;
    },
    20_000,
    250,
  );
  const byName = new Map(list.legacyKeys.map((k: { name: string }) => [k.name, k]));
  assert.equal((byName.get("old acme app") as { requests: number }).requests, 2);
  assert.equal((byName.get("old globex app") as { requests: number }).requests, 2);
  assert.ok((byName.get("old acme app") as { lastUsed: string }).lastUsed);
  assert.ok(!JSON.stringify(list).includes(LEGACY_ACME), "never the secret");
  const filtered = await t.call("key.list", { input: { tenant: "globex" } }).expect(200);
  assert.equal(filtered.body.result.legacyRequests, 2, "the count follows the tenant filter");
  // Tenant keys (legacy or not) do not see the legacy count.
  const own = await t.call("key.list", { input: {} }, LEGACY_ACME).expect(200);
  assert.ok(!("legacyRequests" in own.body.result));
});

test("unknown bearers are refused: malformed gk_ keys without a lookup, other strings after one", async () => {
  await t.call("gantry.about", { input: {} }, "acme-legacy-secret-2019-abcdeX").expect(401);
  await t.call("gantry.about", { input: {} }, "short").expect(401);
  const k = generateKey();
  await t.call("gantry.about", { input: {} }, k.slice(0, -1) + (k.endsWith("a") ? "b" : "a")).expect(401);
});

test("a legacy key issues stored keys within itself, which is how clients migrate", async () => {
  const res = await t
    .call(
      "key.issue",
      { input: { name: "migrated acme app", scopes: ["gantry.about"], collections: ["support"] } },
      LEGACY_ACME,
    )
    .expect(200);
  t.secrets.add(res.body.result.key);
  assert.equal(res.body.result.tenant, "acme");
  const wider = await t.call("key.issue", { input: { name: "wider", scopes: ["memory.*"] } }, LEGACY_ACME).expect(403);
  assert.equal(wider.body.details[0].code, "exceeds_caller");
  await t.call("gantry.about", { input: {} }, res.body.result.key).expect(200);
});

test("legacy keys cannot be revoked or rotated through the API; other tenants do not even see them", async () => {
  const own = (await t.call("key.inspect", { input: {} }, LEGACY_ACME).expect(200)).body.result.id;
  const globexId = (await t.call("key.inspect", { input: {} }, LEGACY_GLOBEX).expect(200)).body.result.id;
  const res = await t.call("key.revoke", { input: { id: own, confirmSelf: true } }, LEGACY_ACME).expect(400);
  assert.equal(res.body.details[0].code, "legacy_key");
  await t.call("key.revoke", { input: { id: globexId } }, LEGACY_ACME).expect(404);
  const admin = await t.call("key.rotate", { input: { id: globexId } }).expect(400);
  assert.equal(admin.body.details[0].code, "legacy_key");
  await t.call("gantry.about", { input: {} }, LEGACY_ACME).expect(200);
});

test("no legacy secret appears in any log", () => {
  assertNoSecretsInLogs(t);
});

/** Starts a keys service process with the stack's dependencies and extra env; resolves with its exit code and stderr. */
function startKeys(extra: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...t.stack.env,
      GRPC_PORT: "0",
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
    };
    delete env.NODE_TEST_CONTEXT;
    delete env.GANTRY_TEST_CLOCK_FILE;
    delete env.GANTRY_LEGACY_KEYS;
    Object.assign(env, extra);
    const child = spawn(process.execPath, ["services/keys/src/main.ts"], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test("a malformed legacy store stops the keys service at start, naming the entry but not the secret", async () => {
  const { code, stderr } = await startKeys({ GANTRY_LEGACY_KEYS: "acme:tiny-secret:*" });
  assert.equal(code, 1);
  assert.match(stderr, /GANTRY_LEGACY_KEYS: entry 1: secret/);
  assert.ok(!stderr.includes("tiny-secret"));
});

test("the test clock outside NODE_ENV=test stops the keys service at start", async () => {
  const { code, stderr } = await startKeys({ GANTRY_TEST_CLOCK_FILE: "/tmp/whatever", NODE_ENV: "production" });
  assert.equal(code, 1);
  assert.match(stderr, /GANTRY_TEST_CLOCK_FILE is set but NODE_ENV is not "test"/);
});
