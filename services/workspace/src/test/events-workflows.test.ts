/**
 * event.emit and workflow.trigger through the gateway, with real JetStream and a real HTTP
 * receiver: events read back by a test consumer on `events.<tenant token>.<event>`; workflow
 * triggers on `workflows.<tenant token>.<workflow>.triggered`; signed deliveries verified with the
 * tenant's secret; retries with backoff; permanent failures; the SSRF guard; isolation.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { DeliverPolicy, jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { natsConnectOptions, tenantToken } from "@gantry/kit";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { fails, ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "./helpers.ts";
import { verifySignature } from "../workflows/sign.ts";

let t: TestStack;
let k: Keys;
let nc: NatsConnection;
let js: JetStreamClient;
let server: http.Server;
let base: string;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
/** Per path: status codes to answer in order (the last repeats). */
const script: Record<string, number[]> = {
  "/hooks/acme": [200],
  "/hooks/flaky": [500, 503, 200],
  "/hooks/down": [503],
  "/hooks/gone": [404],
  "/hooks/restart": [503, 200],
};
const SECRETS = {
  acme: "acme-secret-0123456789",
  flaky: "flaky-secret-0123456789",
  down: "down-secret-0123456789",
  gone: "gone-secret-0123456789",
  private: "private-secret-0123456",
  metadata: "metadata-secret-012345",
  restart: "restart-secret-0123456",
};

async function readSubject(
  filter: string,
  count: number,
  timeoutMs = 10_000,
): Promise<Array<{ subject: string; data: any; seq: number }>> {
  const consumer = await js.consumers.get("EVENTS", { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
  const out: Array<{ subject: string; data: any; seq: number }> = [];
  const until = Date.now() + timeoutMs;
  while (out.length < count && Date.now() < until) {
    const m = await consumer.next({ expires: 1_000 });
    if (m) out.push({ subject: m.subject, data: m.json(), seq: m.seq });
  }
  await consumer.delete().catch(() => {});
  return out;
}

async function readStream(
  stream: string,
  filter: string,
  max: number,
  waitMs = 1_500,
): Promise<Array<{ subject: string; data: any }>> {
  const consumer = await js.consumers.get(stream, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
  const out: Array<{ subject: string; data: any }> = [];
  for (;;) {
    const m = await consumer.next({ expires: Math.max(1_000, waitMs) });
    if (!m) break;
    out.push({ subject: m.subject, data: m.json() });
    if (out.length >= max) break;
  }
  await consumer.delete().catch(() => {});
  return out;
}

before(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      const codes = script[req.url ?? ""] ?? [404];
      const n = received.filter((r) => r.path === req.url).length;
      res.statusCode = codes[Math.min(n - 1, codes.length - 1)];
      // The first delivery to /hooks/restart hangs, so the service can be killed mid-attempt.
      const delay = req.url === "/hooks/restart" && n === 1 ? 2_000 : 0;
      setTimeout(() => res.end("ok"), delay);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endpoints = {
    acme: { url: `${base}/hooks/acme`, secret: SECRETS.acme },
    flaky: { url: `${base}/hooks/flaky`, secret: SECRETS.flaky },
    down: { url: `${base}/hooks/down`, secret: SECRETS.down },
    gone: { url: `${base}/hooks/gone`, secret: SECRETS.gone },
    restart: { url: `${base}/hooks/restart`, secret: SECRETS.restart },
    private: { url: "http://10.1.2.3/hooks", secret: SECRETS.private },
    metadata: { url: "http://169.254.169.254/latest/meta-data", secret: SECRETS.metadata },
  };
  t = await startWorkspaceStack({
    WORKFLOW_ENDPOINTS: JSON.stringify(endpoints),
    WORKFLOW_ALLOW_LOOPBACK: "true",
    WORKFLOW_DELIVERY_ATTEMPTS: "3",
    WORKFLOW_RETRY_BASE_MS: "150",
    WORKFLOW_DELIVERY_TIMEOUT_MS: "3000",
    EVENT_MAX_PAYLOAD_BYTES: "2048",
  });
  k = await tenantKeys(t);
  nc = await connect(natsConnectOptions(t.stack.env.NATS_URL));
  js = jetstream(nc);
});
after(async () => {
  await nc?.close().catch(() => {});
  await t?.stop();
  server?.close();
});

describe("event.emit", () => {
  test("the EVENTS and WORKFLOWS streams are declared at start, file-backed, with deduplication", async () => {
    const { jetstreamManager } = await import("@nats-io/jetstream");
    const jsm = await jetstreamManager(nc);
    for (const [name, subject] of [
      ["EVENTS", "events.>"],
      ["WORKFLOWS", "workflows.>"],
    ]) {
      const info = await jsm.streams.info(name);
      assert.deepEqual(info.config.subjects, [subject]);
      assert.equal(info.config.storage, "file");
      assert.ok(info.config.duplicate_window > 0);
      assert.equal(info.config.max_age, 168 * 3600 * 1e9);
    }
  });

  test("publishes the envelope durably on events.<tenant>.<event>; a test consumer reads it back", async () => {
    const r = await ok(
      t,
      "event.emit",
      { event: "booking.confirmed", payload: { bookingId: "bk_1042", seats: 2 } },
      k.acme,
      { verticalId: "clinic" },
    );
    assert.match(r.id, /^evt_/);
    assert.equal(r.subject, "events.acme.booking.confirmed");
    assert.equal(r.stream, "EVENTS");
    assert.ok(Number.isInteger(r.sequence) && r.sequence > 0);
    const [m] = await readSubject("events.acme.booking.confirmed", 1);
    assert.equal(m.seq, r.sequence);
    assert.equal(m.data.id, r.id);
    assert.equal(m.data.tenant, "acme");
    assert.equal(m.data.event, "booking.confirmed");
    assert.deepEqual(m.data.payload, { bookingId: "bk_1042", seats: 2 });
    assert.equal(m.data.emitted, r.emitted);
    assert.match(m.data.keyId, /^key_/);
    assert.match(m.data.requestId, /^req_/);
    assert.equal(m.data.vertical, "clinic");
  });

  test("sub-tenant events go to the encoded tenant token and never match the parent's subjects", async () => {
    const r = await ok(t, "event.emit", { event: "order.paid" }, k.shop1);
    assert.equal(tenantToken("acme/shop1"), "acme_2Fshop1");
    assert.equal(r.subject, "events.acme_2Fshop1.order.paid");
    const [m] = await readSubject("events.acme_2Fshop1.>", 1);
    assert.equal(m.data.tenant, "acme/shop1");
    assert.deepEqual(m.data.payload, {});
    const parent = await readStream("EVENTS", "events.acme.order.>", 10, 500);
    assert.deepEqual(parent, []);
  });

  test("beta's subscription sees only beta's events", async () => {
    await ok(t, "event.emit", { event: "isolation.check", payload: { who: "beta" } }, k.beta);
    await ok(t, "event.emit", { event: "isolation.check", payload: { who: "acme" } }, k.acme);
    const betas = await readStream("EVENTS", "events.beta.>", 10, 800);
    assert.ok(betas.length >= 1);
    assert.ok(betas.every((m) => m.data.tenant === "beta" && m.data.payload.who === "beta"));
  });

  test("invalid names (wildcards, empty tokens, spaces) are 400; an oversized payload is 413", async () => {
    for (const event of ["booking.*", "booking.>", "booking..x", ".x", "has space", "x.", ""]) {
      const e = await fails(t, "event.emit", { event }, k.acme, 400);
      assert.equal(e.details[0].path, "/input/event");
    }
    const e = await fails(t, "event.emit", { event: "big.one", payload: { blob: "x".repeat(3000) } }, k.acme, 413);
    assert.equal(e.code, "payload_too_large");
    assert.equal(e.details[0].path, "/input/payload");
    await fails(t, "event.emit", { event: "x", payload: [1, 2] }, k.acme, 400);
  });
});

describe("workflow.trigger", () => {
  test("records a queued run, publishes the trigger, delivers a signed POST, records delivered", async () => {
    const r = await ok(
      t,
      "workflow.trigger",
      { workflow: "send-booking-reminders", input: { day: "2026-06-03" } },
      k.acme,
    );
    assert.match(r.runId, /^wfr_/);
    assert.equal(r.status, "queued");
    assert.equal(r.subject, "workflows.acme.send-booking-reminders.triggered");
    assert.equal(r.delivery, "webhook");
    const hit = await eventually(async () =>
      received.find((x) => x.path === "/hooks/acme" && JSON.parse(x.body).runId === r.runId),
    );
    assert.equal(hit.headers["content-type"], "application/json");
    assert.equal(hit.headers["gantry-run-id"], r.runId);
    assert.equal(hit.headers["idempotency-key"], r.runId);
    assert.equal(hit.headers["gantry-attempt"], "1");
    assert.ok(
      verifySignature(SECRETS.acme, String(hit.headers["gantry-signature"]), hit.body),
      "signature verifies with the tenant's secret",
    );
    assert.equal(verifySignature("some-other-secret-000", String(hit.headers["gantry-signature"]), hit.body), false);
    assert.equal(
      verifySignature(
        SECRETS.acme,
        String(hit.headers["gantry-signature"]),
        hit.body.replace("2026-06-03", "2026-06-04"),
      ),
      false,
    );
    const body = JSON.parse(hit.body);
    assert.deepEqual(
      { type: body.type, tenant: body.tenant, workflow: body.workflow, input: body.input },
      { type: "workflow.triggered", tenant: "acme", workflow: "send-booking-reminders", input: { day: "2026-06-03" } },
    );
    const run = await eventually(async () => {
      const { rows } = await t.db.query(`SELECT * FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
      return rows[0]?.status === "delivered" ? rows[0] : undefined;
    });
    assert.equal(run.attempts, 1);
    assert.equal(run.last_status_code, 200);
    assert.ok(run.delivered_at);
    assert.equal(run.tenant, "acme");
    assert.ok(Number(run.sequence) > 0);
    const triggered = await readStream("WORKFLOWS", "workflows.acme.send-booking-reminders.triggered", 10, 500);
    assert.ok(triggered.some((m) => m.data.runId === r.runId && m.data.tenant === "acme"));
    const outcome = await eventually(async () =>
      (await readStream("WORKFLOWS", "workflows.acme.send-booking-reminders.delivered", 10, 500)).find(
        (m) => m.data.runId === r.runId,
      ),
    );
    assert.equal(outcome.data.attempts, 1);
  });

  test("retries with backoff until delivered; attempts recorded", async () => {
    const flaky = await t.insertKey({ tenant: "flaky", scopes: ["workflow.trigger"] });
    const started = Date.now();
    const r = await ok(t, "workflow.trigger", { workflow: "nightly" }, flaky.key);
    const run = await eventually(async () => {
      const { rows } = await t.db.query(`SELECT * FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
      return rows[0]?.status === "delivered" ? rows[0] : undefined;
    }, 20_000);
    assert.equal(run.attempts, 3);
    const hits = received.filter((x) => x.path === "/hooks/flaky");
    assert.deepEqual(
      hits.map((h) => h.headers["gantry-attempt"]),
      ["1", "2", "3"],
    );
    for (const h of hits) assert.ok(verifySignature(SECRETS.flaky, String(h.headers["gantry-signature"]), h.body));
    // backoff 150 ms then 300 ms
    assert.ok(Date.now() - started >= 400, `took ${Date.now() - started} ms`);
  });

  test("an endpoint that keeps failing: failed after WORKFLOW_DELIVERY_ATTEMPTS, outcome published", async () => {
    const down = await t.insertKey({ tenant: "down", scopes: ["workflow.trigger"] });
    const r = await ok(t, "workflow.trigger", { workflow: "sync" }, down.key);
    const run = await eventually(async () => {
      const { rows } = await t.db.query(`SELECT * FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
      return rows[0]?.status === "failed" ? rows[0] : undefined;
    }, 20_000);
    assert.equal(run.attempts, 3);
    assert.equal(run.last_status_code, 503);
    assert.match(run.last_error, /503/);
    const failed = await eventually(async () =>
      (await readStream("WORKFLOWS", "workflows.down.sync.failed", 10, 500)).find((m) => m.data.runId === r.runId),
    );
    assert.equal(failed.data.attempts, 3);
  });

  test("a 4xx answer is permanent: failed after one attempt", async () => {
    const gone = await t.insertKey({ tenant: "gone", scopes: ["workflow.trigger"] });
    const r = await ok(t, "workflow.trigger", { workflow: "sync" }, gone.key);
    const run = await eventually(async () => {
      const { rows } = await t.db.query(`SELECT * FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
      return rows[0]?.status === "failed" ? rows[0] : undefined;
    });
    assert.equal(run.attempts, 1);
    assert.equal(run.last_status_code, 404);
  });

  test("SSRF guard: private and metadata addresses are never contacted, even with the loopback switch on", async () => {
    for (const tenant of ["private", "metadata"]) {
      const key = await t.insertKey({ tenant, scopes: ["workflow.trigger"] });
      const r = await ok(t, "workflow.trigger", { workflow: "probe" }, key.key);
      const run = await eventually(async () => {
        const { rows } = await t.db.query(`SELECT * FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
        return rows[0]?.status === "failed" ? rows[0] : undefined;
      });
      assert.equal(run.attempts, 1);
      assert.equal(run.last_status_code, null);
      assert.match(run.last_error, /SSRF guard/);
    }
  });

  test("a tenant without an endpoint (incl. a sub-tenant of one with an endpoint): published, stays queued, nothing POSTed", async () => {
    const before = received.length;
    const r = await ok(t, "workflow.trigger", { workflow: "local-only", input: { n: 1 } }, k.shop1);
    assert.equal(r.subject, "workflows.acme_2Fshop1.local-only.triggered");
    assert.equal(r.delivery, "subject");
    const [m] = await eventually(async () => {
      const got = await readStream("WORKFLOWS", "workflows.acme_2Fshop1.local-only.triggered", 1, 800);
      return got.length ? got : undefined;
    });
    assert.equal(m.data.runId, r.runId);
    assert.deepEqual(m.data.input, { n: 1 });
    await new Promise((res) => setTimeout(res, 500));
    const { rows } = await t.db.query(`SELECT status, attempts FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
    assert.deepEqual(rows[0], { status: "queued", attempts: 0 });
    assert.equal(received.length, before);
  });

  test("idempotency: same key → same run, delivered once; concurrent duplicates → one run; different input → 409", async () => {
    const input = { workflow: "send-invoice", input: { invoice: "inv_1" }, idempotencyKey: "invoice-inv_1" };
    const rs = await Promise.all(Array.from({ length: 6 }, () => t.call("workflow.trigger", { input }, k.acme)));
    assert.ok(
      rs.every((r) => r.status === 200),
      JSON.stringify(rs.map((r) => r.body)),
    );
    const ids = new Set(rs.map((r) => r.body.result.runId));
    assert.equal(ids.size, 1);
    const [runId] = [...ids];
    await eventually(async () => {
      const { rows } = await t.db.query(`SELECT status FROM workspace.workflow_runs WHERE id = $1`, [runId]);
      return rows[0]?.status === "delivered";
    });
    const again = await ok(t, "workflow.trigger", input, k.acme);
    assert.equal(again.runId, runId);
    assert.equal(again.status, "delivered");
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(received.filter((x) => x.path === "/hooks/acme" && JSON.parse(x.body).runId === runId).length, 1);
    const { rows } = await t.db.query(
      `SELECT count(*)::int AS n FROM workspace.workflow_runs WHERE tenant = 'acme' AND workflow = 'send-invoice'`,
    );
    assert.equal(rows[0].n, 1);
    const e = await fails(t, "workflow.trigger", { ...input, input: { invoice: "inv_2" } }, k.acme, 409);
    assert.deepEqual(
      e.details.map((d: { path: string }) => d.path),
      ["/input/input"],
    );
  });

  test("a delivery interrupted by a crash of the workspace service is redelivered after restart (durable consumer)", async () => {
    const key = await t.insertKey({ tenant: "restart", scopes: ["workflow.trigger"] });
    const r = await ok(t, "workflow.trigger", { workflow: "survive" }, key.key);
    // Attempt 1 is in flight (the receiver holds its answer): kill the service now.
    await eventually(async () => received.some((x) => x.path === "/hooks/restart"));
    assert.ok(t.stack.kill("workspace", "SIGKILL"));
    await eventually(async () => t.stack.crashes("workspace") >= 1, 10_000);
    await t.stack.waitHealthy("workspace", 60_000);
    const run = await eventually(async () => {
      const { rows } = await t.db.query(`SELECT * FROM workspace.workflow_runs WHERE id = $1`, [r.runId]);
      return rows[0]?.status === "delivered" ? rows[0] : undefined;
    }, 60_000);
    assert.equal(run.attempts, 2);
    assert.deepEqual(
      received.filter((x) => x.path === "/hooks/restart").map((h) => h.headers["gantry-attempt"]),
      ["1", "2"],
    );
  });

  test("names with dots or wildcards are 400; beta's trigger never reaches acme's endpoint", async () => {
    await fails(t, "workflow.trigger", { workflow: "a.b" }, k.acme, 400);
    await fails(t, "workflow.trigger", { workflow: "a*" }, k.acme, 400);
    const before = received.length;
    const r = await ok(t, "workflow.trigger", { workflow: "send-booking-reminders" }, k.beta);
    assert.equal(r.delivery, "subject");
    await new Promise((res) => setTimeout(res, 500));
    assert.equal(received.length, before);
  });
});
