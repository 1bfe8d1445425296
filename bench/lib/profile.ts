/**
 * @module bench/lib/profile
 * Reads a V8 `.cpuprofile` (written by `node --cpu-prof`) and says where the time went, limited to
 * a time window (the measured load, not start-up): share of busy time, self time by category
 * (our code, Express, grpc-js, NATS, Node internals, GC, …), the top functions by self time, and
 * our functions by inclusive time (time with that function anywhere on the stack).
 *
 * Profile timestamps are CLOCK_MONOTONIC microseconds, the clock `process.hrtime` reads in every
 * process on the machine, so the bench can pass the window it measured in.
 */
import fs from "node:fs";
import path from "node:path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionCost {
  name: string;
  where: string;
  category: string;
  /** Share of busy (non-idle) time, 0..1. */
  share: number;
}

export interface ProfileSummary {
  file: string;
  /** Seconds of samples in the window. */
  seconds: number;
  /** Share of the window the process was on CPU (not idle), 0..1. */
  busy: number;
  categories: Array<{ category: string; share: number }>;
  topSelf: FunctionCost[];
  topInclusive: FunctionCost[];
}

/** Which part of the process a frame belongs to. */
export function categorize(frame: CallFrame, repoRoot: string): string {
  const { url, functionName } = frame;
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(program)") return "V8/native (program)";
  if (functionName === "(idle)") return "idle";
  if (url === "") return "V8 builtins / native";
  // Node's TypeScript type stripping (amaro, compiled to wasm): start-up work.
  if (url.startsWith("wasm://") || url.includes("internal/deps/amaro")) return "TS type stripping (amaro)";
  if (url.startsWith("node:")) {
    if (/^node:(internal\/)?(http|_http|net|stream|internal\/streams|internal\/http)/.test(url))
      return "Node http/net/streams";
    return "Node internals";
  }
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m) {
    const pkg = m[1];
    if (
      [
        "express",
        "router",
        "body-parser",
        "send",
        "finalhandler",
        "path-to-regexp",
        "qs",
        "content-type",
        "type-is",
        "mime-types",
        "on-finished",
        "statuses",
        "proxy-addr",
        "accepts",
        "negotiator",
        "cookie",
        "vary",
        "etag",
        "fresh",
        "range-parser",
        "depd",
        "debug",
        "encodeurl",
        "escape-html",
        "parseurl",
        "merge-descriptors",
        "media-typer",
        "raw-body",
        "safe-buffer",
        "content-disposition",
        "forwarded",
        "ipaddr.js",
        "mime-db",
        "utils-merge",
        "iconv-lite",
        "http-errors",
      ].includes(pkg)
    )
      return "Express 5 + its deps";
    if (pkg.startsWith("@grpc/") || pkg === "protobufjs" || pkg.startsWith("@protobufjs/") || pkg === "long")
      return "grpc-js + protobufjs";
    if (pkg.startsWith("@nats-io/") || pkg === "nats") return "NATS client";
    if (
      pkg === "pino" ||
      pkg.startsWith("pino-") ||
      pkg === "sonic-boom" ||
      pkg === "fast-redact" ||
      pkg === "@pinojs/redact" ||
      pkg === "thread-stream" ||
      pkg === "quick-format-unescaped" ||
      pkg === "atomic-sleep" ||
      pkg === "on-exit-leak-free" ||
      pkg === "safe-stable-stringify"
    )
      return "pino (logging)";
    if (pkg === "prom-client" || pkg === "tdigest" || pkg === "bintrees") return "prom-client (metrics)";
    if (
      pkg === "ajv" ||
      pkg === "ajv-formats" ||
      pkg === "fast-deep-equal" ||
      pkg === "fast-uri" ||
      pkg === "json-schema-traverse"
    )
      return "Ajv (validation)";
    if (pkg === "ioredis") return "ioredis";
    if (pkg.startsWith("@gantry/")) return `gantry ${pkg.slice(8)}`;
    return `package ${pkg}`;
  }
  const file = url.startsWith("file://") ? decodeURIComponent(new URL(url).pathname) : url;
  const rel = path.relative(repoRoot, file);
  if (!rel.startsWith("..")) {
    const top = rel.split(path.sep).slice(0, 2).join("/");
    if (rel.startsWith("gateway/")) return "gantry gateway";
    if (rel.startsWith("kit/")) return "gantry kit";
    if (rel.startsWith("proto/")) return "gantry proto/catalogue";
    return `gantry ${top}`;
  }
  return "other";
}

function where(frame: CallFrame, repoRoot: string): string {
  let url = frame.url;
  if (url.startsWith("file://")) url = decodeURIComponent(new URL(url).pathname);
  if (url.startsWith(repoRoot)) url = path.relative(repoRoot, url);
  url = url.replace(/^.*node_modules\//, "");
  return url ? `${url}:${frame.lineNumber + 1}` : "(native)";
}

/**
 * Summarises `file` over [fromUs, toUs] (CLOCK_MONOTONIC µs; omitted → whole profile).
 */
export function summarizeProfile(
  file: string,
  repoRoot: string,
  window?: { fromUs: number; toUs: number },
  top = 15,
): ProfileSummary {
  const prof = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of prof.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const keyOf = (f: CallFrame) => `${f.functionName}|${f.url}|${f.lineNumber}|${f.columnNumber}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const frames = new Map<string, CallFrame>();
  let t = prof.startTime;
  let total = 0;
  let idle = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i];
    // A sample's time is the gap to the next one.
    const dt = i + 1 < prof.timeDeltas.length ? prof.timeDeltas[i + 1] : 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    if (dt <= 0) continue;
    total += dt;
    const leaf = byId.get(prof.samples[i]);
    if (!leaf) continue;
    if (leaf.callFrame.functionName === "(idle)") {
      idle += dt;
      continue;
    }
    const k = keyOf(leaf.callFrame);
    frames.set(k, leaf.callFrame);
    self.set(k, (self.get(k) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      const fk = keyOf(f);
      if (seen.has(fk)) continue;
      seen.add(fk);
      frames.set(fk, f);
      inclusive.set(fk, (inclusive.get(fk) ?? 0) + dt);
    }
  }
  const busyUs = total - idle;
  const cost = (k: string, v: number): FunctionCost => {
    const f = frames.get(k)!;
    return {
      name: f.functionName || "(anonymous)",
      where: where(f, repoRoot),
      category: categorize(f, repoRoot),
      share: busyUs ? v / busyUs : 0,
    };
  };
  const categories = new Map<string, number>();
  for (const [k, v] of self) {
    const c = categorize(frames.get(k)!, repoRoot);
    categories.set(c, (categories.get(c) ?? 0) + v);
  }
  const ours = (k: string) => categorize(frames.get(k)!, repoRoot).startsWith("gantry ");
  return {
    file,
    seconds: total / 1e6,
    busy: total ? busyUs / total : 0,
    categories: [...categories]
      .sort((a, b) => b[1] - a[1])
      .map(([category, v]) => ({ category, share: busyUs ? v / busyUs : 0 })),
    topSelf: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => cost(k, v)),
    topInclusive: [...inclusive]
      .filter(([k]) => ours(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => cost(k, v)),
  };
}
