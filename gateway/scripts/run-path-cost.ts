/**
 * The gateway's CPU per call under a trust run beside a plain one (issue 30), in this process:
 * `runAbility` with `context.runId` takes its permit and records its receipt through the real
 * `PermitGate` (one `PermitGate.Batch` RPC for what waits, signed, over the kit's gRPC transport) to
 * a trust stand-in in a child process, which answers each Batch after `DELAY_MS` (default 3, about
 * what trust takes under load) without doing trust's work. The owner's hop is stood in for by a
 * `contact.get` result after 0 to 2 × `HOP_MS` ms (default 2). `C` calls at once (default 32, as
 * services/trust/scripts/cost-per-call.ts), plain and run alternating `ROUNDS` times after a
 * warm-up; it prints the CPU of this process per call (and its system part), calls/s, the p99 of a
 * call and the items per Batch RPC. With `MARKS=1` it also prints each round's start and end on
 * CLOCK_MONOTONIC, for run-path-perf.ts to split a `perf record` of it by round.
 *
 * What the stack's figures (cost-per-call.ts) hide in its noise shows here: the stand-in's CPU is
 * not counted, and no other process shares the measurement.
 *
 * The first argument is the gateway's `src` directory to load, so the code before a change can be
 * measured beside it (a checkout or worktree of that commit, with `node_modules` linked).
 *
 * @example
 * node_modules/.bin/node gateway/scripts/run-path-cost.ts gateway/src 20000
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { abilityById } from "@gantry/proto/catalogue";
import { TRUST_PROTO } from "@gantry/proto/paths";
import { callSigner, type grpc, lookupService, RpcServer } from "@gantry/kit";
import type { GateBatchRequest } from "@gantry/kit/generated/grpc.ts";
import { standInGateway } from "./stand-in-deps.ts";

const DELAY_MS = Number(process.env.DELAY_MS ?? 3);
const HOP_MS = Number(process.env.HOP_MS ?? 2);

if (process.argv[2] === "--trust-stand-in") {
  const server = new RpcServer();
  let batches = 0;
  let items = 0;
  server.addService(lookupService(TRUST_PROTO, "gantry.trust.v1.PermitGate").service, {
    Batch: (call: { request: GateBatchRequest }, done: grpc.sendUnaryData<unknown>) => {
      const { permits, receipts } = call.request;
      batches++;
      items += permits.length + receipts.length;
      setTimeout(
        () =>
          done(null, {
            permits: permits.map((p) => ({ run_id: p.run_id, permit_id: `pmt_${p.request_id}` })),
            receipts: receipts.map((r, i) => ({ request_id: r.request_id, log_index: i })),
          }),
        DELAY_MS,
      );
    },
  });
  const port = await server.listen("127.0.0.1", 0);
  process.on("message", (m) => {
    if (m === "count") process.send!({ batches, items });
  });
  process.send!({ port });
} else {
  const [dirArg = "gateway/src", nArg = "20000"] = process.argv.slice(2);
  const N = Number(nArg);
  const C = Number(process.env.C ?? 32);
  const ROUNDS = Number(process.env.ROUNDS ?? 3);
  const standIn = fork(new URL(import.meta.url).pathname, ["--trust-stand-in"], { stdio: "inherit" });
  const ask = <T>(m?: string) =>
    new Promise<T>((resolve) => {
      standIn.once("message", (v) => resolve(v as T));
      if (m) standIn.send(m);
    });
  const { port } = await ask<{ port: number }>();

  // A contact as workspace answers contact.get (its fields and their order).
  const resultJson = JSON.stringify({
    id: "con_4f9a2c7e1b3d5f60a8c9e2b1",
    name: "Cost Permit",
    email: null,
    phone: null,
    company: null,
    title: null,
    notes: null,
    tags: [],
    customFields: {},
    createdAt: "2026-11-27T07:00:00.000Z",
    updatedAt: "2026-11-27T07:00:00.000Z",
  });
  const { runAbility, key } = await standInGateway(dirArg, {
    // The owner answers after 0 to 2 × HOP_MS ms, so calls come to their permit and receipt spread
    // out, as in a stack, rather than all in one turn.
    dispatcher: {
      execute: () =>
        new Promise((resolve) =>
          setTimeout(() => resolve({ resultJson, replayed: false }), Math.random() * 2 * HOP_MS),
        ),
    },
    permits: (PermitGate) =>
      new PermitGate(`127.0.0.1:${port}`, 5_000, new Map(), callSigner("gateway", "trust", randomBytes(32))),
  });
  const ability = "contact.get";
  const input = abilityById.get(ability)!.example;
  let n = 0;

  let latencies: number[] = [];
  async function calls(count: number, run: boolean): Promise<void> {
    let i = 0;
    latencies = [];
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (i++ < count) {
          const body = run ? { input, context: { runId: "run_bench" } } : { input };
          const t0 = performance.now();
          const out = await runAbility({
            requestId: `req_${n++}`,
            started: performance.now(),
            credential: { authorization: `Bearer ${key}` },
            ability,
            body: { read: async () => body },
            baseUrl: "http://127.0.0.1:8080",
            clientAddress: "127.0.0.1",
            signal: new AbortController().signal,
            headers: {},
          });
          if (out.status !== 200) throw new Error(`unexpected answer ${JSON.stringify(out)}`);
          latencies.push(performance.now() - t0);
        }
      }),
    );
  }

  // The run path's per-Batch code runs ~8× less often than its per-call code: 20,000 run calls
  // before measuring, so it is optimised as in a long-running gateway.
  await calls(5_000, false);
  await calls(20_000, true);
  for (let r = 0; r < ROUNDS; r++) {
    const line: string[] = [];
    for (const run of [false, true]) {
      const c0 = await ask<{ batches: number; items: number }>("count");
      const before = process.cpuUsage();
      const t0 = performance.now();
      const from = process.hrtime.bigint();
      await calls(N, run);
      const to = process.hrtime.bigint();
      const seconds = (performance.now() - t0) / 1000;
      const used = process.cpuUsage(before);
      // CLOCK_MONOTONIC ns, as `perf record -k CLOCK_MONOTONIC` stamps samples: run-path-perf.ts tells rounds apart by them.
      if (process.env.MARKS) console.log(`mark ${run ? "run" : "plain"} ${from} ${to}`);
      const p99 = latencies.sort((a, b) => a - b)[Math.floor(latencies.length * 0.99)]!;
      const c1 = await ask<{ batches: number; items: number }>("count");
      const perBatch = c1.batches > c0.batches ? (c1.items - c0.items) / (c1.batches - c0.batches) : 0;
      line.push(
        `${run ? "run" : "plain"} ${((used.user + used.system) / N).toFixed(1)} µs` +
          ` (system ${(used.system / N).toFixed(1)}; ${Math.round(N / seconds)} calls/s, p99 ${p99.toFixed(1)} ms` +
          (run ? `; ${perBatch.toFixed(1)} items a Batch)` : ")"),
      );
    }
    console.log(`${dirArg}: ${line.join(", ")} of CPU per call`);
  }
  standIn.kill();
  process.exit(0);
}
