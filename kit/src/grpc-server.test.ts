/**
 * The kit's gRPC server answers real gRPC clients: grpc-js's own client (the reference
 * implementation, as kubelet's probe or grpcurl would call it) and the kit's client. Results,
 * errors with our trailer, unknown methods, health, oversized and cancelled calls, and a shutdown
 * that lets calls in flight finish.
 */
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { GantryError } from "./errors.ts";
import { grpc, lookupService, makeClient, toGrpcError } from "./grpc.ts";
import { RpcServer } from "./grpc-server.ts";
import { HealthClient, healthService } from "./health.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");

function startServer() {
  const server = new RpcServer();
  const health = healthService();
  server.addService(health.service, health.impl);
  server.addService(AbilityService.service, {
    Execute: (call: { request: { ability: string; input_json: string } }, cb: grpc.sendUnaryData<unknown>) => {
      const { ability, input_json } = call.request;
      if (ability === "echo") return cb(null, { result_json: input_json, replayed: true });
      if (ability === "slow") return setTimeout(() => cb(null, { result_json: "{}" }), 300);
      if (ability === "throws") throw new Error("handler bug");
      cb(toGrpcError(new GantryError("not_found", "No contact ctc_1 — ask contact.search.", { reason: "gone" })));
    },
  });
  return { server, health };
}

const { server, health } = startServer();
const port = await server.listen("127.0.0.1", 0);
health.set("SERVING");
const reference = new AbilityService(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<
  string,
  (req: unknown, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void
>;
const ours = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${port}`);
after(async () => {
  (reference as unknown as grpc.Client).close();
  ours.close();
  await server.shutdown(100);
});

const viaReference = (req: object) =>
  new Promise<{ err: grpc.ServiceError | null; res?: Record<string, unknown> }>((resolve) =>
    reference.Execute(req, (err, res) => resolve({ err, res })),
  );

test("grpc-js's client gets results and our errors with their trailer", async () => {
  const ok = await viaReference({ ability: "echo", input_json: '{"a":1}' });
  assert.equal(ok.err, null);
  assert.deepEqual(ok.res, { result_json: '{"a":1}', replayed: true });

  const failed = await viaReference({ ability: "missing", input_json: "{}" });
  assert.equal(failed.err?.code, grpc.status.NOT_FOUND);
  assert.equal(failed.err?.details, "No contact ctc_1 — ask contact.search.");
  const trailer = failed.err?.metadata.get("gantry-error-bin")[0];
  assert.equal(JSON.parse(String(trailer)).reason, "gone");
});

test("the kit's client gets the same GantryError; a throwing handler is an internal error", async () => {
  await assert.rejects(ours.unary("Execute", { ability: "missing", input_json: "{}" }), (err: unknown) => {
    assert.ok(err instanceof GantryError);
    assert.equal(err.code, "not_found");
    assert.equal(err.message, "No contact ctc_1 — ask contact.search.");
    assert.equal(err.reason, "gone");
    return true;
  });
  const crashed = await viaReference({ ability: "throws", input_json: "{}" });
  assert.equal(crashed.err?.code, grpc.status.INTERNAL);
  assert.doesNotMatch(String(crashed.err?.details), /handler bug/);
});

test("an unknown method is UNIMPLEMENTED; health answers for the server", async () => {
  const Resolver = lookupService("gantry/keys/v1/keys.proto", "gantry.keys.v1.KeyResolver");
  const other = new Resolver(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<
    string,
    (req: unknown, cb: (err: grpc.ServiceError | null) => void) => void
  >;
  const err = await new Promise<grpc.ServiceError | null>((resolve) => other.ResolveKey({}, resolve));
  assert.equal(err?.code, grpc.status.UNIMPLEMENTED);
  (other as unknown as grpc.Client).close();

  const probe = new HealthClient(`127.0.0.1:${port}`);
  assert.equal(await probe.check(), "SERVING");
  health.set("NOT_SERVING");
  assert.equal(await probe.check(), "NOT_SERVING");
  health.set("SERVING");
  probe.close();
});

test("a message over 16 MiB is refused with RESOURCE_EXHAUSTED", async () => {
  const big = new AbilityService(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.max_send_message_length": 64 * 1024 * 1024,
  }) as unknown as typeof reference;
  const err = await new Promise<grpc.ServiceError | null>((resolve) =>
    big.Execute({ ability: "echo", input_json: "x".repeat(17 * 1024 * 1024) }, (e) => resolve(e)),
  );
  assert.equal(err?.code, grpc.status.RESOURCE_EXHAUSTED);
  (big as unknown as grpc.Client).close();
});

test("shutdown lets a call in flight finish, then refuses new connections", async () => {
  const second = startServer();
  const p = await second.server.listen("127.0.0.1", 0);
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${p}`);
  try {
    const inFlight = client.unary("Execute", { ability: "slow", input_json: "{}" });
    await new Promise((r) => setTimeout(r, 50));
    await second.server.shutdown(5_000);
    assert.equal((await inFlight).result_json, "{}");
    await assert.rejects(
      client.unary("Execute", { ability: "echo", input_json: "{}" }, { deadlineMs: 500 }),
      (err: unknown) => err instanceof GantryError && err.code === "unavailable",
    );
  } finally {
    client.close();
  }
});

test("a plain call over the limit is refused while it is still being sent, and the stream is reset (issue 27, item 5)", async () => {
  const http2 = await import("node:http2");
  const session = http2.connect(`http://127.0.0.1:${port}`);
  await new Promise((resolve) => session.once("remoteSettings", resolve));
  assert.equal(session.remoteSettings.maxConcurrentStreams, 256, "a client may open at most 256 streams");
  const stream = session.request({
    ":method": "POST",
    ":path": "/gantry.ability.v1.AbilityService/Execute",
    "content-type": "application/grpc",
    te: "trailers",
  });
  let status: string | undefined;
  stream.on("response", (h) => (status ??= h["grpc-status"] as string | undefined));
  stream.on("trailers", (h) => (status ??= h["grpc-status"] as string | undefined));
  stream.on("error", () => {});
  const head = Buffer.alloc(5);
  head.writeUInt32BE(100 * 1024 * 1024, 1);
  stream.write(head);
  const mib = Buffer.alloc(1024 * 1024);
  let sent = 0;
  while (!stream.closed && sent < 100) {
    const ok = stream.write(mib);
    sent++;
    if (!ok) await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((resolve) => (stream.closed ? resolve(null) : stream.once("close", resolve)));
  session.close();
  assert.equal(status, String(grpc.status.RESOURCE_EXHAUSTED));
  assert.ok(sent < 40, `the server stopped the upload after ${sent} MiB of a declared 100`);
});

test("more than 1024 calls in flight on one Calls stream: the rest are RESOURCE_EXHAUSTED at once (issue 27, item 5)", async () => {
  const results = await Promise.allSettled(
    Array.from({ length: 1100 }, () => ours.unary("Execute", { ability: "slow", input_json: "{}" })),
  );
  const refused = results.filter(
    (r) => r.status === "rejected" && /more than 1024 calls in flight/.test(String((r.reason as Error).message)),
  );
  const answered = results.filter((r) => r.status === "fulfilled");
  assert.ok(refused.length > 0, "some calls were refused");
  assert.ok(answered.length >= 1024, `${answered.length} answered`);
});
