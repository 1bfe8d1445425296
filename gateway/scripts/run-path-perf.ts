/**
 * Where the gateway's CPU goes on a call under a trust run beside a plain one, from `perf` rather
 * than `--cpu-prof`: V8's profiler misses about half of this process's CPU on the run path (the
 * native HTTP/2 read of trust's answers, event-loop wakes, kernel TCP), and `perf` samples CPU time,
 * not wall time, so its totals agree with `process.cpuUsage` (run-path-cost.ts).
 *
 * It reads the text of `perf script` of a `perf record -k CLOCK_MONOTONIC -g` of run-path-cost.ts
 * with `MARKS=1` (whose output names each round's start and end), sorts each sample of the
 * gateway's process (the one with most samples; the trust stand-in is its child) into the first
 * category its stack names, leaf first, and prints µs a call per category and round.
 *
 * @example
 * cd gateway && MARKS=1 ROUNDS=2 perf record -k CLOCK_MONOTONIC -F 1500 -g -o /tmp/run.data \
 *   ../node_modules/.bin/node --perf-basic-prof scripts/run-path-cost.ts src 20000 > /tmp/run.out
 * perf script -i /tmp/run.data -F pid,tid,time,ip,sym > /tmp/run.txt
 * ../node_modules/.bin/node scripts/run-path-perf.ts /tmp/run.txt /tmp/run.out 20000 1500
 */
import { readFileSync } from "node:fs";
import { firstMatch, printPerfTable } from "../../infra/scripts/perf-windows.ts";

const [scriptText, costOutput, nArg = "20000", hzArg = "1500"] = process.argv.slice(2);
if (!scriptText || !costOutput)
  throw new Error("usage: run-path-perf.ts <perf script text> <run-path-cost output> [N] [Hz]");

const BATCH_SENT = "Batch sent: kit gRPC client (protobuf encode, HMAC token, write)";
const categories: [string, RegExp][] = [
  ["receipt: the result's hash (JSON.parse, canonicalJson, SHA-256)", /recordRunReceipt/],
  ["permit: the input's canonical hash", /checkRunPermit/],
  // Optimised code inlines the two above into runPipeline, so their leaves are named too (every
  // call also hashes its key and its audited input: the plain rounds show that part).
  [
    "canonical JSON, JSON.parse and SHA-256 (the two above when inlined; the key's and the audit's hash)",
    /data\/canonical\.ts|crypto\/hash|OneShotDigest|JsonParse/,
  ],
  [BATCH_SENT, /rpc-batch\.ts:58|grpc-client\.ts:(337|349|366|464|417)|grpc-multiplex\.ts:144|call-auth/],
  [
    "Batch answer read: kit gRPC client (frames, decode, deadline)",
    /grpc-multiplex|grpc-frame|grpc-client|deadline-sweep/,
  ],
  ["batcher and PermitGate: queue, promises, results split", /rpc-batch|run-permit/],
  [
    "pipeline steps every call takes",
    /execute-ability|authenticate|input-shape|envelope|validation|outcome|rate-limit|audit|metrics|prom-client|histogram|ajv|stand-in-deps|run-path-cost/,
  ],
  ["garbage collection", /Heap::|Scaveng|GCTracer|MarkCompact|ConcurrentMarking|Sweeper|MinorMark/],
  ["JIT compilation", /Compil|Maglev|Turbofan|compiler::/],
  ["timers", /processTimers|listOnTimeout|RunTimers/],
  ["event-loop wakes, socket reads, async resumptions (native, kernel)", /uv__io_poll|epoll|OnUvRead/],
];

const seen = new Map<string, number>();
const rounds = readFileSync(costOutput, "utf8")
  .split("\n")
  .filter((l) => l.startsWith("mark "))
  .map((l) => {
    const [, kind, from, to] = l.split(" ") as [string, string, string, string];
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
    // perf prints seconds to the µs; the marks are ns.
    const seconds = (ns: string) => Number(BigInt(ns) / 1000n) / 1e6;
    return { name: `${kind} ${seen.get(kind)}`, from: seconds(from), to: seconds(to) };
  });

printPerfTable({
  scriptText,
  windows: rounds,
  // The call token's HMAC is SHA-256 too: named by its caller, not by its leaf.
  categorize: (frames) => (frames.some((f) => /call-auth/.test(f)) ? BATCH_SENT : firstMatch(categories, frames)),
  rows: [...categories.map(([name]) => name), "other"],
  callsPerWindow: Number(nArg),
  hz: Number(hzArg),
  digits: 1,
});
