/**
 * The OpenTelemetry switch: only the standard OTEL_* variables turn it on; off, the helpers hand
 * back what they were given (no SDK, no copies). On, a log line written inside a span carries the
 * span's trace, and a hop's metadata carries W3C traceparent of the client span. (The whole path
 * through a real backend: gateway/test/tracing.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  inSpan,
  logTraceFields,
  SpanKind,
  startTelemetry,
  telemetryOn,
  telemetryWanted,
  tracedClientCall,
  withTraceContext,
} from "./telemetry.ts";

test("only the OTEL_* variables turn telemetry on; OTEL_SDK_DISABLED wins", () => {
  assert.equal(telemetryWanted({}), false);
  assert.equal(telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), true);
  assert.equal(telemetryWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }), true);
  assert.equal(telemetryWanted({ OTEL_TRACES_EXPORTER: "console" }), true);
  assert.equal(telemetryWanted({ OTEL_TRACES_EXPORTER: "none" }), false);
  assert.equal(
    telemetryWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" }),
    false,
  );
});

test("off: nothing is started and the helpers pass through", async () => {
  assert.equal(await startTelemetry("kit-test", {}), undefined);
  assert.equal(telemetryOn(), false);
  const metadata = { a: "1" };
  assert.equal(withTraceContext(metadata), metadata, "the same object: no copy per call");
  assert.deepEqual(logTraceFields(), {});
  await inSpan("x", SpanKind.INTERNAL, {}, async (span) => assert.equal(span, undefined));
});

test("on: the hop's metadata carries the client span's traceparent; log lines carry the trace", async () => {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://127.0.0.1:9"; // nothing listens: export fails quietly
  process.env.OTEL_METRICS_EXPORTER = "none";
  process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "300";
  const stop = await startTelemetry("kit-test", process.env);
  assert.ok(stop && telemetryOn());
  try {
    await inSpan("call", SpanKind.SERVER, {}, async (span) => {
      const { traceId, spanId } = span!.spanContext();
      assert.deepEqual(logTraceFields(), { trace_id: traceId, span_id: spanId });
      const sent = await tracedClientCall("/gantry.ability.v1.AbilityService/Execute", { x: "1" }, async (m) => m);
      assert.equal(sent?.x, "1");
      const [, trace, parent] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(sent?.traceparent ?? "") ?? [];
      assert.equal(trace, traceId, "same trace");
      assert.notEqual(parent, spanId, "the client span's own id, a child of the call's");
    });
  } finally {
    await stop().catch(() => {}); // the flush to nowhere fails, as it should
  }
});
