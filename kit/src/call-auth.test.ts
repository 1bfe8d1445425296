/**
 * Inside the cluster a caller is believed only with a token (issue 27 item 4, kit/call-auth): a
 * call without one, or with one made for another request, method, callee or time, or by a process
 * not allowed that method, is refused before its handler runs, on a plain call and on the Calls
 * stream alike; health stays open; the chart's key derivation is exactly the documented string;
 * and a process without keys does not start.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { ABILITY_PROTO, CONNECTIONS_PROTO } from "@gantry/proto/paths";
import {
  CALL_AUTH_HEADER,
  type CallSigner,
  callSigner,
  callVerifier,
  deriveCallKey,
  loadCallKeys,
  mayExecute,
  MAX_TOKEN_TTL_MS,
} from "./call-auth.ts";
import { ConfigError } from "./config.ts";
import { GantryError } from "./errors.ts";
import { grpc, lookupService, makeClient } from "./grpc.ts";
import type { GrpcServiceName, RpcClient } from "./grpc-client.ts";
import type { GrpcServiceFiles } from "./generated/grpc.ts";
import { RpcServer } from "./grpc-server.ts";
import { HealthClient, healthService } from "./health.ts";
import { defineService, runService } from "./service.ts";

const MASTER = randomBytes(32).toString("base64");
const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
const Resolver = lookupService(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver");
const EXECUTE = "/gantry.ability.v1.AbilityService/Execute";

const keysOf = (caller: "gateway" | "payments" | "web" | "content") =>
  loadCallKeys(caller, { GANTRY_CALL_KEY: MASTER });
const asGateway = keysOf("gateway").signer("connections");
const asPayments = keysOf("payments").signer("connections");
/** web holds no key for connections; a key made from the master for the pair all the same. */
const asWeb = callSigner("web", "connections", Buffer.from(deriveCallKey(MASTER, "web", "connections"), "hex"));

// A stand-in connections service: what its handlers saw is what the server let through.
const seen: Array<{ caller?: string; tenant?: string }> = [];
const server = new RpcServer({ auth: loadCallKeys("connections", { GANTRY_CALL_KEY: MASTER }).verifier! });
const health = healthService("SERVING");
server.addService(health.service, health.impl, { open: true });
server.addService(AbilityService.service, {
  Execute: (call: { request: { context: { tenant: string } }; caller?: string }, cb: grpc.sendUnaryData<unknown>) => {
    seen.push({ caller: call.caller, tenant: call.request.context?.tenant });
    cb(null, { result_json: "{}" });
  },
});
server.addService(Resolver.service, {
  ResolveCredential: (call: { request: { tenant: string }; caller?: string }, cb: grpc.sendUnaryData<unknown>) => {
    seen.push({ caller: call.caller, tenant: call.request.tenant });
    cb(null, { credential_source: "tenant", service: "payments", access_token: `token-of-${call.request.tenant}` });
  },
});
const port = await server.listen("127.0.0.1", 0);
const addr = `127.0.0.1:${port}`;
after(() => server.shutdown(100));

/** Runs `fn` with a kit client of the stand-in, its calls signed by `signer` (none: unsigned). */
async function withClient<S extends GrpcServiceName>(
  proto: GrpcServiceFiles[S],
  name: S,
  signer: CallSigner | undefined,
  fn: (client: RpcClient<S>) => Promise<void>,
): Promise<void> {
  const client = makeClient(proto, name, addr, { signer });
  try {
    await fn(client);
  } finally {
    client.close();
  }
}
const executing = (
  signer: CallSigner | undefined,
  fn: (client: RpcClient<"gantry.ability.v1.AbilityService">) => Promise<void>,
) => withClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", signer, fn);
const resolving = (
  signer: CallSigner | undefined,
  fn: (client: RpcClient<"gantry.connections.v1.CredentialResolver">) => Promise<void>,
) => withClient(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver", signer, fn);

const forged = {
  ability: "connection.list",
  input_json: "{}",
  context: { request_id: "req_forged", tenant: "globex", key_tenant: "globex", key_id: "key_x", admin: true },
};

/** grpc-js's client: sends exactly the metadata given, as any process on the pod network could. */
function raw<T>(service: grpc.ServiceClientConstructor, method: string, req: object, metadata: Record<string, string>) {
  const client = new service(addr, grpc.credentials.createInsecure()) as unknown as Record<
    string,
    (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: T) => void) => void
  >;
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise<{ err: grpc.ServiceError | null; res?: T }>((resolve) =>
    client[method](req, md, (err, res) => {
      (client as unknown as grpc.Client).close();
      resolve({ err, res });
    }),
  );
}

async function refusedWith(promise: Promise<unknown>, why: RegExp) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof GantryError);
    // Not a 401 for the API user: a deployment fault, sanitized to a 500 at the gateway.
    assert.equal(err.code, "internal");
    assert.match(err.message, /UNAUTHENTICATED/);
    assert.match(err.message, why);
    return true;
  });
}

describe("a call without a good token never reaches a handler", () => {
  test("a forged context (another tenant, admin) with no token is UNAUTHENTICATED", async () => {
    const before = seen.length;
    const { err } = await raw(AbilityService, "Execute", forged, {});
    assert.equal(err?.code, grpc.status.UNAUTHENTICATED);
    assert.match(err?.details ?? "", /no gantry-call-auth token/);
    const resolved = await raw(Resolver, "ResolveCredential", { tenant: "globex", service: "payments" }, {});
    assert.equal(resolved.err?.code, grpc.status.UNAUTHENTICATED);
    assert.equal(resolved.res, undefined);
    assert.equal(seen.length, before, "no handler ran");
  });

  test("a made-up or malformed token is refused", async () => {
    const expiry = Date.now() + 10_000;
    for (const token of [
      `gateway.${expiry}.${randomBytes(32).toString("base64url")}`,
      `gateway.${expiry}`,
      "gateway",
      `stranger.${expiry}.${randomBytes(32).toString("base64url")}`,
    ]) {
      const { err } = await raw(AbilityService, "Execute", forged, { [CALL_AUTH_HEADER]: token });
      assert.equal(err?.code, grpc.status.UNAUTHENTICATED, token);
    }
  });

  test("the kit's client without a signer is refused, on the Calls stream and as a plain call", async () => {
    await executing(undefined, async (client) => {
      await refusedWith(client.unary("Execute", forged), /no gantry-call-auth token/);
      // Over 64 KiB: a plain unary call of its own.
      const big = { ...forged, input_json: JSON.stringify({ pad: "x".repeat(70_000) }) };
      await refusedWith(client.unary("Execute", big), /no gantry-call-auth token/);
    });
  });

  test("signed by the gateway, both ways through: the handler learns its caller", async () => {
    await executing(asGateway, async (client) => {
      const before = seen.length;
      await client.unary("Execute", forged);
      await client.unary("Execute", { ...forged, input_json: JSON.stringify({ pad: "x".repeat(70_000) }) });
      assert.deepEqual(seen.slice(before), [
        { caller: "gateway", tenant: "globex" },
        { caller: "gateway", tenant: "globex" },
      ]);
    });
  });

  test("health stays open for probes", async () => {
    const probe = new HealthClient(addr);
    assert.equal(await probe.check(), "SERVING");
    probe.close();
  });
});

describe("a token holds for its own call only", () => {
  const message = (req: object) => AbilityService.service.Execute.requestSerialize(req);
  const send = (req: object, token: string) => raw(AbilityService, "Execute", req, { [CALL_AUTH_HEADER]: token });
  const soon = () => Date.now() + 10_000;

  test("the genuine token passes (the control of the cases below)", async () => {
    const { err } = await send(forged, asGateway!.sign(EXECUTE, message(forged), soon()));
    assert.equal(err, null);
  });

  test("lifted onto another context, ability or input: refused", async () => {
    const token = asGateway!.sign(EXECUTE, message(forged), soon());
    for (const other of [
      { ...forged, context: { ...forged.context, tenant: "initech" } },
      { ...forged, context: { ...forged.context, admin: false, key_id: "key_y" } },
      { ...forged, ability: "connection.revoke" },
      { ...forged, input_json: '{"service":"payments"}' },
    ]) {
      const { err } = await send(other, token);
      assert.equal(err?.code, grpc.status.UNAUTHENTICATED, JSON.stringify(other));
      assert.match(err?.details ?? "", /does not match the call/);
    }
  });

  test("made for another callee or method: refused", async () => {
    const forTrust = keysOf("gateway").signer("trust")!;
    const a = await send(forged, forTrust.sign(EXECUTE, message(forged), soon()));
    assert.equal(a.err?.code, grpc.status.UNAUTHENTICATED);
    const b = await send(
      forged,
      asGateway!.sign("/gantry.ability.v1.AbilityService/Describe", message(forged), soon()),
    );
    assert.equal(b.err?.code, grpc.status.UNAUTHENTICATED);
  });

  test("expired, or living longer than allowed: refused", async () => {
    const expired = await send(forged, asGateway!.sign(EXECUTE, message(forged), Date.now() - 60_000));
    assert.equal(expired.err?.code, grpc.status.UNAUTHENTICATED);
    assert.match(expired.err?.details ?? "", /expired/);
    const forever = await send(forged, asGateway!.sign(EXECUTE, message(forged), Date.now() + 24 * 3600_000));
    assert.equal(forever.err?.code, grpc.status.UNAUTHENTICATED);
    assert.match(forever.err?.details ?? "", /too long/);
  });

  test("the expiry is the call's deadline, at most five minutes ahead", () => {
    let expiry = 0;
    const spy: CallSigner = {
      ...asGateway!,
      sign: (_p, _m, e) => {
        expiry = e;
        return "spy";
      },
    };
    const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addr, { signer: spy });
    const at = Date.now();
    void client.unary("Execute", forged, { deadlineMs: 3_600_000 }).catch(() => {});
    assert.ok(expiry >= at + MAX_TOKEN_TTL_MS && expiry <= Date.now() + MAX_TOKEN_TTL_MS);
    void client.unary("Execute", forged, { deadlineMs: 2_000 }).catch(() => {});
    assert.ok(expiry <= Date.now() + 2_000);
    client.close();
  });
});

describe("a service calling another: only the callers and methods kit/topology lists", () => {
  test("payments may resolve a tenant's credential; the handler sees payments and the signed tenant", async () => {
    await resolving(asPayments, async (client) => {
      const before = seen.length;
      const res = await client.unary("ResolveCredential", {
        tenant: "acme",
        service: "payments",
      });
      assert.equal(res.access_token, "token-of-acme");
      assert.deepEqual(seen.slice(before), [{ caller: "payments", tenant: "acme" }]);
    });
  });

  test("the gateway may not either: no ability it runs needs a tenant's raw token", async () => {
    await resolving(asGateway, async (client) => {
      const before = seen.length;
      await refusedWith(
        client.unary("ResolveCredential", { tenant: "globex", service: "payments" }),
        /gateway may not call .*ResolveCredential on connections/,
      );
      assert.equal(seen.length, before);
    });
  });

  test("web, with a well-made key of its own, may not: refused before the handler", async () => {
    await resolving(asWeb, async (client) => {
      const before = seen.length;
      await refusedWith(
        client.unary("ResolveCredential", { tenant: "globex", service: "payments" }),
        /no key for caller 'web'/,
      );
      assert.equal(seen.length, before);
    });
  });

  test("payments, which may resolve credentials, may not run abilities on connections", async () => {
    await executing(asPayments, async (client) => {
      await refusedWith(client.unary("Execute", forged), /payments may not call .*Execute on connections/);
    });
  });

  test("trust runs on memory only the two abilities it needs", () => {
    assert.ok(mayExecute("trust", "memory", "decision.list"));
    assert.ok(mayExecute("trust", "memory", "lesson.record"));
    assert.ok(!mayExecute("trust", "memory", "memory.forget"));
    assert.ok(!mayExecute("trust", "payments", "payout.send"));
    assert.ok(mayExecute("gateway", "payments", "payout.send"));
  });
});

describe("keys", () => {
  test("a pair key is hex(sha256(master|caller|service)), as a Helm template computes it", () => {
    const master = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==";
    assert.equal(
      deriveCallKey(master, "payments", "connections"),
      createHash("sha256").update(`${master}|payments|connections`).digest("hex"),
    );
    // Derived keys given explicitly work as the master does.
    const explicit = loadCallKeys("payments", {
      GANTRY_CALL_KEYS_IN: JSON.stringify({ gateway: deriveCallKey(MASTER, "gateway", "payments") }),
      GANTRY_CALL_KEYS_OUT: JSON.stringify({ connections: deriveCallKey(MASTER, "payments", "connections") }),
    });
    const verifier = loadCallKeys("connections", { GANTRY_CALL_KEY: MASTER }).verifier!;
    const msg = Buffer.from("request");
    const path = "/gantry.connections.v1.CredentialResolver/ResolveCredential";
    const token = explicit.signer("connections")!.sign(path, msg, Date.now() + 1_000);
    assert.deepEqual(verifier.authenticate(path, msg, { [CALL_AUTH_HEADER]: token }), { caller: "payments" });
  });

  test("without keys a process does not start, and says which variable to set", async () => {
    assert.throws(
      () => loadCallKeys("connections", {}),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /GANTRY_CALL_KEY/);
        assert.match(err.message, /GANTRY_CALL_AUTH=off/);
        return true;
      },
    );
    assert.throws(() => loadCallKeys("gateway", {}), /GANTRY_CALL_KEYS_OUT lacks keys, connections/);
    assert.throws(
      () =>
        loadCallKeys("payments", {
          GANTRY_CALL_KEYS_IN: JSON.stringify({ gateway: deriveCallKey(MASTER, "gateway", "payments") }),
        }),
      /GANTRY_CALL_KEYS_OUT lacks connections/,
    );
    assert.throws(() => loadCallKeys("keys", { GANTRY_CALL_KEY: "short" }), /at least 32/);
    // runService refuses before it connects to anything (this Postgres URL leads nowhere).
    await assert.rejects(
      runService(defineService({ name: "web", init: () => ({}) }), {
        DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
        LOG_LEVEL: "silent",
      }),
      /GANTRY_CALL_KEY/,
    );
  });

  test("GANTRY_CALL_AUTH=off: starts without keys and verifies nothing (local experiments)", () => {
    const off = loadCallKeys("connections", { GANTRY_CALL_AUTH: "off" });
    assert.equal(off.verifier, null);
    assert.equal(off.signer("keys"), undefined);
  });

  test("a token is the documented HMAC-SHA256 of its call, whatever the key's length", () => {
    // The mac is built from one-shot hashes (kit/call-auth `mac`): it must stay what createHmac
    // gives, or a service of this version and one of the last would refuse each other.
    const request = randomBytes(700);
    const expiry = Date.now() + 10_000;
    for (const key of [randomBytes(32), randomBytes(64), randomBytes(100)]) {
      const expected = createHmac("sha256", key)
        .update(`gantry-call-v1|gateway|payments|${EXECUTE}|${expiry}|`)
        .update(request)
        .digest("base64url");
      const token = callSigner("gateway", "payments", key).sign(EXECUTE, request, expiry);
      assert.equal(token, `gateway.${expiry}.${expected}`);
      const verifier = callVerifier("payments", new Map([["gateway", key]]));
      assert.deepEqual(verifier.authenticate(EXECUTE, request, { [CALL_AUTH_HEADER]: token }), { caller: "gateway" });
    }
  });

  test("a verifier compares in constant time, whatever the token's length", () => {
    const v = callVerifier("keys", new Map([["gateway", randomBytes(32)]]));
    assert.deepEqual(v.authenticate(EXECUTE, Buffer.alloc(0), { [CALL_AUTH_HEADER]: `gateway.${Date.now()}.AA` }), {
      refused: "token does not match the call",
    });
  });
});
