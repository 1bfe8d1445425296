/**
 * Runs and permits through the whole stack (gateway + keys + trust + workspace as separate
 * processes, real API keys, results checked against the catalogue by the gateway): a permitted
 * call runs once and its replay is refused; 20 concurrent uses of one permit run exactly one call;
 * another input, another ability, another key, another tenant, an unknown or expired run are each
 * refused with the reason named; the receipt of a call verifies offline (scripts/verify.ts, with the
 * gateway's JWKS) and a tampered one does not; an observed claim needs a receipt of the tenant; a
 * tenant policy requires a run for chosen abilities; MCP tool calls are held to the same permits;
 * the log's growth verifies offline from a kept checkpoint, and a leaf rewritten in the database is
 * refused by the service (no checkpoint signed over it) and caught offline by the kept checkpoint.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import request from "supertest";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { canonicalJson, repoRoot, sha256Hex } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { leafHash, rootHash } from "../merkle.ts";

const exec = promisify(execFile);
let t: TestStack;
let dir: string;
let clockFile: string;
let alice: string;
let bob: string;
let beta: string;
let strict: string;
let ledger: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "gantry-trust-e2e-"));
  clockFile = join(dir, "clock");
  writeFileSync(clockFile, "0");
  t = await startTestStack({
    services: ["keys", "trust", "workspace"],
    healthTimeoutMs: 120_000,
    env: {
      NODE_ENV: "test",
      GANTRY_TEST_CLOCK_FILE: clockFile,
      GANTRY_RUN_REQUIRED: JSON.stringify({ strict: ["contact.*"] }),
    },
  });
  [alice, bob, beta, strict, ledger] = (
    await Promise.all([
      t.insertKey({ tenant: "acme", name: "alice" }),
      t.insertKey({ tenant: "acme", name: "bob" }),
      t.insertKey({ tenant: "beta", name: "beta" }),
      t.insertKey({ tenant: "strict", name: "strict" }),
      t.insertKey({ tenant: "ledger", name: "ledger" }),
    ])
  ).map((k) => k.key);
});
after(async () => {
  await t?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ok(ability: string, body: unknown, key: string): Promise<any> {
  const res = await t.call(ability, body, key);
  assert.equal(res.status, 200, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

async function preflight(actions: { ability: string; input: Record<string, unknown> }[], key = alice) {
  return ok("trust.preflight", { input: { task: "Record the new customer", actions } }, key);
}

function refusedWith(res: request.Response, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.details?.[0]?.code, code, JSON.stringify(res.body));
  assert.ok(res.body.reason, "the refusal says what to do");
}

test("a permitted call runs once; its replay is refused as a replay; trust.status shows the permit used", async () => {
  const input = { name: "Ada Lovelace", email: "ada@example.com" };
  const run = await preflight([{ ability: "contact.create", input }]);
  assert.match(run.id, /^run_/);
  assert.equal(run.status, "active");
  assert.equal(run.permits.length, 1);
  assert.equal(run.permits[0].status, "issued");
  assert.equal(run.permits[0].inputHash, sha256Hex(canonicalJson(input)));

  const first = await t.call("contact.create", { input, context: { runId: run.id } }, alice);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const replay = await t.call("contact.create", { input, context: { runId: run.id } }, alice);
  refusedWith(replay, 403, "permit_used");

  const status = await ok("trust.status", { input: { runId: run.id } }, alice);
  assert.equal(status.status, "exhausted");
  const [permit] = status.permits;
  assert.equal(permit.status, "used");
  assert.ok(permit.used);
  assert.equal(permit.receipt.requestId, first.headers["x-request-id"]);
  assert.equal(permit.receipt.outcome, "succeeded");
  assert.equal(permit.receipt.resultHash, sha256Hex(canonicalJson(first.body.result)));
  assert.equal(permit.receipt.inputHash, permit.inputHash);
});

test("20 concurrent calls holding one permit: exactly one runs", async () => {
  const input = { name: "Grace Hopper", email: "grace@example.com" };
  const run = await preflight([{ ability: "contact.create", input }]);
  const results = await Promise.all(
    Array.from({ length: 20 }, () => t.call("contact.create", { input, context: { runId: run.id } }, alice)),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, JSON.stringify(statuses));
  for (const r of results.filter((r) => r.status !== 200)) refusedWith(r, 403, "permit_used");
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM workspace.contacts WHERE email = $1`, [
    "grace@example.com",
  ]);
  assert.equal(rows[0].n, 1, "one contact was created");
});

test("an input differing by one byte, another ability, another key or tenant, an unknown run: each refused by name", async () => {
  const input = { name: "Alan Turing" };
  const run = await preflight([{ ability: "contact.create", input }]);
  const call = (body: unknown, key = alice, ability = "contact.create") => t.call(ability, body, key);

  refusedWith(await call({ input: { name: "Alan Turinh" }, context: { runId: run.id } }), 403, "permit_input_mismatch");
  refusedWith(
    await call({ input: { query: "x" }, context: { runId: run.id } }, alice, "contact.list"),
    403,
    "permit_missing",
  );
  refusedWith(await call({ input, context: { runId: run.id } }, bob), 403, "run_other_key");
  refusedWith(await call({ input, context: { runId: run.id } }, beta), 404, "run_not_found");
  refusedWith(await call({ input, context: { runId: "run_01JAAAAAAAAAAAAAAAAAAAAAAA" } }), 404, "run_not_found");
  // Another tenant cannot read the run either.
  const other = await t.call("trust.status", { input: { runId: run.id } }, beta);
  assert.equal(other.status, 404);
  // None of the refusals used the permit.
  assert.equal((await call({ input, context: { runId: run.id } })).status, 200);
});

test("a call that fails under a run still uses its permit and gets a receipt saying it failed", async () => {
  const input = { id: "ctc_01JAAAAAAAAAAAAAAAAAAAAAAA" };
  const run = await preflight([{ ability: "contact.get", input }]);
  const res = await t.call("contact.get", { input, context: { runId: run.id } }, alice);
  assert.equal(res.status, 404);
  const status = await ok("trust.status", { input: { runId: run.id } }, alice);
  assert.equal(status.permits[0].status, "used");
  assert.equal(status.permits[0].receipt.outcome, "failed");
  assert.equal(status.permits[0].receipt.status, 404);
  assert.equal(status.permits[0].receipt.resultHash, null);
});

test("a permit is refused once its run has expired, and shows as expired", async () => {
  const input = { name: "Expired Person" };
  const run = await preflight([{ ability: "contact.create", input }]);
  writeFileSync(clockFile, String(2 * 3600 * 1000));
  try {
    refusedWith(await t.call("contact.create", { input, context: { runId: run.id } }, alice), 403, "run_expired");
    const status = await ok("trust.status", { input: { runId: run.id } }, alice);
    assert.equal(status.status, "expired");
    assert.equal(status.permits[0].status, "expired");
  } finally {
    writeFileSync(clockFile, "0");
  }
});

test("preflight refuses an action whose input its ability would refuse, naming the action", async () => {
  const res = await t.call(
    "trust.preflight",
    { input: { task: "bad", actions: [{ ability: "contact.create", input: { nickname: "x" } }] } },
    alice,
  );
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.ok(res.body.details.every((d: { path: string }) => d.path.startsWith("/input/actions/0/input")));
  assert.equal(res.body.details[0].code, "action_invalid");
  const unknown = await t.call(
    "trust.preflight",
    { input: { task: "bad", actions: [{ ability: "contact.explode", input: {} }] } },
    alice,
  );
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.details[0].path, "/input/actions/0/ability");
});

test("a receipt verifies offline with the JWKS; a tampered receipt does not", async () => {
  const input = { name: "Verified Person" };
  const run = await preflight([{ ability: "contact.create", input }]);
  await ok("contact.create", { input, context: { runId: run.id } }, alice);
  const { permits } = await ok("trust.status", { input: { runId: run.id } }, alice);
  const receipt = permits[0].receipt;
  assert.ok(receipt.inclusion, "the receipt carries an inclusion proof");
  assert.match(receipt.inclusion.checkpoint, /^gantry\.trust\/receipts\/acme\n\d+\n/);

  const jwks = await request(t.url).get("/.well-known/jwks.json");
  assert.equal(jwks.status, 200);
  const jwksFile = join(dir, "jwks.json");
  writeFileSync(jwksFile, jwks.text);
  const script = join(repoRoot(), "services", "trust", "scripts", "verify.ts");
  const verify = async (r: unknown) => {
    const file = join(dir, `receipt-${Math.random()}.json`);
    writeFileSync(file, JSON.stringify(r));
    return exec(process.execPath, [script, file, jwksFile]).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
  };
  const good = await verify(receipt);
  assert.equal(good.code, 0, good.stdout);
  assert.match(good.stdout, /receipt verified/);

  const tamperedResult = { ...receipt, resultHash: "0".repeat(64) };
  const bad = await verify(tamperedResult);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /FAIL {2}statement: differs from the receipt in predicate\.resultHash/);

  const payload = JSON.parse(Buffer.from(receipt.envelope.payload, "base64").toString());
  payload.predicate.status = 201;
  const forged = {
    ...receipt,
    envelope: { ...receipt.envelope, payload: Buffer.from(JSON.stringify(payload)).toString("base64") },
  };
  const badSig = await verify(forged);
  assert.equal(badSig.code, 1);
  assert.match(badSig.stdout, /FAIL {2}signature: the signature does not verify/);
  assert.match(badSig.stdout, /FAIL {2}inclusion:/);
});

test("the log's growth verifies offline from a kept checkpoint; a leaf rewritten in the database is refused and caught", async () => {
  const inputs = Array.from({ length: 6 }, (_, i) => ({ name: `Ledger Person ${i}` }));
  const run = await preflight(
    inputs.map((input) => ({ ability: "contact.create", input })),
    ledger,
  );
  const callUnderRun = (i: number) => ok("contact.create", { input: inputs[i], context: { runId: run.id } }, ledger);
  for (let i = 0; i < 3; i++) await callUnderRun(i);
  const status = async (logFromSize?: number) =>
    (await ok("trust.status", { input: { runId: run.id, logFromSize } }, ledger)).log;
  const three = await status();
  assert.equal(three.treeSize, 3);
  assert.equal(three.origin, "gantry.trust/receipts/ledger");
  assert.equal(three.consistency, null);
  // The checkpoint is remembered: the same note again, stored with its size and root.
  assert.equal((await status()).checkpoint, three.checkpoint);
  const stored = await t.db.query(`SELECT size, root_hash FROM trust.checkpoints WHERE tenant = 'ledger'`);
  assert.deepEqual(stored.rows, [{ size: 3, root_hash: three.rootHash }]);

  const jwksFile = join(dir, "ledger-jwks.json");
  writeFileSync(jwksFile, (await request(t.url).get("/.well-known/jwks.json")).text);
  const script = join(repoRoot(), "services", "trust", "scripts", "verify.ts");
  const verifyGrowth = async (kept: string, answer: unknown) => {
    const keptFile = join(dir, `kept-${Math.random()}.txt`);
    const answerFile = join(dir, `log-${Math.random()}.json`);
    writeFileSync(keptFile, kept);
    writeFileSync(answerFile, JSON.stringify(answer));
    return exec(process.execPath, [script, "consistency", keptFile, answerFile, jwksFile]).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
  };
  await callUnderRun(3);
  const four = await status(3);
  assert.equal(four.treeSize, 4);
  assert.equal(four.consistency.fromSize, 3);
  const grew = await verifyGrowth(three.checkpoint, four);
  assert.equal(grew.code, 0, grew.stdout);
  assert.match(grew.stdout, /ok {4}consistency: the log at 4 extends the checkpoint of 3/);
  const beyond = await t.call("trust.status", { input: { runId: run.id, logFromSize: 5 } }, ledger);
  refusedWith(beyond, 400, "maximum");

  // An attacker with database access rewrites receipt 1's leaf, and the stored hashes above it up to
  // the tree of 4 (as a careful forger would: a leaf alone breaks its neighbours' proofs); the log
  // then grows.
  await t.db.query(`UPDATE trust.receipts SET leaf_hash = $1 WHERE tenant = 'ledger' AND log_index = 1`, [
    sha256Hex("forged receipt"),
  ]);
  // The leaves are the receipts' leaf_hash; log_nodes holds the levels above.
  const node = (level: number, idx: number) =>
    level === 0
      ? `(SELECT decode(leaf_hash, 'hex') FROM trust.receipts WHERE tenant = 'ledger' AND log_index = ${idx})`
      : `(SELECT hash FROM trust.log_nodes WHERE tenant = 'ledger' AND level = ${level} AND idx = ${idx})`;
  const rehash = (level: number, idx: number) =>
    `UPDATE trust.log_nodes SET hash = sha256('\\x01'::bytea || ${node(level - 1, 2 * idx)} || ${node(level - 1, 2 * idx + 1)})
      WHERE tenant = 'ledger' AND level = ${level} AND idx = ${idx}`;
  await t.db.query(rehash(1, 0));
  await t.db.query(rehash(2, 0));
  await callUnderRun(4);
  // (a) The service checks the stored log against the checkpoint of 4 it signed and signs nothing.
  for (const res of [
    await t.call("trust.status", { input: { runId: run.id } }, ledger),
    await t.call("trust.status", { input: { runId: run.id, logFromSize: 4 } }, ledger),
  ]) {
    assert.equal(res.status, 500, JSON.stringify(res.body));
    assert.doesNotMatch(JSON.stringify(res.body), /rewritten|checkpoint|leaves/);
  }
  assert.match(
    t.stack.logs(),
    /trust log of ledger was rewritten, refusing to sign a checkpoint: the first 4 leaves no longer have the root/,
  );
  const sizes = await t.db.query(`SELECT size FROM trust.checkpoints WHERE tenant = 'ledger' ORDER BY size`);
  assert.deepEqual(
    sizes.rows.map((r) => r.size),
    [3, 4],
  );

  // (b) The attacker also deletes the remembered checkpoints: the service, knowing no history,
  // signs the rewritten log, and the client's kept checkpoint of 4 fails to verify against it.
  await t.db.query(`DELETE FROM trust.checkpoints WHERE tenant = 'ledger'`);
  const forged = await status(4);
  assert.equal(forged.treeSize, 5);
  const caught = await verifyGrowth(four.checkpoint, forged);
  assert.equal(caught.code, 1, caught.stdout);
  assert.match(caught.stdout, /FAIL {2}consistency: the log at 5 does not extend the checkpoint of 4/);
  assert.match(caught.stdout, /log consistency NOT verified/);
});

test("an observed claim needs receipts of the tenant; other labels do not", async () => {
  const input = { name: "Claimed Person" };
  const run = await preflight([{ ability: "contact.create", input }]);
  const created = await t.call("contact.create", { input, context: { runId: run.id } }, alice);
  const receiptId = created.headers["x-request-id"];

  const published = await ok(
    "trust.publish",
    {
      input: {
        claims: [
          { text: "Claimed Person is a contact", status: "observed", receiptIds: [receiptId] },
          { text: "They will buy", status: "inference" },
        ],
      },
      context: { runId: run.id },
    },
    alice,
  );
  assert.deepEqual(published.counts, { observed: 1, inference: 1, unverified: 0 });
  assert.equal(published.runId, run.id);
  assert.equal(published.claims[0].receipts[0].requestId, receiptId);

  // Beta cannot cite acme's receipt, nor a request id that is no receipt.
  const foreign = await t.call(
    "trust.publish",
    { input: { claims: [{ text: "I saw it", status: "observed", receiptIds: [receiptId] }] } },
    beta,
  );
  refusedWith(foreign, 400, "receipt_not_found");
  assert.match(foreign.body.error, /Claim 0/);
  const bare = await t.call("trust.publish", { input: { claims: [{ text: "I saw it", status: "observed" }] } }, alice);
  refusedWith(bare, 400, "receipt_required");

  // Preflight claims are observed: they must cite receipts too.
  const withClaim = await ok(
    "trust.preflight",
    { input: { task: "follow up", claims: [{ text: "Claimed Person exists", receiptIds: [receiptId] }] } },
    alice,
  );
  assert.equal(withClaim.claims[0].status, "observed");
  assert.equal(withClaim.claims[0].receipts[0].requestId, receiptId);
  const noReceipt = await t.call(
    "trust.preflight",
    { input: { task: "follow up", claims: [{ text: "x", receiptIds: ["req_01JAAAAAAAAAAAAAAAAAAAAAAA"] }] } },
    alice,
  );
  refusedWith(noReceipt, 400, "receipt_not_found");
});

test("a tenant policy requires a run for chosen abilities", async () => {
  const input = { name: "Strict Person" };
  refusedWith(await t.call("contact.create", { input }, strict), 403, "run_required");
  // Abilities the policy does not name are unaffected.
  assert.equal((await t.call("task.list", { input: {} }, strict)).status, 200);
  const run = await preflight([{ ability: "contact.create", input }], strict);
  assert.equal((await t.call("contact.create", { input, context: { runId: run.id } }, strict)).status, 200);
});

test("MCP tool calls carrying the run in _meta are held to the same single-use permits", async () => {
  const input = { name: "Mcp Person" };
  const run = await preflight([{ ability: "contact.create", input }]);
  const client = new McpClient({ name: "trust-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${alice}` } },
    }),
  );
  try {
    const call = () =>
      client.callTool({
        name: "contact.create",
        arguments: input,
        _meta: { "gantry/context": { runId: run.id } },
      }) as Promise<{
        isError?: boolean;
        content: { text?: string }[];
      }>;
    const first = await call();
    assert.ok(!first.isError, JSON.stringify(first));
    const replay = await call();
    assert.equal(replay.isError, true);
    assert.equal(JSON.parse(replay.content[0]!.text!).details[0].code, "permit_used");
  } finally {
    await client.close();
  }
});

test("with the trust service down, calls under a run fail closed (503); calls without one still run", async () => {
  const input = { name: "Outage Person" };
  const run = await preflight([{ ability: "contact.create", input }]);
  await t.stack.stopService("trust");
  try {
    const res = await t.call("contact.create", { input, context: { runId: run.id } }, alice);
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.ok(res.body.retryAfterMs > 0);
    assert.match(res.body.error, /trust service is unavailable/);
    assert.equal((await t.call("contact.create", { input: { name: "No run needed" } }, alice)).status, 200);
  } finally {
    await t.stack.startService("trust");
  }
  // The refused call did not use the permit (retried while the gateway reconnects).
  const after = await eventually(async () => {
    const r = await t.call("contact.create", { input, context: { runId: run.id } }, alice);
    return r.status === 503 ? null : r;
  });
  assert.equal(after.status, 200, JSON.stringify(after.body));
});

test("concurrent receipts land at distinct indexes; the log is served as C2SP tlog-tiles without a key", async () => {
  const key = (await t.insertKey({ tenant: "tiled", name: "tiled" })).key;
  const inputs = Array.from({ length: 12 }, (_, i) => ({ name: `Tiled Person ${i}` }));
  const run = await preflight(
    inputs.map((input) => ({ ability: "contact.create", input })),
    key,
  );
  // All at once: the appends of one tenant go in batches, each receipt at its own index.
  await Promise.all(inputs.map((input) => ok("contact.create", { input, context: { runId: run.id } }, key)));
  const status = await ok("trust.status", { input: { runId: run.id } }, key);
  const receipts = status.permits.map((p: any) => p.receipt);
  assert.deepEqual(
    receipts.map((r: any) => r.inclusion.logIndex).sort((a: number, b: number) => a - b),
    [...Array(12).keys()],
  );
  const { logId, checkpoint, treeSize, rootHash: root } = status.log;
  assert.equal(treeSize, 12);
  assert.match(logId, /^[0-9a-f]{32}$/);

  const get = (path: string) =>
    request(t.url)
      .get(`/v1/logs/${logId}/${path}`)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => cb(null, Buffer.concat(chunks)));
      });
  const cp = await get("checkpoint").expect(200);
  assert.equal(cp.body.toString(), checkpoint);
  assert.match(cp.headers["cache-control"], /max-age=5/);
  const tile = await get("tile/0/000.p/12").expect(200);
  assert.match(tile.headers["cache-control"], /immutable/);
  assert.equal(tile.body.length, 12 * 32);
  const leaves = Array.from({ length: 12 }, (_, i) => tile.body.subarray(32 * i, 32 * i + 32));
  assert.equal(rootHash(leaves).toString("hex"), root, "the tile's leaf hashes make the checkpoint's root");
  const bundle = (await get("tile/entries/000.p/12").expect(200)).body;
  const entries: Buffer[] = [];
  for (let at = 0; at < bundle.length; ) {
    const len = bundle.readUInt16BE(at);
    entries.push(bundle.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  assert.equal(entries.length, 12);
  entries.forEach((e, i) => {
    assert.deepEqual(leafHash(e), leaves[i], `entry ${i} is the leaf data of tile 0's hash ${i}`);
  });
  for (const r of receipts)
    assert.deepEqual(JSON.parse(entries[r.inclusion.logIndex]!.toString()), r.envelope, "the entry is the receipt");

  // A tile wider than the log, a full tile not yet complete, a path off the spec, an unknown log: 404.
  refusedWith(await request(t.url).get(`/v1/logs/${logId}/tile/0/000.p/13`), 404, "log_resource_not_found");
  refusedWith(await request(t.url).get(`/v1/logs/${logId}/tile/0/000`), 404, "log_resource_not_found");
  refusedWith(await request(t.url).get(`/v1/logs/${logId}/tile/0/0`), 404, "log_resource_not_found");
  refusedWith(await request(t.url).get(`/v1/logs/${"0".repeat(32)}/checkpoint`), 404, "log_not_found");
});
