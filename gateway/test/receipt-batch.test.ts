/**
 * The permits and the receipts of concurrent calls go to trust together (pipeline/rpc-batch.ts, used
 * by PermitGate.consume and PermitGate.record, one PermitGate.Batch RPC for both kinds): items
 * arriving while a batch is out leave together in the next one, at most `maxItems` a call, each
 * caller gets its own result (a refused permit or receipt fails only its own caller), a batch of
 * one kind alone leaves at once, and a call that fails fails each of its items and no other. With
 * trust down or not answering, every caller (of a permit or a receipt) gets the error by the RPC's
 * deadline: nothing waits on a batch that will never answer.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import { GantryError, grpc, lookupService } from "@gantry/kit";
import type { GateBatchRequest, GateBatchResultsInit } from "@gantry/kit/generated/grpc.ts";
import { TRUST_PROTO } from "@gantry/proto/paths";
import { RpcBatcher } from "../src/pipeline/rpc-batch.ts";
import { PermitGate } from "../src/pipeline/run-permit.ts";

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test("items arriving while a batch is out go together in the next; each caller gets its own result", async () => {
  const sent: number[][] = [];
  const answers: ReturnType<typeof deferred<number[]>>[] = [];
  const batcher = new RpcBatcher<number, number>(
    "test batch",
    (items) => {
      sent.push(items);
      const d = deferred<number[]>();
      answers.push(d);
      return d.promise;
    },
    { maxItems: 4, maxWaitMs: 60_000 },
  );
  const first = batcher.add(1);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(sent, [[1]], "a lone item leaves at the end of its turn");
  const waiting = [2, 3, 4, 5, 6, 7].map((n) => batcher.add(n));
  assert.deepEqual(sent, [[1], [2, 3, 4, 5]], "a full batch leaves at once");
  answers[0]!.resolve([10]);
  assert.equal(await first, 10);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(sent, [[1], [2, 3, 4, 5], [6, 7]], "the rest leave when a batch has answered");
  answers[1]!.resolve([20, 30, 40, 50]);
  answers[2]!.reject(new Error("trust refused the call"));
  const settled = await Promise.allSettled(waiting);
  assert.deepEqual(
    settled.map((s) => (s.status === "fulfilled" ? s.value : (s.reason as Error).message)),
    [20, 30, 40, 50, "trust refused the call", "trust refused the call"],
  );
});

test("a batch does not wait longer than maxWaitMs for the one still out", async () => {
  const sent: number[][] = [];
  const batcher = new RpcBatcher<number, number>(
    "test batch",
    (items) => {
      sent.push(items);
      return items[0] === 1 ? new Promise(() => {}) : Promise.resolve(items);
    },
    { maxWaitMs: 5 },
  );
  void batcher.add(1);
  await new Promise((r) => setImmediate(r));
  const started = performance.now();
  assert.equal(await batcher.add(2), 2);
  assert.ok(performance.now() - started < 1_000);
  assert.deepEqual(sent, [[1], [2]]);
});

test("by default items wait up to 5 ms for the batch that is out, then leave beside it", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "setImmediate"] });
  const sent: number[][] = [];
  const answers: ReturnType<typeof deferred<number[]>>[] = [];
  const batcher = new RpcBatcher<number, number>("test batch", (items) => {
    sent.push(items);
    const d = deferred<number[]>();
    answers.push(d);
    return d.promise;
  });
  void batcher.add(1);
  t.mock.timers.tick(0);
  assert.deepEqual(sent, [[1]]);
  const waiting = [batcher.add(2), batcher.add(3)];
  t.mock.timers.tick(4);
  assert.deepEqual(sent, [[1]], "before 5 ms they still wait for the first batch's answer");
  t.mock.timers.tick(1);
  assert.deepEqual(sent, [[1], [2, 3]], "at 5 ms they leave without it, together");
  answers[1]!.resolve([20, 30]);
  assert.deepEqual(await Promise.all(waiting), [20, 30]);
});

function receipt(i: number) {
  return {
    tenant: "acme",
    requestId: `req_${i}`,
    permit: { runId: "run_1", permitId: "pmt_1", inputHash: "0".repeat(64) },
    ability: "contact.get",
    resultHash: undefined,
    status: 200,
    atMs: Date.now(),
  };
}

function permit(i: number) {
  return {
    tenant: "acme",
    key_id: "key_1",
    run_id: "run_1",
    ability: "contact.get",
    input_hash: "0".repeat(64),
    request_id: `req_${i}`,
  };
}

/** Ten permits and ten receipts sent at once: every caller is rejected within `ms`. */
async function allRejectWithin(gate: PermitGate, ms: number): Promise<unknown[]> {
  const started = performance.now();
  const settled = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => [gate.consume(permit(i)), gate.record(receipt(i))]).flat(),
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed < ms, `every caller answered within ${ms} ms (took ${elapsed.toFixed(0)} ms)`);
  assert.ok(settled.every((s) => s.status === "rejected"));
  return settled.map((s) => (s as PromiseRejectedResult).reason);
}

test("trust down: each permit's and receipt's caller gets the error, none hangs", async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise((r) => closed.close(r));
  const gate = new PermitGate(`127.0.0.1:${port}`, 500);
  try {
    for (const err of await allRejectWithin(gate, 2_000))
      assert.ok(err instanceof GantryError && err.code === "unavailable", String(err));
  } finally {
    gate.close();
  }
});

test("trust not answering: each permit's and receipt's caller gets the error by the RPC's deadline", async () => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => {});
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const { port } = silent.address() as net.AddressInfo;
  const gate = new PermitGate(`127.0.0.1:${port}`, 400);
  try {
    for (const err of await allRejectWithin(gate, 2_500))
      assert.ok(err instanceof GantryError && ["timeout", "unavailable"].includes(err.code), String(err));
  } finally {
    gate.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  }
});

/** A trust stand-in whose Batch answers `answer(request)`, keeping every request it was sent. */
async function fakeTrust(answer: (req: GateBatchRequest) => GateBatchResultsInit) {
  const sent: GateBatchRequest[] = [];
  const server = new grpc.Server();
  server.addService(lookupService(TRUST_PROTO, "gantry.trust.v1.PermitGate").service, {
    Batch: (call: grpc.ServerUnaryCall<GateBatchRequest, unknown>, done: grpc.sendUnaryData<unknown>) => {
      sent.push(call.request);
      done(null, answer(call.request));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { addr: `127.0.0.1:${port}`, sent, stop: () => server.forceShutdown() };
}

test("permits and receipts of concurrent calls share one Batch; a refused one fails only its own caller", async () => {
  const refused = { code: "forbidden", message: "This permit was already used.", details: [{ code: "permit_used" }] };
  const trust = await fakeTrust((req) => ({
    permits: req.permits.map((p) =>
      p.request_id === "req_2"
        ? { run_id: p.run_id, error_json: JSON.stringify(refused) }
        : { run_id: p.run_id, permit_id: `pmt_${p.request_id}` },
    ),
    receipts: req.receipts.map((r, i) =>
      r.request_id === "req_4"
        ? { request_id: r.request_id, error_code: "invalid_request", error_message: "result_hash must be a digest" }
        : { request_id: r.request_id, log_index: i },
    ),
  }));
  const gate = new PermitGate(trust.addr, 5_000);
  try {
    const settled = await Promise.allSettled([
      gate.consume(permit(1)),
      gate.record(receipt(3)),
      gate.consume(permit(2)),
      gate.record(receipt(4)),
    ]);
    assert.deepEqual(
      trust.sent.map((r) => [r.permits.map((p) => p.request_id), r.receipts.map((x) => x.request_id)]),
      [
        [
          ["req_1", "req_2"],
          ["req_3", "req_4"],
        ],
      ],
      "one RPC carried both kinds",
    );
    assert.deepEqual(settled[0], { status: "fulfilled", value: { runId: "run_1", permitId: "pmt_req_1" } });
    assert.deepEqual(settled[1], { status: "fulfilled", value: undefined });
    const permitErr = (settled[2] as PromiseRejectedResult).reason;
    assert.ok(permitErr instanceof GantryError && permitErr.code === "forbidden", String(permitErr));
    assert.equal(permitErr.details?.[0]?.code, "permit_used");
    const receiptErr = (settled[3] as PromiseRejectedResult).reason;
    assert.ok(receiptErr instanceof GantryError && receiptErr.code === "invalid_request", String(receiptErr));

    // Alone, a receipt (or a permit) leaves at once in a batch of its kind only.
    await gate.record(receipt(5));
    await gate.consume(permit(6));
    assert.deepEqual(
      trust.sent.slice(1).map((r) => [r.permits.length, r.receipts.length]),
      [
        [0, 1],
        [1, 0],
      ],
    );
  } finally {
    gate.close();
    trust.stop();
  }
});

test("trust answering the wrong number of results fails each item of that batch", async () => {
  const trust = await fakeTrust((req) => ({
    permits: [],
    receipts: req.receipts.map((r) => ({ request_id: r.request_id })),
  }));
  const gate = new PermitGate(trust.addr, 5_000);
  try {
    const settled = await Promise.allSettled([gate.consume(permit(1)), gate.record(receipt(2))]);
    assert.ok(settled.every((s) => s.status === "rejected" && /results for 1\/1/.test(String(s.reason))));
  } finally {
    gate.close();
    trust.stop();
  }
});
