/**
 * The connections service believes no caller it cannot verify (issue 27 item 4; kit/call-auth). A
 * process on the pod network that forges a call context (another tenant, admin) over raw gRPC gets
 * neither an ability's result nor a tenant's decrypted token; a process the topology does not list
 * (the gateway included) gets no token even with a well-made key; payments, which is listed, gets the tenant's token for
 * the tenant it signed. The real service, its real server and its handlers.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  CALL_AUTH_HEADER,
  callSigner,
  deriveCallKey,
  GantryError,
  grpc,
  lookupService,
  makeClient,
  type ResolvedCredential,
} from "@gantry/kit";
import { ABILITY_PROTO, CONNECTIONS_PROTO } from "@gantry/proto/paths";
import { type ConnectionsTest, startConnections } from "./helpers.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
const Resolver = lookupService(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver");

let t: ConnectionsTest;
before(async () => {
  t = await startConnections();
  // The tenant whose token an intruder is after.
  await t.connect("payments", { tenant: "victim-co", keyTenant: "victim-co", keyId: "key_victim" });
});
after(async () => t?.stop());

/** grpc-js, sending only what it is given: any pod on the network could. */
function raw<T>(
  service: grpc.ServiceClientConstructor,
  method: string,
  req: object,
  metadata: Record<string, string> = {},
): Promise<{ err: grpc.ServiceError | null; res?: T }> {
  const client = new service(`127.0.0.1:${t.port}`, grpc.credentials.createInsecure()) as unknown as Record<
    string,
    (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: T) => void) => void
  >;
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  return new Promise((resolve) =>
    client[method](req, md, (err, res) => {
      (client as unknown as grpc.Client).close();
      resolve({ err, res });
    }),
  );
}

const forgedContext = {
  request_id: "req_forged",
  tenant: "victim-co",
  key_tenant: "victim-co",
  key_id: "key_forged",
  scopes: ["*"],
  admin: true,
  sub_tenants: true,
};

test("a forged admin context for another tenant, without a token: refused, nothing read", async () => {
  for (const ability of ["connection.list", "connection.get"]) {
    const { err, res } = await raw(AbilityService, "Execute", {
      ability,
      input_json: ability === "connection.get" ? '{"service":"payments"}' : "{}",
      context: forgedContext,
    });
    assert.equal(err?.code, grpc.status.UNAUTHENTICATED, ability);
    assert.equal(res, undefined);
  }
});

test("ResolveCredential without a token: refused, no token handed out", async () => {
  const { err, res } = await raw<ResolvedCredential>(Resolver, "ResolveCredential", {
    tenant: "victim-co",
    service: "payments",
  });
  assert.equal(err?.code, grpc.status.UNAUTHENTICATED);
  assert.equal(res?.access_token, undefined);
});

test("a token of a made-up key, or a stale one, is refused", async () => {
  const request = { tenant: "victim-co", service: "payments", request_id: "" };
  const path = Resolver.service.ResolveCredential.path;
  const bytes = Resolver.service.ResolveCredential.requestSerialize(request);
  const madeUp = callSigner("payments", "connections", Buffer.alloc(32, 7));
  const a = await raw(Resolver, "ResolveCredential", request, {
    [CALL_AUTH_HEADER]: madeUp.sign(path, bytes, Date.now() + 5_000),
  });
  assert.equal(a.err?.code, grpc.status.UNAUTHENTICATED);
  const real = t.s.signer("payments")!;
  const stale = await raw(Resolver, "ResolveCredential", request, {
    [CALL_AUTH_HEADER]: real.sign(path, bytes, Date.now() - 120_000),
  });
  assert.equal(stale.err?.code, grpc.status.UNAUTHENTICATED);
  // The same request signed now is served: the refusals above were the token's.
  const fresh = await raw<ResolvedCredential>(Resolver, "ResolveCredential", request, {
    [CALL_AUTH_HEADER]: real.sign(path, bytes, Date.now() + 5_000),
  });
  assert.equal(fresh.err, null);
  assert.equal(fresh.res?.credential_source, "tenant");
});

test("a process kit/topology does not list, the gateway included, gets no credential, even with a well-made key", async () => {
  const master = t.s.env.GANTRY_CALL_KEY;
  assert.ok(master, "the stack hands every process GANTRY_CALL_KEY");
  for (const caller of ["gateway", "web", "memory", "workspace"] as const) {
    const signer = callSigner(caller, "connections", Buffer.from(deriveCallKey(master, caller, "connections"), "hex"));
    const client = makeClient(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver", `127.0.0.1:${t.port}`, {
      signer,
    });
    try {
      await assert.rejects(
        client.unary("ResolveCredential", { tenant: "victim-co", service: "payments" }),
        (err: unknown) => err instanceof GantryError && err.code === "internal" && /UNAUTHENTICATED/.test(err.message),
        caller,
      );
    } finally {
      client.close();
    }
  }
});

test("payments, which kit/topology lists, resolves the tenant it signed for", async () => {
  const got = await t.resolve("victim-co", "payments");
  assert.equal(got.credential_source, "tenant");
  assert.ok(got.access_token);
});

test("payments may resolve credentials but not run connections' abilities", async () => {
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `127.0.0.1:${t.port}`, {
    signer: t.s.signer("payments"),
  });
  try {
    await assert.rejects(
      client.unary("Execute", { ability: "connection.list", input_json: "{}", context: forgedContext }),
      /UNAUTHENTICATED/,
    );
  } finally {
    client.close();
  }
});
