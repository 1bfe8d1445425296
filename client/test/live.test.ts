/**
 * @gantry/client against a running stack (Postgres, NATS, keys, memory and workspace services, the
 * gateway): one ability of each live area (key, memory, workspace, gateway meta), typed errors with
 * request ids, the retry on 429 honouring retryAfterMs, no retry on 400, and the automatic idempotency
 * key surviving a lost answer; and the built package (dist/) under the system Node 20.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { installBuiltClient } from "./package.ts";
import {
  createClient,
  GantryApiError,
  isGantryApiError,
  type FetchInit,
  type FetchLike,
  type FetchResponse,
  type GantryClient,
  type RetryEvent,
} from "../src/index.ts";

interface Sent {
  url: string;
  body: { input: Record<string, unknown>; context?: unknown };
  status?: number;
  requestId?: string | null;
}

/** The global fetch, recording each request and its answer's status and X-Request-Id. */
function recordingFetch(sent: Sent[]): FetchLike {
  return async (url: string, init: FetchInit): Promise<FetchResponse> => {
    const entry: Sent = { url, body: JSON.parse(init.body) };
    sent.push(entry);
    const res = await fetch(url, init);
    entry.status = res.status;
    entry.requestId = res.headers.get("x-request-id");
    return res;
  };
}

let t: TestStack;
let key: string;

before(async () => {
  t = await startTestStack({ services: ["keys", "memory", "workspace"] });
  ({ key } = await t.insertKey({ tenant: "acme", collections: ["notes"] }));
});
after(async () => t?.stop());

function client(extra: Partial<Parameters<typeof createClient>[0]> = {}): GantryClient {
  return createClient({ baseUrl: t.url, apiKey: key, ...extra });
}

describe("one ability of each live area", () => {
  test("key.inspect (keys service) through the namespace, with the request id of the answer", async () => {
    const sent: Sent[] = [];
    const gantry = client({ fetch: recordingFetch(sent) });
    const me = await gantry.key.inspect();
    assert.equal(me.tenant, "acme");
    assert.deepEqual(me.collections, ["notes"]);

    const meta = await gantry.callWithMeta("key.inspect");
    assert.equal(meta.ability, "key.inspect");
    assert.equal(meta.attempts, 1);
    assert.ok(meta.requestId.length > 0);
    assert.equal(meta.requestId, sent.at(-1)?.requestId);
    assert.ok(meta.duration >= 0);
    assert.equal(meta.idempotencyKey, undefined, "key.inspect is not create-like");
    assert.deepEqual(sent.at(-1)?.body, { input: {} });
    assert.equal(sent.at(-1)?.url, `${t.url}/v1/abilities/key.inspect`);
  });

  test("gantry.about (gateway meta), by call() and by namespace", async () => {
    const gantry = client({ baseUrl: `${t.url}/` });
    const about = await gantry.call("gantry.about", {});
    assert.equal(about.tenant, "acme");
    assert.match(about.version, /^0\.1\.0\+/);
    const again = await gantry.gantry.about();
    assert.equal(again.version, about.version);
  });

  test("memory.save then memory.search (memory service)", async () => {
    const gantry = client();
    const saved = await gantry.memory.save({ text: "The office cat is called Turing.", metadata: { kind: "pet" } });
    assert.equal(saved.collection, "notes");
    assert.equal(saved.action, "created");
    const found = await gantry.memory.search({ query: "office cat name", filter: { kind: "pet" } });
    assert.equal(found.collection, "notes");
    assert.ok(found.hits.some((hit) => hit.id === saved.id && hit.text.includes("Turing")));
  });

  test("contact.create then contact.get (workspace service); create gets an automatic idempotency key", async () => {
    const sent: Sent[] = [];
    const gantry = client({ fetch: recordingFetch(sent) });
    const created = await gantry.callWithMeta("contact.create", { name: "Ada Obi", email: "ada@northwind.example" });
    assert.match(created.idempotencyKey ?? "", /^gc_[0-9a-f-]{36}$/);
    assert.equal(sent[0].body.input.idempotencyKey, created.idempotencyKey);
    assert.match(created.result.id, /^ctc_/);
    const got = await gantry.contact.get({ id: created.result.id });
    assert.equal(got.name, "Ada Obi");
    assert.equal(got.email, "ada@northwind.example");
    assert.equal(sent[1].body.input.idempotencyKey, undefined, "contact.get gets no key");
  });

  test("a caller's own idempotency key is sent as given and returns the first contact again", async () => {
    const gantry = client();
    const first = await gantry.contact.create({ name: "Grace" }, { idempotencyKey: "signup-42" });
    const second = await gantry.callWithMeta("contact.create", { name: "Grace", idempotencyKey: "signup-42" });
    assert.equal(second.idempotencyKey, "signup-42");
    assert.equal(second.result.id, first.id);
  });
});

describe("typed errors", () => {
  test("404 not_found: code, status, message, ability and the request id of the answer", async () => {
    const sent: Sent[] = [];
    const gantry = client({ fetch: recordingFetch(sent) });
    const err = await gantry.contact.get({ id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q" }).then(
      () => assert.fail("expected a 404"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof GantryApiError);
    assert.ok(isGantryApiError(err, "not_found"));
    assert.equal(err.code, "not_found");
    assert.equal(err.status, 404);
    assert.equal(err.ability, "contact.get");
    assert.ok(err.message.length > 0);
    assert.ok(err.requestId.length > 0);
    assert.equal(err.requestId, sent[0].requestId);
    assert.equal(err.attempts, 1);
    assert.equal(sent.length, 1);
  });

  test("404 unknown_ability for an id the API does not have", async () => {
    const gantry = client();
    await assert.rejects(
      gantry.call("contact.nonexistent" as "gantry.about"),
      (e: unknown) => isGantryApiError(e, "unknown_ability") && e.status === 404 && e.requestId.length > 0,
    );
  });

  test("400 validation_failed is not retried and lists every problem with its path", async () => {
    const sent: Sent[] = [];
    const retries: RetryEvent[] = [];
    const gantry = client({ fetch: recordingFetch(sent), onRetry: (e) => retries.push(e) });
    const err = await gantry.contact.create({ email: "not-an-email" } as never).then(
      () => assert.fail("expected a 400"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof GantryApiError);
    assert.equal(err.code, "validation_failed");
    assert.equal(err.status, 400);
    assert.equal(err.requestId, sent[0].requestId);
    assert.ok(Array.isArray(err.details) && err.details.length >= 2, JSON.stringify(err.details));
    assert.ok(err.details.some((d) => d.path.startsWith("/input")));
    assert.equal(sent.length, 1, "a 400 is never retried");
    assert.equal(retries.length, 0);
    assert.equal(err.attempts, 1);
  });

  test("401 unauthorized for a bad key", async () => {
    const gantry = createClient({ baseUrl: t.url, apiKey: () => "gk_not_a_real_key" });
    await assert.rejects(gantry.key.inspect(), (e: unknown) => isGantryApiError(e, "unauthorized") && e.status === 401);
  });
});

describe("retries", () => {
  test("429: waits retryAfterMs (plus jitter) and then succeeds", async () => {
    const limited = await t.insertKey({ tenant: "acme", rateLimit: 1, rateWindowSeconds: 1 });
    const sent: Sent[] = [];
    const retries: RetryEvent[] = [];
    const gantry = createClient({
      baseUrl: t.url,
      apiKey: limited.key,
      fetch: recordingFetch(sent),
      onRetry: (e) => retries.push(e),
    });
    await gantry.gantry.about(); // uses the window's one call
    const started = performance.now();
    const meta = await gantry.callWithMeta("gantry.about");
    const elapsed = performance.now() - started;

    assert.deepEqual(
      sent.map((s) => s.status),
      [200, 429, 200],
    );
    assert.equal(meta.attempts, 2);
    assert.equal(retries.length, 1);
    const refused = retries[0].error;
    assert.ok(isGantryApiError(refused, "rate_limited"));
    assert.equal(refused.status, 429);
    assert.ok(refused.retryAfterMs !== undefined && refused.retryAfterMs > 0 && refused.retryAfterMs <= 1_000);
    assert.ok(retries[0].delayMs >= refused.retryAfterMs, "never shorter than the server's hint");
    assert.ok(elapsed >= refused.retryAfterMs, `waited ${elapsed} ms for a ${refused.retryAfterMs} ms hint`);
    assert.equal(refused.requestId, sent[1].requestId);
    assert.equal(meta.requestId, sent[2].requestId);
  });

  test("429 with maxRetries 0: the rate_limited error with retryAfterMs reaches the caller", async () => {
    const limited = await t.insertKey({ tenant: "acme", rateLimit: 1, rateWindowSeconds: 60 });
    const gantry = createClient({ baseUrl: t.url, apiKey: limited.key, maxRetries: 0 });
    await gantry.key.inspect();
    await assert.rejects(gantry.key.inspect(), (e: unknown) => {
      assert.ok(isGantryApiError(e, "rate_limited"));
      assert.ok(e.retryAfterMs !== undefined && e.retryAfterMs > 1_000);
      assert.equal(e.attempts, 1);
      return true;
    });
  });

  test("a wait beyond maxRetryWaitMs is not taken: the 429 is thrown at once", async () => {
    const limited = await t.insertKey({ tenant: "acme", rateLimit: 1, rateWindowSeconds: 60 });
    const gantry = createClient({ baseUrl: t.url, apiKey: limited.key, maxRetryWaitMs: 5_000 });
    await gantry.key.inspect();
    const started = performance.now();
    await assert.rejects(gantry.key.inspect(), (e: unknown) => isGantryApiError(e, "rate_limited"));
    assert.ok(performance.now() - started < 2_000);
  });

  test("a create whose answer is lost is resent with the same idempotency key: one contact", async () => {
    const name = `Lost Answer ${Date.now()}`;
    const sent: Sent[] = [];
    let firstAnswer: { status: number; body: unknown } | undefined;
    const record = recordingFetch(sent);
    const losing: FetchLike = async (url, init) => {
      const res = await record(url, init);
      if (firstAnswer === undefined && url.endsWith("/contact.create")) {
        // The request reached the server and the contact was created; the answer never arrives.
        firstAnswer = { status: res.status, body: JSON.parse(await res.text()) };
        throw new TypeError("fetch failed", { cause: new Error("socket hang up") });
      }
      return res;
    };
    const retries: RetryEvent[] = [];
    const gantry = client({ fetch: losing, onRetry: (e) => retries.push(e) });
    const meta = await gantry.callWithMeta("contact.create", { name });

    assert.ok(firstAnswer, "the first attempt reached the server");
    assert.equal(firstAnswer.status, 200);
    assert.equal(meta.attempts, 2);
    assert.equal(retries.length, 1);
    assert.equal(retries[0].error.name, "GantryConnectionError");
    const keys = sent.filter((s) => s.url.endsWith("/contact.create")).map((s) => s.body.input.idempotencyKey);
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1], "both attempts carry the same key");
    assert.equal(keys[0], meta.idempotencyKey);
    assert.equal(meta.result.id, (firstAnswer.body as { result: { id: string } }).result.id);

    const list = await client().contact.list({ query: name });
    assert.equal(list.items.length, 1, "one contact, not two");
  });

  test("without a key (autoIdempotencyKeys false) a lost create is not resent", async () => {
    const name = `Not Resent ${Date.now()}`;
    let calls = 0;
    const losing: FetchLike = async (url, init) => {
      calls++;
      await (await fetch(url, init)).text();
      throw new TypeError("fetch failed");
    };
    const gantry = client({ fetch: losing, autoIdempotencyKeys: false });
    await assert.rejects(gantry.contact.create({ name }), (e: unknown) => {
      assert.equal((e as Error).name, "GantryConnectionError");
      return true;
    });
    assert.equal(calls, 1);
    const list = await client().contact.list({ query: name });
    assert.equal(list.items.length, 1, "it was created once; the caller decides what to do");
  });
});

/** What node20-script.mjs does with the built package, run by the system Node (20 on Debian 13). */
const NODE20_SCRIPT = `
import { createClient, GantryApiError, isGantryApiError } from "@gantry/client";
const out = { node: process.version };
const gantry = createClient({ baseUrl: process.env.GANTRY_URL, apiKey: process.env.GANTRY_KEY });
out.about = (await gantry.gantry.about()).tenant;
out.inspect = (await gantry.key.inspect()).tenant;
const created = await gantry.callWithMeta("contact.create", { name: "Built on Node 20" });
out.created = { id: created.result.id, key: created.idempotencyKey, requestId: created.requestId };
out.got = (await gantry.contact.get({ id: created.result.id })).name;
out.saved = (await gantry.memory.save({ text: "Saved from Node " + process.version })).action;
out.found = (await gantry.memory.search({ query: "saved from node" })).hits.length;
try {
  await gantry.contact.get({ id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q" });
} catch (err) {
  out.error = { isApiError: err instanceof GantryApiError, code: err.code, status: err.status, requestId: err.requestId };
}
const limited = createClient({ baseUrl: process.env.GANTRY_URL, apiKey: process.env.GANTRY_LIMITED_KEY });
await limited.gantry.about();
const retried = await limited.callWithMeta("gantry.about");
out.retried = retried.attempts;
const quick = createClient({ baseUrl: process.env.GANTRY_URL, apiKey: process.env.GANTRY_KEY, timeoutMs: 1 });
try {
  await quick.contact.update({ id: "ctc_1", name: "x" });
} catch (err) {
  out.timeout = { name: err.name, timedOut: err.timedOut };
}
out.notThenable = (await Promise.resolve(gantry.contact)) === gantry.contact;
out.isGantryApiError = isGantryApiError(new Error("x"));
process.stdout.write(JSON.stringify(out));
`;

describe("the built package under the system Node 20", () => {
  const systemNode = "/usr/bin/node";
  const skip = fs.existsSync(systemNode) ? false : `${systemNode} is not installed`;
  let dir: string;
  before(() => {
    if (skip) return;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-client-node20-"));
    installBuiltClient(dir);
    fs.writeFileSync(path.join(dir, "node20-script.mjs"), NODE20_SCRIPT);
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  test("dist/ imported by name calls every live area, throws typed errors and retries a 429", { skip }, async (ctx) => {
    const limited = await t.insertKey({ tenant: "acme", rateLimit: 1, rateWindowSeconds: 1 });
    const { stdout: version } = await promisify(execFile)(systemNode, ["--version"]);
    ctx.diagnostic(`system node ${version.trim()}`);
    const { stdout } = await promisify(execFile)(systemNode, [path.join(dir, "node20-script.mjs")], {
      cwd: dir,
      env: { PATH: process.env.PATH, GANTRY_URL: t.url, GANTRY_KEY: key, GANTRY_LIMITED_KEY: limited.key },
    });
    const out = JSON.parse(stdout);
    assert.equal(out.node, version.trim());
    assert.equal(out.about, "acme");
    assert.equal(out.inspect, "acme");
    assert.match(out.created.id, /^ctc_/);
    assert.match(out.created.key, /^gc_/);
    assert.ok(out.created.requestId.length > 0);
    assert.equal(out.got, "Built on Node 20");
    assert.equal(out.saved, "created");
    assert.ok(out.found >= 1);
    assert.deepEqual(
      { ...out.error, requestId: typeof out.error.requestId },
      { isApiError: true, code: "not_found", status: 404, requestId: "string" },
    );
    assert.ok(out.error.requestId.length > 0);
    assert.equal(out.retried, 2);
    assert.deepEqual(out.timeout, { name: "GantryConnectionError", timedOut: true });
    assert.equal(out.notThenable, true);
    assert.equal(out.isGantryApiError, false);
  });
});
