/**
 * Unary calls over the Calls stream (kit/grpc-multiplex) between the kit's client and server:
 * concurrent calls share one HTTP/2 stream and each gets its own answer, errors and limits are as
 * for a plain call, any gRPC client can speak the stream, and a server that shuts down answers what
 * it took while what it did not take runs once, elsewhere.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import type http2 from "node:http2";
import { ABILITY_PROTO, KEYS_PROTO, MULTIPLEX_PROTO } from "@gantry/proto/paths";
import { GantryError } from "./errors.ts";
import { grpc, lookupService, makeClient, toGrpcError } from "./grpc.ts";
import { RpcServer } from "./grpc-server.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");

/** An RpcServer whose abilities echo, wait, fail or answer too much; it records what ran, and counts HTTP/2 streams. */
async function startServer(name: string) {
  const server = new RpcServer();
  const ran: string[] = [];
  let streams = 0;
  server.addService(AbilityService.service, {
    Execute: (call: { request: { ability: string; input_json: string } }, cb: grpc.sendUnaryData<unknown>) => {
      const { ability, input_json } = call.request;
      ran.push(input_json);
      if (ability === "echo") return cb(null, { result_json: input_json });
      if (ability === "whoami") return cb(null, { result_json: JSON.stringify(name) });
      if (ability === "wait") return setTimeout(() => cb(null, { result_json: input_json }), Number(input_json));
      if (ability === "big") return cb(null, { result_json: "y".repeat(Number(input_json)) });
      if (ability === "throws") throw new Error("handler bug: secret detail");
      cb(
        toGrpcError(
          new GantryError("conflict", "The record changed.", {
            reason: "Read it again.",
            details: [{ path: "/input/version", message: "stale", code: "stale" }],
          }),
        ),
      );
    },
  });
  // The test looks at the HTTP/2 server inside: how many streams the calls took is what this is about.
  (server as unknown as { server: http2.Http2Server }).server.on("stream", () => streams++);
  const port = await server.listen("127.0.0.1", 0);
  return { server, port, ran, streams: () => streams };
}

const main = await startServer("main");
const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${main.port}`);
after(async () => {
  client.close();
  await main.server.shutdown(100);
});

const execute = (c: typeof client, ability: string, input_json = "{}", deadlineMs?: number) =>
  c.unary("Execute", { ability, input_json }, { deadlineMs });

test("concurrent calls share one stream, and each gets its own answer whatever the order", async () => {
  const before = main.streams();
  // The first calls wait longest, so the answers come back in the reverse of the order sent.
  const waits = Array.from({ length: 40 }, (_, i) => String(200 - i * 5));
  const answers = await Promise.all(waits.map((ms) => execute(client, "wait", ms)));
  assert.deepEqual(
    answers.map((a) => a.result_json),
    waits,
  );
  const more = await Promise.all(Array.from({ length: 20 }, (_, i) => execute(client, "echo", `{"n":${i}}`)));
  assert.deepEqual(
    more.map((a) => JSON.parse(a.result_json).n),
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.ok(main.streams() - before <= 1, `60 calls opened ${main.streams() - before} streams`);
});

test("errors cross the stream as they cross a plain call; a handler's crash is not leaked", async () => {
  await assert.rejects(execute(client, "fails"), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "conflict");
    assert.equal(err.message, "The record changed.");
    assert.equal(err.reason, "Read it again.");
    assert.deepEqual(err.details, [{ path: "/input/version", message: "stale", code: "stale" }]);
    return true;
  });
  await assert.rejects(execute(client, "throws"), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "internal");
    assert.doesNotMatch(err.message, /secret detail/);
    return true;
  });
  // A method this server does not serve is answered on the stream, not by ending it.
  const keys = makeClient(KEYS_PROTO, "gantry.keys.v1.KeyResolver", `127.0.0.1:${main.port}`);
  const unknown = await keys.unary("ResolveKey", { secret_sha256: "x" }).catch((err: unknown) => err);
  keys.close();
  assert.ok(unknown instanceof GantryError && unknown.code === "not_implemented", String(unknown));
  assert.equal((await execute(client, "echo", '{"still":"open"}')).result_json, '{"still":"open"}');
});

test("large answers come over the stream; an answer over 16 MiB is refused, and the stream goes on", async () => {
  const before = main.streams();
  assert.equal((await execute(client, "big", String(3 * 1024 * 1024))).result_json.length, 3 * 1024 * 1024);
  await assert.rejects(execute(client, "big", String(17 * 1024 * 1024)), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "internal");
    assert.match(err.message, /larger than 16777216 bytes/);
    return true;
  });
  assert.equal((await execute(client, "echo", "{}")).result_json, "{}");
  assert.equal(main.streams(), before, "no new stream was needed");
});

test("a request over 64 KiB goes as a plain call of its own, and arrives whole", async () => {
  const before = main.streams();
  const input = JSON.stringify({ text: "z".repeat(1024 * 1024) });
  assert.equal((await execute(client, "echo", input)).result_json, input);
  assert.equal(main.streams() - before, 1);
});

test("a missed deadline is a timeout, and the late answer does not reach the next call", async () => {
  await assert.rejects(
    execute(client, "wait", "300", 50),
    (err: unknown) => err instanceof GantryError && err.code === "timeout",
  );
  await new Promise((r) => setTimeout(r, 300)); // the late answer arrives meanwhile
  assert.equal((await execute(client, "echo", '{"after":1}')).result_json, '{"after":1}');
});

test("any gRPC client can speak the Calls stream (grpc-js here)", async () => {
  const Multiplex = lookupService(MULTIPLEX_PROTO, "gantry.rpc.v1.Multiplex");
  const mux = new Multiplex(`127.0.0.1:${main.port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    Calls: () => grpc.ClientDuplexStream<
      object,
      { id: number; status: number; response: Buffer; message: string; error: Buffer }
    >;
  };
  const execute = AbilityService.service.Execute;
  const stream = mux.Calls();
  const replies: Array<{ id: number; status: number; response: Buffer; message: string; error: Buffer }> = [];
  const ended = new Promise<grpc.StatusObject>((resolve) => stream.on("status", resolve));
  stream.on("data", (r) => replies.push(r));
  const call = (id: number, ability: string, input_json: string, path = execute.path) =>
    stream.write({ id, path, request: execute.requestSerialize({ ability, input_json }) });
  call(7, "wait", "100");
  call(8, "echo", '{"b":2}');
  call(9, "fails", "{}");
  call(10, "echo", "{}", "/no.such.Service/Method");
  stream.end();
  const status = await ended;
  mux.close();
  assert.equal(status.code, grpc.status.OK);
  // Answered as they finished: the waiting call last.
  assert.deepEqual(
    replies.map((r) => r.id),
    [8, 9, 10, 7],
  );
  const [echo, failed, unknown, waited] = replies;
  assert.deepEqual(execute.responseDeserialize(echo.response), { result_json: '{"b":2}', replayed: false });
  assert.equal(failed.status, grpc.status.ABORTED);
  assert.equal(JSON.parse(failed.error.toString()).code, "conflict");
  assert.equal(unknown.status, grpc.status.UNIMPLEMENTED);
  assert.deepEqual(execute.responseDeserialize(waited.response), { result_json: "100", replayed: false });
});

test("shutdown answers the calls the server took; the calls it did not take run once, on another replica", async () => {
  const a = await startServer("a");
  const b = await startServer("b");
  const pair = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${a.port},127.0.0.1:${b.port}`);
  try {
    // One call each opens both streams; the next goes to a again, and is in flight when a stops.
    assert.deepEqual(
      (await Promise.all([execute(pair, "whoami"), execute(pair, "whoami")])).map((r) => JSON.parse(r.result_json)),
      ["a", "b"],
    );
    const inFlight = execute(pair, "wait", "200");
    await new Promise((r) => setTimeout(r, 30));
    const stopped = a.server.shutdown(5_000);
    const sent = Array.from({ length: 20 }, (_, i) => `{"i":${i}}`);
    const answers = await Promise.all(sent.map((input) => execute(pair, "echo", input)));
    assert.deepEqual(
      answers.map((r) => r.result_json),
      sent,
    );
    assert.equal((await inFlight).result_json, "200");
    await stopped;
    const ranOn = (input: string) => [...a.ran, ...b.ran].filter((x) => x === input).length;
    for (const input of sent) assert.equal(ranOn(input), 1, `${input} ran ${ranOn(input)} times`);
    assert.deepEqual(a.ran, ["{}", "200"], "a took nothing once it was stopping");
  } finally {
    pair.close();
    await b.server.shutdown(100);
  }
});

test("a stream cut off with calls in flight fails them as unavailable: they may have run", async () => {
  const c = await startServer("c");
  const one = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${c.port}`);
  try {
    await execute(one, "echo");
    const inFlight = execute(one, "wait", "2000");
    await new Promise((r) => setTimeout(r, 50));
    void c.server.shutdown(1); // no grace: the connection is cut with the call unanswered
    await assert.rejects(inFlight, (err: unknown) => err instanceof GantryError && err.code === "unavailable");
    assert.deepEqual(c.ran, ["{}", "2000"]);
  } finally {
    one.close();
  }
});
