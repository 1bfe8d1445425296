/**
 * @module bench/lib/load
 * One bounded load run with autocannon: a warm-up (discarded), then the measured run. Latency is
 * taken from autocannon's per-response timings (sub-millisecond, every response including non-2xx)
 * rather than its integer-millisecond histogram, so p50 of a sub-millisecond server is not "0 ms".
 */
import autocannon from "autocannon";

export interface LoadSpec {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Request bodies sent in turn (round robin over every connection); overrides `body`. */
  bodies?: readonly string[];
  /** Sees every response of the measured run (not the warm-up), e.g. to count kinds of answers. */
  onResponse?: (status: number, body: string) => void;
  connections: number;
  durationSec: number;
  warmupSec: number;
}

export interface LoadResult {
  /** Responses received in the measured run. */
  responses: number;
  /** Responses per second (responses / measured seconds). */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Responses by HTTP status. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  /** The errors by kind (`ECONNRESET`, `timeout`, …), so a run that failed says how. */
  errorKinds?: Record<string, number>;
  /** Mean response size in bytes (headers + body). */
  bytesPerResponse: number;
  seconds: number;
}

interface Recorder {
  times: Float64Array;
  n: number;
  errorKinds: Record<string, number>;
}

function record(rec: Recorder, ms: number): void {
  if (rec.n === rec.times.length) {
    const bigger = new Float64Array(rec.times.length * 2);
    bigger.set(rec.times);
    rec.times = bigger;
  }
  rec.times[rec.n++] = ms;
}

/** p50/p90/p99/max of sorted latencies (NaN when there are none). */
function latencies(sorted: Float64Array): Pick<LoadResult, "p50" | "p90" | "p99" | "max"> {
  const n = sorted.length;
  return {
    p50: percentile(sorted, n, 50),
    p90: percentile(sorted, n, 90),
    p99: percentile(sorted, n, 99),
    max: n ? sorted[n - 1] : NaN,
  };
}

function percentile(sorted: Float64Array, n: number, p: number): number {
  if (n === 0) return NaN;
  const i = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[i];
}

/** Shared by every connection and run of one spec, so bodies keep rotating across warm-up and run. */
const cursors = new WeakMap<readonly string[], { next: number }>();

function once(spec: LoadSpec, seconds: number, rec: Recorder | undefined): Promise<autocannon.Result> {
  const bodies = spec.bodies;
  let cursor = bodies ? cursors.get(bodies) : undefined;
  if (bodies && !cursor) {
    cursor = { next: 0 };
    cursors.set(bodies, cursor);
  }
  const onResponse = rec ? spec.onResponse : undefined;
  const requests =
    bodies?.length || onResponse
      ? [
          {
            ...(bodies?.length
              ? {
                  setupRequest: (req: autocannon.Request) => {
                    req.body = bodies[cursor!.next++ % bodies.length];
                    return req;
                  },
                }
              : {}),
            ...(onResponse ? { onResponse: (status: number, body: string) => onResponse(status, body) } : {}),
          },
        ]
      : undefined;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method ?? "GET",
        headers: spec.headers,
        body: spec.body,
        requests,
        connections: spec.connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (rec) {
      instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) =>
        record(rec, responseTime),
      );
      instance.on("reqError", (err: Error & { code?: string }) => {
        const kind = err.code ?? (err.message === "request timed out" ? "timeout" : err.message.slice(0, 60));
        rec.errorKinds[kind] = (rec.errorKinds[kind] ?? 0) + 1;
      });
    }
  });
}

/** Warm-up, then the measured run. `times` receives every latency (ms, sorted), for {@link mergeLoads}. */
export async function runLoad(spec: LoadSpec, times?: (sorted: Float64Array) => void): Promise<LoadResult> {
  if (spec.warmupSec > 0) await once(spec, spec.warmupSec, undefined);
  const rec: Recorder = { times: new Float64Array(1 << 16), n: 0, errorKinds: {} };
  const t0 = performance.now();
  const result = await once(spec, spec.durationSec, rec);
  const seconds = (performance.now() - t0) / 1000;
  const sorted = rec.times.subarray(0, rec.n).sort();
  times?.(sorted);
  const statuses: Record<string, number> = {};
  for (const [code, s] of Object.entries(result.statusCodeStats ?? {}))
    statuses[code] = (s as { count?: number }).count ?? 0;
  const responses = rec.n;
  // autocannon's own duration excludes its start-up; use it when it is sane.
  const measured = result.duration > 0 ? result.duration : seconds;
  return {
    responses,
    rps: responses / measured,
    ...latencies(sorted),
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    ...(result.errors ? { errorKinds: rec.errorKinds } : {}),
    bytesPerResponse: responses ? result.throughput.total / responses : 0,
    seconds: measured,
  };
}

/** Every latency of every part, sorted. */
export function allTimes(parts: ReadonlyArray<{ times: Float64Array }>): Float64Array {
  const all = new Float64Array(parts.reduce((n, p) => n + p.times.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p.times, at);
    at += p.times.length;
  }
  return all.sort();
}

/**
 * One result from several runs of the same spec (the slices of an interleaved comparison): counts
 * and seconds add up, percentiles come from every latency of every slice.
 */
export function mergeLoads(parts: ReadonlyArray<{ load: LoadResult; times: Float64Array }>): LoadResult {
  if (parts.length === 1) return parts[0].load;
  const all = allTimes(parts);
  const n = all.length;
  const statuses: Record<string, number> = {};
  for (const p of parts)
    for (const [code, c] of Object.entries(p.load.statuses)) statuses[code] = (statuses[code] ?? 0) + c;
  const seconds = parts.reduce((t, p) => t + p.load.seconds, 0);
  const bytes = parts.reduce((t, p) => t + p.load.bytesPerResponse * p.load.responses, 0);
  const errorKinds: Record<string, number> = {};
  for (const p of parts)
    for (const [kind, c] of Object.entries(p.load.errorKinds ?? {})) errorKinds[kind] = (errorKinds[kind] ?? 0) + c;
  return {
    responses: n,
    rps: n / seconds,
    ...latencies(all),
    statuses,
    errors: parts.reduce((t, p) => t + p.load.errors, 0),
    timeouts: parts.reduce((t, p) => t + p.load.timeouts, 0),
    ...(Object.keys(errorKinds).length ? { errorKinds } : {}),
    bytesPerResponse: n ? bytes / n : 0,
    seconds,
  };
}
