/**
 * A replica whose address answers nothing (a pod that is gone: no host replies, so no refusal comes
 * back) is given up after the client's connect timeout, and the call goes to another replica
 * instead of waiting out its deadline. "Answers nothing" is made here with a listening socket whose
 * accept queue is full and never drained: Linux then drops further SYNs without a reply.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import { once } from "node:events";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { type grpc, lookupService, makeClient } from "./grpc.ts";
import type { ServerCall } from "./grpc-multiplex.ts";
import { RpcServer } from "./grpc-server.ts";

const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
const server = new RpcServer();
server.addService(AbilityService.service, {
  Execute: (_call: ServerCall<{ ability: string }>, cb: grpc.sendUnaryData<unknown>) => cb(null, { result_json: "{}" }),
});
const goodPort = await server.listen("127.0.0.1", 0);

// A socket that listens (backlog 0) and never accepts, held by a process of its own.
const silent = spawn(
  "python3",
  [
    "-c",
    "import socket,sys\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\nsys.stdin.read()",
  ],
  { stdio: ["pipe", "pipe", "inherit"] },
);
const [line] = (await once(silent.stdout!, "data")) as [Buffer];
const silentPort = Number(line.toString().trim());
// Fill its accept queue: these complete the handshake and wait, unaccepted.
const fillers = await Promise.all(
  [0, 1].map(
    () =>
      new Promise<net.Socket>((resolve) => {
        const s = net.connect(silentPort, "127.0.0.1", () => resolve(s));
        s.on("error", () => {});
        setTimeout(() => resolve(s), 500);
      }),
  ),
);
after(async () => {
  for (const s of fillers) s.destroy();
  silent.kill();
  await server.shutdown(100);
});

test("a replica that answers nothing is given up and the call is served by another", async () => {
  const client = makeClient(
    ABILITY_PROTO,
    "gantry.ability.v1.AbilityService",
    `127.0.0.1:${silentPort},127.0.0.1:${goodPort}`,
  );
  try {
    const started = Date.now();
    // Round robin starts with the first address: the silent one.
    const answer = await client.unary("Execute", { ability: "x", input_json: "{}" }, { deadlineMs: 15_000 });
    assert.equal(answer.result_json, "{}");
    const took = Date.now() - started;
    assert.ok(took < 10_000, `answered after ${took} ms: the call waited on the silent replica`);
  } finally {
    client.close();
  }
});
