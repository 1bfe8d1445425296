/**
 * The kit's gRPC client against real grpc-js servers: a domain error crosses the hop with its code,
 * reason and details; transport failures and deadlines have their own codes; calls rotate over the
 * replicas an address names, pass over one that is down, and follow a replica that restarts.
 * grpc-js servers have no Calls stream (kit/grpc-multiplex), so every call here also shows the
 * client falling back to plain unary calls.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { ABILITY_PROTO, KEYS_PROTO } from "@gantry/proto/paths";
import { GantryError } from "./errors.ts";
import { grpc, lookupService, makeClient, toGrpcError } from "./grpc.ts";

interface Replica {
  port: number;
  calls: number;
  server: grpc.Server;
}

/** A grpc-js AbilityService on `port` (0: any) that names itself in every result. */
async function startReplica(name: string, port = 0): Promise<Replica> {
  const server = new grpc.Server();
  const replica: Replica = { port, calls: 0, server };
  server.addService(lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService").service, {
    Execute: (
      call: grpc.ServerUnaryCall<{ ability: string; input_json: string }, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      replica.calls++;
      if (call.request.ability === "ok.call") return cb(null, { result_json: JSON.stringify({ replica: name }) });
      if (call.request.ability === "echo.call") return cb(null, { result_json: call.request.input_json });
      if (call.request.ability === "huge.call") return cb(null, { result_json: "x".repeat(17 * 1024 * 1024) });
      if (call.request.ability === "slow.call") {
        setTimeout(() => cb(null, { result_json: "{}" }), 2_000);
        return;
      }
      cb(
        toGrpcError(
          new GantryError("conflict", "The record changed: 100% stale.", {
            reason: "Read it again, then retry with its version.",
            details: [{ path: "/input/version", message: "stale", code: "stale" }],
          }),
        ),
      );
    },
    Describe: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, { service: "test", version: "0", abilities: [] }),
  });
  replica.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return replica;
}

const stopReplica = (r: Replica) => new Promise<void>((resolve) => r.server.tryShutdown(() => resolve()));

const a = await startReplica("a");
const b = await startReplica("b");
const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${a.port}`);
const pair = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${a.port}, 127.0.0.1:${b.port}`);
after(() => {
  client.close();
  pair.close();
  a.server.forceShutdown();
  b.server.forceShutdown();
});

const execute = (c: typeof client, ability: string, input_json = "{}", deadlineMs?: number) =>
  c.unary("Execute", { ability, input_json }, { deadlineMs });

test("a successful call returns the response, large messages included", async () => {
  const res = await execute(client, "ok.call");
  assert.deepEqual(JSON.parse(res.result_json), { replica: "a" });
  const big = JSON.stringify({ text: "x".repeat(3 * 1024 * 1024) });
  assert.equal((await execute(client, "echo.call", big)).result_json, big);
});

test("a response over 16 MiB is refused as internal, and the connection still serves the next call", async () => {
  await assert.rejects(execute(client, "huge.call"), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "internal");
    assert.match(err.message, /larger than 16777216 bytes/);
    return true;
  });
  assert.deepEqual(JSON.parse((await execute(client, "ok.call")).result_json), { replica: "a" });
});

test("a domain error arrives as the same GantryError", async () => {
  await assert.rejects(execute(client, "x.fail"), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "conflict");
    assert.equal(err.message, "The record changed: 100% stale.");
    assert.equal(err.reason, "Read it again, then retry with its version.");
    assert.deepEqual(err.details, [{ path: "/input/version", message: "stale", code: "stale" }]);
    return true;
  });
});

test("an unknown method is refused before anything is sent; a status without our trailer maps by its code", async () => {
  // A name that is no method does not compile either (kit/src/grpc-types.test.ts); at run time it is refused.
  // @ts-expect-error: not a method of AbilityService
  await assert.rejects(client.unary("NoSuchMethod", {}), TypeError);
  // grpc-js answers a service it does not serve with UNIMPLEMENTED (in headers only, no trailer of ours).
  const keys = makeClient(KEYS_PROTO, "gantry.keys.v1.KeyResolver", `127.0.0.1:${a.port}`);
  try {
    await assert.rejects(keys.unary("ResolveKey", { secret_sha256: "x" }), (err: unknown) => {
      assert.ok(err instanceof GantryError);
      assert.equal(err.code, "not_implemented");
      return true;
    });
  } finally {
    keys.close();
  }
});

test("a dead address is unavailable, and a missed deadline is a timeout", async () => {
  const dead = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", "127.0.0.1:1");
  try {
    await assert.rejects(
      execute(dead, "ok.call", "{}", 500),
      (err: unknown) => err instanceof GantryError && err.code === "unavailable",
    );
  } finally {
    dead.close();
  }
  await assert.rejects(
    execute(client, "slow.call", "{}", 200),
    (err: unknown) => err instanceof GantryError && err.code === "timeout",
  );
});

test("calls rotate over the replicas of a list", async () => {
  const seen: string[] = [];
  for (let i = 0; i < 6; i++) seen.push(JSON.parse((await execute(pair, "ok.call")).result_json).replica);
  assert.equal(seen.filter((r) => r === "a").length, 3, seen.join(","));
  assert.equal(seen.filter((r) => r === "b").length, 3, seen.join(","));
  assert.deepEqual(pair.targets, [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]);
});

test("a replica that is down is passed over, and used again once it is back", async () => {
  const c = await startReplica("c");
  const d = await startReplica("d");
  const cd = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${c.port},127.0.0.1:${d.port}`);
  try {
    await Promise.all([execute(cd, "ok.call"), execute(cd, "ok.call")]);
    await stopReplica(d);
    // Every call succeeds: one that finds d's connection refused is tried on c.
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) seen.add(JSON.parse((await execute(cd, "ok.call")).result_json).replica);
    assert.deepEqual([...seen], ["c"]);

    const back = await startReplica("d", d.port);
    const deadline = Date.now() + 10_000;
    while (back.calls === 0 && Date.now() < deadline) {
      await execute(cd, "ok.call");
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(back.calls > 0, "the restarted replica gets calls again");
    back.server.forceShutdown();
  } finally {
    cd.close();
    c.server.forceShutdown();
    d.server.forceShutdown();
  }
});

test("a single replica that restarts is reached again without a new client", async () => {
  const e = await startReplica("e");
  const one = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${e.port}`);
  try {
    await execute(one, "ok.call");
    await stopReplica(e);
    await assert.rejects(
      execute(one, "ok.call", "{}", 500),
      (err: unknown) => err instanceof GantryError && err.code === "unavailable",
    );
    const again = await startReplica("e2", e.port);
    await new Promise((r) => setTimeout(r, 2_100)); // the longest reconnect backoff
    assert.deepEqual(JSON.parse((await execute(one, "ok.call")).result_json), { replica: "e2" });
    again.server.forceShutdown();
  } finally {
    one.close();
  }
});
