/**
 * @module infra/testing/jaeger
 * A real Jaeger (v2, the binary CI builds and exports as JAEGER_BIN) for the OpenTelemetry tests,
 * on free loopback ports: OTLP over HTTP and gRPC in, traces kept in memory and read back through
 * its query API, and the metrics the processes send exposed for Prometheus to scrape. `JAEGER_SKIP`
 * says why a test cannot run without it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { untilServing } from "@gantry/kit/serving-child.ts";
import { freePort } from "@gantry/infra/runner/ports.ts";

export const JAEGER_SKIP = process.env.JAEGER_BIN
  ? false
  : "JAEGER_BIN is unset: the trace tests need a Jaeger binary (built by .ci/run)";

export interface Jaeger {
  /** OTLP over HTTP (`http/protobuf`, `http/json`): the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  otlpHttp: string;
  /** OTLP over gRPC (`grpc`). */
  otlpGrpc: string;
  /** The query API (`/api/traces/{id}`, `/api/traces?service=…`). */
  query: string;
  /** Prometheus exposition of the OTLP metrics received. */
  metrics: string;
  stop: () => Promise<void>;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; spanID: string }>;
  processID: string;
  tags: Array<{ key: string; value: unknown }>;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

export async function startJaeger(): Promise<Jaeger> {
  const bin = process.env.JAEGER_BIN;
  if (!bin) throw new Error("JAEGER_BIN is unset");
  const [http, grpc, query, queryGrpc, metrics] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const dir = mkdtempSync(join(tmpdir(), "gantry-jaeger-"));
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
    metrics:
      receivers: [otlp]
      exporters: [prometheus]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${grpc}
      http:
        endpoint: 127.0.0.1:${http}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
  prometheus:
    endpoint: 127.0.0.1:${metrics}
`,
  );
  const child = spawn(bin, ["--config", `file:${config}`], { stdio: ["ignore", "ignore", "pipe"] });
  const base = `http://127.0.0.1:${query}`;
  const server = await untilServing(child, {
    what: "jaeger",
    timeoutMs: 30_000,
    ready: async () => (await fetch(`${base}/api/services`)).ok,
  });
  return {
    otlpHttp: `http://127.0.0.1:${http}`,
    otlpGrpc: `http://127.0.0.1:${grpc}`,
    query: base,
    metrics: `http://127.0.0.1:${metrics}/metrics`,
    stop: server.stop,
  };
}

/** Polls the query API until `find` accepts a trace of `service` (spans arrive in batches). */
export async function waitForTrace(
  jaeger: Jaeger,
  service: string,
  tags: Record<string, string>,
  find: (trace: JaegerTrace) => boolean,
  timeoutMs = 20_000,
): Promise<JaegerTrace> {
  const url = `${jaeger.query}/api/traces?service=${encodeURIComponent(service)}&tags=${encodeURIComponent(JSON.stringify(tags))}&limit=20`;
  const until = Date.now() + timeoutMs;
  let last: JaegerTrace[] = [];
  for (;;) {
    const res = await fetch(url);
    if (res.ok) {
      last = ((await res.json()) as { data: JaegerTrace[] }).data ?? [];
      const hit = last.find(find);
      if (hit) return hit;
    }
    if (Date.now() > until)
      throw new Error(
        `no matching trace of ${service} with ${JSON.stringify(tags)} in ${timeoutMs} ms; got ${JSON.stringify(last).slice(0, 2000)}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}
