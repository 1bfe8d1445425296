/**
 * `unary` against a real gRPC server: a domain error crosses the hop with its code, reason and
 * details; a dead address is `unavailable`; and the stack-trace limit `unary` lowers while grpc-js
 * starts the call is always put back (were it left at 0, every later error in the process would
 * lose its stack).
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { GantryError } from "./errors.ts";
import { grpc, lookupService, makeClient, toGrpcError, unary } from "./grpc.ts";

const server = new grpc.Server();
server.addService(lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService").service, {
  Execute: (call: grpc.ServerUnaryCall<{ ability: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
    if (call.request.ability === "ok.call") return cb(null, { result_json: '{"fine":true}' });
    cb(
      toGrpcError(
        new GantryError("conflict", "The record changed.", {
          reason: "Read it again, then retry with its version.",
          details: [{ path: "/input/version", message: "stale", code: "stale" }],
        }),
      ),
    );
  },
  Describe: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
    cb(null, { service: "test", version: "0", abilities: [] }),
});
const port = await new Promise<number>((resolve, reject) =>
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
    err ? reject(err) : resolve(p),
  ),
);
const client = makeClient<grpc.Client>(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${port}`);
after(() => {
  client.close();
  server.forceShutdown();
});

const limit = Error.stackTraceLimit;

test("a successful call returns the response", async () => {
  const res = await unary<object, { result_json: string }>(client, "Execute", { ability: "ok.call", input_json: "{}" });
  assert.equal(res.result_json, '{"fine":true}');
  assert.equal(Error.stackTraceLimit, limit);
});

test("a domain error arrives as the same GantryError, and the stack-trace limit is restored", async () => {
  await assert.rejects(unary(client, "Execute", { ability: "x.fail", input_json: "{}" }), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "conflict");
    assert.equal(err.message, "The record changed.");
    assert.equal(err.reason, "Read it again, then retry with its version.");
    assert.deepEqual(err.details, [{ path: "/input/version", message: "stale", code: "stale" }]);
    return true;
  });
  assert.equal(Error.stackTraceLimit, limit);
  assert.match(String(new Error("still has a stack").stack), /grpc\.test\.ts/);
});

test("a dead address is unavailable", async () => {
  const dead = makeClient<grpc.Client>(ABILITY_PROTO, "gantry.ability.v1.AbilityService", "127.0.0.1:1");
  try {
    await assert.rejects(
      unary(dead, "Execute", { ability: "x", input_json: "{}" }, { deadlineMs: 500 }),
      (err: unknown) => err instanceof GantryError && err.code === "unavailable",
    );
  } finally {
    dead.close();
  }
  assert.equal(Error.stackTraceLimit, limit);
});

test("a call grpc-js refuses synchronously still restores the limit", async () => {
  await assert.rejects(unary(client, "NoSuchMethod", {}), TypeError);
  assert.equal(Error.stackTraceLimit, limit);
});
