/**
 * Where this process's CPU goes on a payout.send beside a payment.initiate, from `perf` rather than
 * `--cpu-prof` (gateway/scripts/run-path-perf.ts says why: V8's profiler samples wall time and misses
 * native work; `perf` samples CPU, so its totals match cost-per-call.ts's `process.cpuUsage`).
 *
 * It reads the text of `perf script` of a `perf record -k CLOCK_MONOTONIC -g` of cost-per-call.ts,
 * whose output names each operation's window on the same clock, takes the samples of the process
 * with most of them (the harness and the service it runs; Postgres and NATS are its children, with
 * their own pids), sorts each into the first category its stack names, leaf first, and prints µs a
 * call per category and operation. The harness stands where the gateway does (its gRPC client, the
 * result's check): those rows are not the service's, and the gRPC rows hold both ends.
 *
 * JavaScript frames are named from V8's jitdump (`--perf-prof`, then `perf inject --jit`), not from
 * `--perf-basic-prof`'s map: that map keeps every name an address ever had, so code compiled later
 * at a freed address took an older name (a run's payment.initiate window showed 61 µs a call of
 * nats.js's parser, which a payment never runs).
 *
 * @example
 * cd /tmp/pay && WARM=3000 N=3000 C=16 OPS=payout.send,payment.initiate perf record -k 1 -F 999 -g -o pay.data \
 *   /work/main/node_modules/.bin/node --perf-prof /work/main/services/payments/scripts/cost-per-call.ts > pay.out
 * perf inject --jit -i pay.data -o pay.jit.data && perf script -i pay.jit.data -F pid,tid,time,ip,sym > pay.txt
 * node_modules/.bin/node services/payments/scripts/payout-perf.ts /tmp/pay/pay.txt /tmp/pay/pay.out 3000 999
 */
import { readFileSync } from "node:fs";
import { firstMatch, printPerfTable } from "../../../infra/scripts/perf-windows.ts";

const [scriptText, costOutput, nArg = "1500", hzArg = "999"] = process.argv.slice(2);
if (!scriptText || !costOutput)
  throw new Error("usage: payout-perf.ts <perf script text> <cost-per-call output> [N] [Hz]");

const CALL_TOKEN = "gRPC call token (HMAC, both ends)";
const RELAY = "outbox relay: claim and commit sent, publish (NATS)";
const RELAY_RE = /kit\/src\/outbox|outbox-publish|nats-io|kit\/src\/nats/;
const HARNESS = "harness: gRPC client call, the result's schema check (the gateway's part)";
const categories: [string, RegExp][] = [
  ["idempotency: the input's canonical JSON and hash", /data\/idempotency|data\/canonical/],
  ["Postgres: the values and the Bind (kit extended-query, pg's prepareValue)", /extended-query|pg\/lib\/utils/],
  [
    "Postgres: answers read (parser, rows, the relay's claimed rows and their JSON)",
    /pg-protocol|pg\/lib\/(result|query)|pg-types/,
  ],
  ["Postgres: the pool's connect and release, the client's queue, kit runPrepared", /pg-pool|pg\/lib\/|data\/prepared/],
  [RELAY, RELAY_RE],
  [
    "this service's handler: the record, the event and its JSON, the statement's values, the answer's shape",
    /services\/payments\/src|kit\/src\/money/,
  ],
  ["input and output validation (ajv)", /ajv|kit\/src\/validation/],
  [
    "the kit's call wrapper: tenancy, telemetry, outcome, signal, the result's JSON",
    /kit\/src\/service\.ts|tenancy|telemetry|call-outcome|call-signal|deadline-sweep/,
  ],
  [HARNESS, /infra\/testing|result-check/],
  ["gRPC both ends: frames, protobuf, HTTP/2", /grpc-|protobufjs|http2|nghttp2/],
  ["garbage collection", /Heap::|Scaveng|GCTracer|MarkCompact|ConcurrentMarking|Sweeper|MinorMark/],
  ["JIT compilation", /Compil|Maglev|Turbofan|compiler::/],
  ["timers", /processTimers|listOnTimeout|RunTimers/],
  ["event-loop wakes, socket reads and writes, async resumptions (native, kernel)", /uv__|epoll|OnUvRead|libuv/],
];

const windows = readFileSync(costOutput, "utf8")
  .split("\n")
  .map((l) => l.match(/^([\w. ]+): .*profile window (\d+)-(\d+)\)/))
  .filter((m): m is RegExpMatchArray => m !== null)
  // The windows are µs of CLOCK_MONOTONIC; perf prints seconds to the µs.
  .map((m) => ({ name: m[1]!, from: Number(m[2]) / 1e6, to: Number(m[3]) / 1e6 }));

printPerfTable({
  scriptText,
  windows,
  // Named by a caller rather than the leaf: the token's HMAC (SHA-256 leaves, as the idempotency
  // hash's), the relay (pg's frames, as the handler's statement), the harness (the kit's gRPC client).
  categorize: (frames) =>
    frames.some((f) => /call-auth/.test(f))
      ? CALL_TOKEN
      : frames.some((f) => RELAY_RE.test(f))
        ? RELAY
        : frames.some((f) => /infra\/testing|result-check/.test(f))
          ? HARNESS
          : firstMatch(categories, frames),
  rows: [...categories.map(([n]) => n), CALL_TOKEN, "other"],
  callsPerWindow: Number(nArg),
  hz: Number(hzArg),
  digits: 0,
});
