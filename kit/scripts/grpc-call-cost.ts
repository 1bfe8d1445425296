/**
 * CPU per unary call of the kit's gRPC transport alone (issue 30): the real `RpcClient` in this
 * process calls the real `RpcServer` in a child process over loopback, signed and checked as in a
 * deployment (kit/call-auth, gateway → payments), `AbilityService/Execute` with a request and a
 * response of a payout's size. The handler answers at once, so what is measured is the kit's
 * client, server, framing, Calls stream and call check, nothing of a service's own work.
 *
 * `C` calls at once (default 16), `N` calls a round (default 20,000), `ROUNDS` rounds (default 3)
 * after a warm-up of `WARM` calls; each round prints the client's and the server's process CPU per
 * call (process.cpuUsage, user + system), apart. `PLAIN=1` sends every call as a plain unary
 * call (its own HTTP/2 stream) instead of on the Calls stream. `PROF=server` writes
 * a --cpu-prof of the server into `PROF_DIR` (default /tmp); for the client's, run this with --cpu-prof.
 *
 * Run it from the tree whose kit is to be measured (a worktree of another commit, with
 * `node_modules` linked, to compare before and after side by side).
 *
 * @example
 * node_modules/.bin/node kit/scripts/grpc-call-cost.ts
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { callSigner, callVerifier } from "../src/call-auth.ts";
import { RpcClient } from "../src/grpc-client.ts";
import { lookupService } from "../src/grpc-proto.ts";
import { MULTIPLEX_MAX_REQUEST_BYTES } from "../src/grpc-multiplex.ts";
import { RpcServer } from "../src/grpc-server.ts";

const N = Number(process.env.N ?? 20_000);
const C = Number(process.env.C ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WARM = Number(process.env.WARM ?? 5_000);
const PROF = process.env.PROF;
const PROF_DIR = process.env.PROF_DIR ?? "/tmp";

const service = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");

/** A payout's result as payments answers it (about 400 bytes of JSON). */
const RESULT = JSON.stringify({
  payoutId: "po_01JDX3Q8ZK7W5N4M2R1T6Y9V0B",
  status: "sent",
  amount: { value: "125.00", currency: "EUR" },
  recipient: { id: "rcp_01JDX3Q8ZK7W5N4M2R1T6Y9V0C", name: "Ada Lovelace" },
  reference: "invoice 2026-11-0042",
  createdAt: "2026-11-27T13:30:00.000Z",
  sentAt: "2026-11-27T13:30:00.012Z",
  ledger: { journalId: "jnl_01JDX3Q8ZK7W5N4M2R1T6Y9V0D", balanceAfter: { value: "874.00", currency: "EUR" } },
});

if (process.argv[2] === "--server") {
  const key = Buffer.from(process.argv[3], "hex");
  const server = new RpcServer({ auth: callVerifier("payments", new Map([["gateway", key]])), tls: undefined });
  server.addService(service.service, {
    Execute: (_call: unknown, done: (err: unknown, value?: unknown) => void) =>
      done(null, { result_json: RESULT, replayed: false }),
  });
  const port = await server.listen("127.0.0.1", 0);
  process.on("message", (m) => {
    if (m === "cpu") process.send!(process.cpuUsage());
    if (m === "stop") void server.shutdown(100).then(() => process.exit(0));
  });
  process.send!({ port });
} else {
  const key = randomBytes(32);
  const child = fork(new URL(import.meta.url).pathname, ["--server", key.toString("hex")], {
    stdio: "inherit",
    execArgv: [...process.execArgv, ...(PROF === "server" ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : [])],
  });
  const next = () => new Promise<unknown>((resolve) => child.once("message", resolve));
  const { port } = (await next()) as { port: number };
  const serverCpu = async () => {
    child.send("cpu");
    const u = (await next()) as NodeJS.CpuUsage;
    return u.user + u.system;
  };
  const client = new RpcClient<"gantry.ability.v1.AbilityService">(service, `127.0.0.1:${port}`, {
    signer: callSigner("gateway", "payments", key),
    tls: undefined,
  });
  const request = {
    ability: "payout.send",
    context: {
      request_id: "req_01JDX3Q8ZK7W5N4M2R1T6Y9V0E",
      tenant: "bench-tenant",
      key_tenant: "bench-tenant",
      key_id: "key_01JDX3Q8ZK7W5N4M2R1T6Y9V0F",
      scopes: ["payments:write", "payments:read"],
      base_url: "http://127.0.0.1:8080",
    },
    // PLAIN=1: past the Calls stream's limit, so the client sends a plain unary call.
    input_json:
      process.env.PLAIN === "1"
        ? JSON.stringify({ pad: "x".repeat(MULTIPLEX_MAX_REQUEST_BYTES) })
        : JSON.stringify({
            recipientId: "rcp_01JDX3Q8ZK7W5N4M2R1T6Y9V0C",
            amount: { value: "125.00", currency: "EUR" },
            reference: "invoice 2026-11-0042",
            idempotencyKey: "idem-01JDX3Q8ZK7W5N4M2R1T6Y9V0G",
          }),
  };
  const metadata = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
  const run = async (n: number) => {
    let left = n;
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (left-- > 0) await client.unary("Execute", request, { deadlineMs: 10_000, metadata });
      }),
    );
  };
  await run(WARM);
  const rows: string[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const s0 = await serverCpu();
    const c0 = process.cpuUsage();
    await run(N);
    const c = process.cpuUsage(c0);
    const s = (await serverCpu()) - s0;
    rows.push(
      `round ${r + 1}: client ${((c.user + c.system) / N).toFixed(1)} µs, server ${(s / N).toFixed(1)} µs a call`,
    );
    console.log(rows.at(-1));
  }
  client.close();
  child.send("stop");
  await new Promise((resolve) => child.once("exit", resolve));
}
