/**
 * Deadlines, cancellation and metadata across a hop, both ways a call travels (a message on the
 * Calls stream, and a plain unary call for a request over 64 KiB): the handler learns the
 * caller's deadline and metadata, its signal aborts when the caller gives up, and the server
 * answers DEADLINE_EXCEEDED on its own when `grpc-timeout` passes, whoever the client is. On a
 * real Postgres, a statement running for a call whose caller gave up is cancelled.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http2 from "node:http2";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { GantryError } from "./errors.ts";
import { type grpc, lookupService, makeClient } from "./grpc.ts";
import { frameMessage } from "./grpc-frame.ts";
import type { ServerCall } from "./grpc-multiplex.ts";
import { RpcServer } from "./grpc-server.ts";
import { asSystem, TenantPool } from "./tenancy.ts";
import { forwardCall, withCallSignal } from "./call-signal.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");

/** What the handler saw of each call, by its `ability` field. */
const seen = new Map<
  string,
  { metadata: Readonly<Record<string, string>>; deadline?: number; aborted: Promise<unknown> }
>();

const server = new RpcServer();
server.addService(AbilityService.service, {
  Execute: (call: ServerCall<{ ability: string }>, cb: grpc.sendUnaryData<unknown>) => {
    const { signal } = call;
    seen.set(call.request.ability, {
      metadata: call.metadata,
      deadline: call.deadline,
      aborted: new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason))),
    });
    if (call.request.ability.startsWith("quick")) cb(null, { result_json: "{}" });
    // otherwise never answers: only the deadline or the caller ends it
  },
});
const port = await server.listen("127.0.0.1", 0);
const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${port}`);
after(async () => {
  client.close();
  await server.shutdown(100);
});

const LARGE = JSON.stringify({ pad: "x".repeat(70 * 1024) }); // over 64 KiB: a plain call

for (const [way, input_json] of [
  ["on the Calls stream", "{}"],
  ["as a plain call", LARGE],
] as const) {
  test(`${way}: the handler gets the caller's metadata and deadline`, async () => {
    const ability = `quick ${way}`;
    const before = Date.now();
    await client.unary(
      "Execute",
      { ability, input_json },
      { deadlineMs: 5_000, metadata: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } },
    );
    const got = seen.get(ability)!;
    assert.equal(got.metadata.traceparent, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assert.ok(got.deadline && got.deadline > before + 4_000 && got.deadline <= Date.now() + 5_000, "deadline travels");
  });

  test(`${way}: a caller that gives up stops the handler (its signal aborts)`, async () => {
    const ability = `hang ${way}`;
    const caller = new AbortController();
    const started = performance.now();
    const call = client.unary("Execute", { ability, input_json }, { deadlineMs: 30_000, signal: caller.signal });
    while (!seen.has(ability)) await new Promise((r) => setTimeout(r, 5));
    caller.abort();
    await assert.rejects(call, (err: GantryError) => err.code === "timeout");
    const reason = await seen.get(ability)!.aborted;
    assert.ok(reason instanceof GantryError && reason.code === "timeout", "the handler is told why");
    assert.ok(performance.now() - started < 5_000, "long before the deadline");
  });

  test(`${way}: at the deadline the call fails as timeout and the handler is stopped`, async () => {
    const ability = `deadline ${way}`;
    const started = performance.now();
    await assert.rejects(
      client.unary("Execute", { ability, input_json }, { deadlineMs: 200 }),
      (err: GantryError) => err.code === "timeout",
    );
    assert.ok(performance.now() - started < 2_000);
    await seen.get(ability)!.aborted;
  });
}

test("the server enforces grpc-timeout on its own: DEADLINE_EXCEEDED for a client that would wait", async () => {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    const request = AbilityService.service.Execute.requestSerialize({ ability: "hang raw", input_json: "{}" });
    const stream = session.request({
      ":method": "POST",
      ":path": AbilityService.service.Execute.path,
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-timeout": "150m",
    });
    const started = performance.now();
    const status = await new Promise<string>((resolve) => {
      const read = (h: http2.IncomingHttpHeaders) =>
        h["grpc-status"] !== undefined && resolve(String(h["grpc-status"]));
      stream.on("response", read);
      stream.on("trailers", read);
      stream.end(frameMessage(request));
    });
    assert.equal(Number(status), 4, "DEADLINE_EXCEEDED");
    const ms = performance.now() - started;
    assert.ok(ms >= 140 && ms < 2_000, `answered at the deadline (${Math.round(ms)} ms)`);
    assert.ok((await seen.get("hang raw")!.aborted) instanceof GantryError);
  } finally {
    session.close();
  }
});

test("forwardCall passes on what is left of the caller's deadline, and its signal", () => {
  const signal = new AbortController().signal;
  const opts = forwardCall({ deadline: Date.now() + 1_500, signal });
  assert.ok(opts.deadlineMs > 1_400 && opts.deadlineMs <= 1_500);
  assert.equal(opts.signal, signal);
  assert.equal(forwardCall({}, 7_000).deadlineMs, 7_000, "no deadline: the hop's own");
});

let t: TestStack;
let pool: TenantPool;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 2 });
  pool.on("error", () => {});
});
after(async () => {
  await pool?.end();
  await t?.stop();
});

test("Postgres: the statement a call runs is cancelled when its caller gives up, and no new one starts", async () => {
  const caller = new AbortController();
  const started = performance.now();
  const query = asSystem(() =>
    withCallSignal(caller.signal, () => pool.query("SELECT pg_sleep(30), 'cancel-me' AS marker")),
  );
  // A backend keeps showing its last statement once idle, and the pool discards the connection
  // of a failed statement a moment after the caller sees the error: only an active one counts.
  const running = async () =>
    (
      await t.db.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%cancel-me%' AND pid <> pg_backend_pid()",
      )
    ).rows[0].n as number;
  while ((await running()) === 0) await new Promise((r) => setTimeout(r, 20));
  caller.abort(new GantryError("timeout", "gone"));
  await assert.rejects(
    query,
    (err: { code?: string }) => err.code === "57014",
    "canceling statement due to user request",
  );
  assert.ok(performance.now() - started < 10_000, "not the statement's 30 s");
  assert.equal(await running(), 0, "Postgres runs it no more");
  await assert.rejects(
    asSystem(() => withCallSignal(caller.signal, () => pool.query("SELECT 1"))),
    (err: GantryError) => err.code === "timeout",
  );
  assert.equal((await asSystem(() => pool.query("SELECT 1 AS one"))).rows[0].one, 1, "the pool still serves others");
});
