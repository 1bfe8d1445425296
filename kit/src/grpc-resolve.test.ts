/**
 * A service named by DNS (a Kubernetes headless Service: one record per ready pod) is followed as
 * its pods come and go: a replica the name no longer answers leaves the rotation, so a pod that a
 * rollout replaced is not called again. The lookup is the client's own `dns.lookup`, answered here
 * by a mock for one test name; the replicas are real servers on two loopback addresses.
 */
import { after, mock, test } from "node:test";
import assert from "node:assert/strict";
import dns from "node:dns/promises";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { type grpc, lookupService, makeClient } from "./grpc.ts";
import type { ServerCall } from "./grpc-multiplex.ts";
import { RpcServer } from "./grpc-server.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
const NAME = "workspace-headless.gantry.test";

function replica(name: string): RpcServer {
  const server = new RpcServer();
  server.addService(AbilityService.service, {
    Execute: (_call: ServerCall<unknown>, cb: grpc.sendUnaryData<unknown>) =>
      cb(null, { result_json: JSON.stringify({ replica: name }) }),
  });
  return server;
}
const kept = replica("kept");
const port = await kept.listen("127.0.0.1", 0);
const replaced = replica("replaced");
await replaced.listen("127.0.0.2", port);

let answer = ["127.0.0.2", "127.0.0.1"];
/** A service whose first pod is not ready yet: its name answers nothing (as a headless Service with no ready pod). */
const LATE = "trust-headless.gantry.test";
let lateAnswer: string[] = [];
const realLookup = dns.lookup.bind(dns);
mock.method(dns, "lookup", (async (host: string, options: unknown) => {
  if (host === NAME) return answer.map((address) => ({ address, family: 4 }));
  if (host === LATE) {
    if (lateAnswer.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return lateAnswer.map((address) => ({ address, family: 4 }));
  }
  return realLookup(host, options as never);
}) as typeof dns.lookup);
after(async () => {
  mock.restoreAll();
  await kept.shutdown(100);
});

test("a replica the name stops answering leaves the rotation; the calls go to those it answers", async () => {
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `${NAME}:${port}`);
  const call = async () =>
    JSON.parse((await client.unary("Execute", { ability: "x", input_json: "{}" })).result_json).replica as string;
  try {
    await client.settled();
    assert.deepEqual(client.targets.sort(), [`127.0.0.1:${port}`, `127.0.0.2:${port}`]);
    const before = new Set([await call(), await call()]);
    assert.deepEqual([...before].sort(), ["kept", "replaced"]);

    // The rollout: the new pod is ready, the old one leaves the Service and stops.
    answer = ["127.0.0.1"];
    await replaced.shutdown(100);
    await new Promise((r) => setTimeout(r, 1_100)); // lookups after a failure are at most one a second
    for (let i = 0; i < 4; i++) assert.equal(await call(), "kept");
    await client.settled();
    assert.deepEqual(client.targets, [`127.0.0.1:${port}`], "the replaced pod's address is gone");
  } finally {
    client.close();
  }
});

test("a client made before its service had a ready pod reaches the first one on the first call", async () => {
  // The gateway starts before the services that migrate first: its lookups find no pod yet.
  const client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", `${LATE}:${port}`);
  try {
    await client.settled();
    lateAnswer = ["127.0.0.1"]; // the pod is ready; nothing has looked the name up since
    const { result_json } = await client.unary("Execute", {
      ability: "x",
      input_json: "{}",
    });
    assert.equal(JSON.parse(result_json).replica, "kept");
  } finally {
    client.close();
  }
});
