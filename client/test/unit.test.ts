/**
 * @gantry/client without a server: a scripted `fetch` answers, so the paths a live stack cannot
 * produce on demand (503 with Retry-After, timeouts, aborts, a proxy's HTML 502) are covered.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  createClient,
  GantryApiError,
  GantryConnectionError,
  isGantryApiError,
  newIdempotencyKey,
  parseRetryAfter,
  type FetchInit,
  type FetchLike,
  type RetryEvent,
} from "../src/index.ts";

type Step = { status: number; body?: unknown; headers?: Record<string, string> } | Error | "hang";

/** A fetch that plays `steps` in order and records the requests. */
function scripted(steps: Step[]): FetchLike & { requests: { url: string; init: FetchInit }[] } {
  const requests: { url: string; init: FetchInit }[] = [];
  const fn = async (url: string, init: FetchInit) => {
    requests.push({ url, init });
    const step = steps.shift();
    if (step === undefined) throw new Error("scripted fetch: no more steps");
    if (step === "hang") {
      return new Promise<never>((_, reject) => {
        init.signal.addEventListener("abort", () => reject(init.signal.reason ?? new Error("aborted")));
      });
    }
    if (step instanceof Error) throw step;
    const text = typeof step.body === "string" ? step.body : JSON.stringify(step.body ?? "");
    const headers = new Headers(step.headers);
    return { status: step.status, headers, text: async () => text };
  };
  return Object.assign(fn, { requests });
}

const ok = (result: unknown, requestId = "req_ok") => ({
  status: 200,
  body: { ok: true, ability: "gantry.about", result, duration: 0.5 },
  headers: { "X-Request-Id": requestId },
});
const failure = (status: number, code: string, extra: Record<string, unknown> = {}, headers = {}) => ({
  status,
  body: { ok: false, error: `${code} happened`, code, requestId: `req_${status}`, ...extra },
  headers: { "X-Request-Id": `req_${status}`, ...headers },
});

const base = { baseUrl: "http://gantry.test", apiKey: "gk_test" };

describe("requests", () => {
  test("POST /v1/abilities/{id} with bearer key, JSON body {input, context}", async () => {
    const fetch = scripted([ok({ version: "1" })]);
    const gantry = createClient({ ...base, fetch, headers: { "X-Trace": "t1" } });
    const meta = await gantry.callWithMeta("gantry.about", {}, { context: { runId: "run_1" } });
    assert.equal(meta.requestId, "req_ok");
    assert.equal(meta.duration, 0.5);
    const [{ url, init }] = fetch.requests;
    assert.equal(url, "http://gantry.test/v1/abilities/gantry.about");
    assert.equal(init.method, "POST");
    assert.equal(init.headers.Authorization, "Bearer gk_test");
    assert.equal(init.headers["Content-Type"], "application/json");
    assert.equal(init.headers["X-Trace"], "t1");
    assert.deepEqual(JSON.parse(init.body), { input: {}, context: { runId: "run_1" } });
  });

  test("the namespace builds ids from property names, and is not a thenable", async () => {
    const fetch = scripted([ok({}), ok({})]);
    const gantry = createClient({ ...base, fetch });
    await gantry.workspace.doc.read({ id: "doc_1" });
    await gantry.qa.checklist.create({ title: "Release", scope: "v2" });
    assert.deepEqual(
      fetch.requests.map((r) => r.url.slice(r.url.lastIndexOf("/") + 1)),
      ["workspace.doc.read", "qa.checklist.create"],
    );
    assert.equal(gantry.contact, gantry.contact, "namespaces are cached");
    assert.equal((gantry.contact as unknown as { then?: unknown }).then, undefined);
    assert.equal(await Promise.resolve(gantry.contact), gantry.contact);
    assert.equal(JSON.stringify({ c: gantry.contact }), "{}");
    assert.equal(fetch.requests.length, 2, "nothing else was called");
  });

  test("input is not mutated; idempotency keys: automatic, given in options, given in input, conflicting", async () => {
    const fetch = scripted([ok({}), ok({}), ok({})]);
    const gantry = createClient({ ...base, fetch });
    const input = { title: "Call back" };
    const a = await gantry.callWithMeta("task.create", input);
    assert.deepEqual(input, { title: "Call back" });
    assert.match(a.idempotencyKey ?? "", /^gc_/);
    const b = await gantry.callWithMeta("task.create", input, { idempotencyKey: "k1" });
    assert.equal(b.idempotencyKey, "k1");
    const c = await gantry.callWithMeta("task.create", { ...input, idempotencyKey: "k2" }, { idempotencyKey: "k2" });
    assert.equal(c.idempotencyKey, "k2");
    assert.deepEqual(
      fetch.requests.map((r) => JSON.parse(r.init.body).input.idempotencyKey),
      [a.idempotencyKey, "k1", "k2"],
    );
    await assert.rejects(
      gantry.task.create({ ...input, idempotencyKey: "x" }, { idempotencyKey: "y" }),
      /idempotencyKey and options.idempotencyKey differ/,
    );
  });

  test("bad options are refused at once", () => {
    assert.throws(() => createClient({ baseUrl: "gantry.test", apiKey: "k" }), /baseUrl/);
    assert.throws(() => createClient({ baseUrl: "http://x", apiKey: "" }), /apiKey/);
    assert.throws(() => createClient({ ...base, maxRetries: -1 }), /maxRetries/);
  });
});

describe("errors", () => {
  test("an ErrorResponse becomes a GantryApiError with every field", async () => {
    const details = [{ path: "/input/name", message: "must have required property 'name'", code: "required" }];
    const fetch = scripted([failure(400, "validation_failed", { ability: "contact.create", details, reason: "r" })]);
    const gantry = createClient({ ...base, fetch });
    const err = await gantry.contact.create({ name: "" }).catch((e: unknown) => e);
    assert.ok(err instanceof GantryApiError);
    assert.equal(err.name, "GantryApiError");
    assert.equal(err.code, "validation_failed");
    assert.equal(err.status, 400);
    assert.equal(err.message, "validation_failed happened");
    assert.equal(err.ability, "contact.create");
    assert.equal(err.reason, "r");
    assert.deepEqual(err.details, details);
    assert.equal(err.requestId, "req_400");
    assert.equal(err.retryable, false);
  });

  test("a non-Gantry answer (a proxy's HTML 502) gets the code of its status and the header's request id", async () => {
    const fetch = scripted([{ status: 502, body: "<html>Bad gateway</html>", headers: { "X-Request-Id": "px" } }]);
    const err = await createClient({ ...base, fetch })
      .gantry.about()
      .catch((e: unknown) => e);
    assert.ok(isGantryApiError(err, "upstream_failed"));
    assert.equal(err.status, 502);
    assert.equal(err.requestId, "px");
    assert.equal(err.body, "<html>Bad gateway</html>");
  });

  test("a 200 that is not an envelope is an error, not a result", async () => {
    const fetch = scripted([{ status: 200, body: { hello: "world" } }]);
    await assert.rejects(createClient({ ...base, fetch }).gantry.about(), (e: unknown) =>
      isGantryApiError(e, "internal"),
    );
  });
});

describe("retries", () => {
  test("503 with only Retry-After (seconds) is retried after that long", async () => {
    const fetch = scripted([failure(503, "unavailable", {}, { "Retry-After": "0.2" }), ok({ v: 1 })]);
    const events: RetryEvent[] = [];
    const gantry = createClient({ ...base, fetch, onRetry: (e) => events.push(e) });
    const started = performance.now();
    const meta = await gantry.callWithMeta("contact.update", { id: "ctc_1", name: "B" });
    assert.equal(meta.attempts, 2);
    assert.ok(performance.now() - started >= 200);
    assert.equal(events[0].attempt, 1);
    assert.ok(events[0].delayMs >= 200);
    assert.ok(isGantryApiError(events[0].error, "unavailable"));
  });

  test("gives up after maxRetries, with the last error and its attempt count", async () => {
    const fetch = scripted([
      failure(429, "rate_limited", { retryAfterMs: 10 }),
      failure(429, "rate_limited", { retryAfterMs: 10 }),
      failure(429, "rate_limited", { retryAfterMs: 10 }),
    ]);
    const err = await createClient({ ...base, fetch })
      .gantry.about()
      .catch((e: unknown) => e);
    assert.ok(isGantryApiError(err, "rate_limited"));
    assert.equal(err.attempts, 3);
    assert.equal(fetch.requests.length, 3);
  });

  test("never retries other statuses (409, 500, 502, 504)", async () => {
    for (const [status, code] of [
      [409, "conflict"],
      [500, "internal"],
      [502, "upstream_failed"],
      [504, "timeout"],
    ] as const) {
      const fetch = scripted([failure(status, code), ok({})]);
      await assert.rejects(createClient({ ...base, fetch }).contact.get({ id: "c" }), (e: unknown) =>
        isGantryApiError(e, code),
      );
      assert.equal(fetch.requests.length, 1, `${status} was retried`);
    }
  });

  test("network failures: read-only and keyed calls are resent, others are not", async () => {
    const down = () => new TypeError("fetch failed");
    const read = scripted([down(), ok({})]);
    assert.equal((await createClient({ ...base, fetch: read }).callWithMeta("contact.get", { id: "c" })).attempts, 2);

    const update = scripted([down(), ok({})]);
    await assert.rejects(
      createClient({ ...base, fetch: update }).contact.update({ id: "c", name: "n" }),
      (e: unknown) => {
        assert.ok(e instanceof GantryConnectionError);
        assert.equal(e.timedOut, false);
        assert.match(e.message, /contact\.update: request failed \(fetch failed\)/);
        return true;
      },
    );
    assert.equal(update.requests.length, 1);

    const forced = scripted([down(), ok({})]);
    const gantry = createClient({ ...base, fetch: forced });
    assert.equal(
      (await gantry.callWithMeta("contact.update", { id: "c", name: "n" }, { idempotent: true })).attempts,
      2,
    );
  });

  test("the total wait is bounded by maxRetryWaitMs", async () => {
    const fetch = scripted([failure(429, "rate_limited", { retryAfterMs: 60_000 }), ok({})]);
    const started = performance.now();
    await assert.rejects(createClient({ ...base, fetch, maxRetryWaitMs: 1_000 }).gantry.about(), (e: unknown) =>
      isGantryApiError(e, "rate_limited"),
    );
    assert.ok(performance.now() - started < 500);
    assert.equal(fetch.requests.length, 1);
  });
});

describe("timeouts and aborts", () => {
  test("an attempt past timeoutMs is a GantryConnectionError with timedOut", async () => {
    const fetch = scripted(["hang"]);
    const err = await createClient({ ...base, fetch, timeoutMs: 50 })
      .contact.update({ id: "c", name: "n" })
      .catch((e: unknown) => e);
    assert.ok(err instanceof GantryConnectionError);
    assert.equal(err.timedOut, true);
  });

  test("a timed-out read is retried", async () => {
    const fetch = scripted(["hang", ok({ fine: true })]);
    const meta = await createClient({ ...base, fetch }).callWithMeta("gantry.about", {}, { timeoutMs: 50 });
    assert.equal(meta.attempts, 2);
  });

  test("the caller's signal aborts the request and the wait between retries, with the signal's reason", async () => {
    const controller = new AbortController();
    const fetch = scripted(["hang"]);
    const pending = createClient({ ...base, fetch }).gantry.about({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, (e: unknown) => (e as Error).name === "AbortError");

    const waiting = new AbortController();
    const slow = scripted([failure(429, "rate_limited", { retryAfterMs: 5_000 }), ok({})]);
    const started = performance.now();
    const call = createClient({ ...base, fetch: slow }).gantry.about({}, { signal: waiting.signal });
    setTimeout(() => waiting.abort(new Error("user gave up")), 50);
    await assert.rejects(call, /user gave up/);
    assert.ok(performance.now() - started < 2_000);
    assert.equal(slow.requests.length, 1);
  });
});

describe("helpers", () => {
  test("parseRetryAfter reads seconds and HTTP dates", () => {
    assert.equal(parseRetryAfter("3"), 3_000);
    assert.equal(parseRetryAfter(null), undefined);
    assert.equal(parseRetryAfter("soon"), undefined);
    const now = Date.parse("2026-01-01T00:00:00Z");
    assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now), 5_000);
  });

  test("newIdempotencyKey: a v4 UUID with or without crypto.randomUUID", () => {
    assert.match(newIdempotencyKey(), /^gc_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const original = crypto.randomUUID;
    try {
      Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
      assert.match(newIdempotencyKey(), /^gc_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      Object.defineProperty(crypto, "randomUUID", { value: original, configurable: true });
    }
  });
});
