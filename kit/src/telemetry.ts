/**
 * @module kit/telemetry
 * OpenTelemetry traces and metrics for every process, configured only by the standard `OTEL_*`
 * variables and off when they are unset. Off, nothing of the SDK is loaded and each helper here is
 * one boolean test on the hot path; `@opentelemetry/api` alone is a no-op.
 *
 * On (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` set,
 * `OTEL_TRACES_EXPORTER` naming an exporter, or `OTEL_METRICS_EXPORTER` naming `prometheus`: metrics
 * scraped from the process at :9464/metrics, `OTEL_EXPORTER_PROMETHEUS_PORT`, with no collector;
 * `OTEL_SDK_DISABLED=true` wins), {@link startTelemetry}
 * starts the Node SDK (kit/telemetry-sdk), which reads the rest itself: protocol
 * (`OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`, `http/json`, `grpc`), sampler
 * (`OTEL_TRACES_SAMPLER`, `_ARG`), service name (`OTEL_SERVICE_NAME`, else the process's name),
 * metrics (`OTEL_METRICS_EXPORTER`). A call is then one trace: the gateway's span, a client and a
 * server span per gRPC hop (W3C `traceparent` in the hop's metadata: headers on a plain call, the
 * Call message's `metadata` on the stream), and the official instrumentations' spans for Postgres
 * queries and outgoing HTTP. Spans carry the call's request id (`gantry.request_id`), as its log
 * lines do (`requestId`).
 *
 * Every service counts its calls, errors and duration by ability ({@link recordCall}).
 */
import {
  type Attributes,
  context,
  type Histogram,
  type Link,
  metrics,
  type Counter,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

export { SpanKind, type Span } from "@opentelemetry/api";

const TRACER = "gantry";

let on = false;

/** Whether the OTEL_* variables ask for telemetry. */
export function telemetryWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === "true") return false;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return true;
  if ((env.OTEL_METRICS_EXPORTER ?? "").split(",").some((e) => e.trim() === "prometheus")) return true;
  const exporter = env.OTEL_TRACES_EXPORTER;
  return exporter !== undefined && exporter !== "" && exporter !== "none";
}

/** Whether the SDK runs in this process. */
export function telemetryOn(): boolean {
  return on;
}

/**
 * Starts the SDK once per process when the OTEL_* variables ask for it, before anything is served.
 * Returns its shutdown (flushes what is buffered), or nothing when telemetry is off.
 */
export async function startTelemetry(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<(() => Promise<void>) | undefined> {
  if (on || !telemetryWanted(env)) return undefined;
  const { startSdk } = await import("./telemetry-sdk.ts");
  const shutdown = startSdk(serviceName, env);
  on = true;
  return async () => {
    on = false;
    await shutdown();
  };
}

/** `metadata` with the current trace context added (W3C `traceparent`, `tracestate`), when on. */
export function withTraceContext(metadata?: Record<string, string>): Record<string, string> | undefined {
  if (!on) return metadata;
  const carrier = { ...metadata };
  propagation.inject(context.active(), carrier);
  return carrier;
}

function ended<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      failed(span, err);
      span.end();
      throw err;
    },
  );
}

/** Marks `span` failed with the error code of the answer it ends with. */
export function spanFailed(span: Span | undefined, code: string): void {
  span?.setAttribute("gantry.error_code", code);
  span?.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

function failed(span: Span, err: unknown): void {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === "string") span.setAttribute("gantry.error_code", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Runs `fn` in a span of its own (a child of the current one), when on; `fn` alone when off. */
export function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!on) return fn(undefined);
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, (span) => ended(span, fn(span)));
}

/** The current span as a link for a span started later (an item queued for a batch), when on. */
export function currentSpanLink(): Link | undefined {
  if (!on) return undefined;
  const span = trace.getActiveSpan();
  return span ? { context: span.spanContext() } : undefined;
}

/**
 * Runs `fn` in a span of its own that starts a trace rather than joining the current one, linked to
 * each span of `links`: work done once for many callers (a batched RPC) belongs to none of their
 * traces alone, and under the first caller's span it would look like that caller's. `fn` alone when off.
 */
export function inLinkedSpan<T>(
  name: string,
  links: readonly (Link | undefined)[],
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!on) return fn(undefined);
  const defined = links.filter((l): l is Link => l !== undefined);
  return context.with(ROOT_CONTEXT, () =>
    trace
      .getTracer(TRACER)
      .startActiveSpan(name, { kind: SpanKind.INTERNAL, links: defined }, (span) => ended(span, fn(span))),
  );
}

/**
 * A call this process takes from outside (the gateway's HTTP call): a server span, current while
 * `fn` runs, child of the caller's own trace when its `traceparent` (in `headers`) names one.
 */
export function inServerSpan<T>(
  name: string,
  attributes: Attributes,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!on) return fn(undefined);
  const parent = propagation.extract(context.active(), headers);
  return context.with(parent, () =>
    trace
      .getTracer(TRACER)
      .startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, (span) => ended(span, fn(span))),
  );
}

/** A gRPC call made by this process: a client span, whose context travels in the call's metadata. */
export function tracedClientCall<T>(
  path: string,
  metadata: Record<string, string> | undefined,
  send: (metadata: Record<string, string> | undefined) => Promise<T>,
): Promise<T> {
  if (!on) return send(metadata);
  return inSpan(path.slice(1), SpanKind.CLIENT, rpcAttributes(path), () => send(withTraceContext(metadata)));
}

/**
 * A gRPC call served by this process: a server span, child of the caller's (from its metadata),
 * current while the handler runs; `answer` ends it. Returns the wrapped `answer` to hand the handler.
 */
export function tracedServerCall(
  path: string,
  metadata: Readonly<Record<string, string>>,
  run: (answer: (err: unknown) => void) => void,
): void {
  if (!on) {
    run(() => {});
    return;
  }
  const parent = propagation.extract(context.active(), metadata);
  const span = trace
    .getTracer(TRACER)
    .startSpan(path.slice(1), { kind: SpanKind.SERVER, attributes: rpcAttributes(path) }, parent);
  context.with(trace.setSpan(parent, span), () =>
    run((err) => {
      if (err) failed(span, err);
      span.end();
    }),
  );
}

function rpcAttributes(path: string): Attributes {
  const slash = path.lastIndexOf("/");
  return { "rpc.system": "grpc", "rpc.service": path.slice(1, slash), "rpc.method": path.slice(slash + 1) };
}

/**
 * A NATS publish made for a call: a producer span under the call's, when on and inside a trace
 * (a relay's or a sweep's publish outside any call starts no trace of its own).
 */
export function tracedPublish<T>(subject: string, publish: () => Promise<T>): Promise<T> {
  if (!on || !trace.getActiveSpan()) return publish();
  return inSpan(
    `${subject} publish`,
    SpanKind.PRODUCER,
    { "messaging.system": "nats", "messaging.operation.type": "send", "messaging.destination.name": subject },
    publish,
  );
}

/** Runs `fn` outside any trace: work for many calls at once (a batch) belongs to none of them. */
export function outsideTrace<T>(fn: () => T): T {
  return on ? context.with(ROOT_CONTEXT, fn) : fn();
}

/** What a log line written inside a span carries of it (`trace_id`, `span_id`), to find its trace. */
export function logTraceFields(): Record<string, string> {
  if (!on) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Names the current span after the ability it serves and tags it with the call's request id. */
export function describeCallSpan(ability: string, requestId: string | undefined): void {
  if (!on) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(ability);
  span.setAttribute("gantry.ability", ability);
  if (requestId) span.setAttribute("gantry.request_id", requestId);
}

interface Red {
  calls: Counter;
  errors: Counter;
  duration: Histogram;
}
let red: Red | undefined;

/**
 * RED metrics of the abilities a process serves: `gantry.ability.calls`, `gantry.ability.errors`
 * (by ability and error code) and `gantry.ability.duration` (seconds), exported with the traces.
 */
export function recordCall(ability: string, seconds: number, errorCode?: string): void {
  if (!on) return;
  if (!red) {
    const meter = metrics.getMeter(TRACER);
    red = {
      calls: meter.createCounter("gantry.ability.calls", { description: "ability calls served" }),
      errors: meter.createCounter("gantry.ability.errors", { description: "ability calls that failed, by code" }),
      duration: meter.createHistogram("gantry.ability.duration", {
        description: "time to answer an ability call",
        unit: "s",
      }),
    };
  }
  red.calls.add(1, { "gantry.ability": ability });
  if (errorCode) red.errors.add(1, { "gantry.ability": ability, "gantry.error_code": errorCode });
  red.duration.record(seconds, { "gantry.ability": ability });
}
