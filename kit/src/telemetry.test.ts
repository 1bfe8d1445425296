/**
 * The OpenTelemetry switch: only the standard OTEL_* variables turn it on; off, the helpers hand
 * back what they were given (no SDK, no copies). On, a log line written inside a span carries the
 * span's trace, and a hop's metadata carries W3C traceparent of the client span; a batch's span
 * starts its own trace, linked to each caller's span. (The whole path
 * through a real backend: gateway/test/tracing.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import {
  currentSpanLink,
  inLinkedSpan,
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
  assert.equal(telemetryWanted({ OTEL_METRICS_EXPORTER: "otlp,prometheus", OTEL_TRACES_EXPORTER: "none" }), true);
  assert.equal(telemetryWanted({ OTEL_METRICS_EXPORTER: "otlp" }), false);
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
  assert.equal(currentSpanLink(), undefined);
  await inLinkedSpan("x", [], async (span) => assert.equal(span, undefined));
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

    // A batch sent once for two callers: its own trace, linked to both callers' spans.
    const callers = await Promise.all(
      ["a", "b"].map((n) =>
        inSpan(n, SpanKind.SERVER, {}, async (span) => ({ context: span!.spanContext(), link: currentSpanLink() })),
      ),
    );
    await inSpan("first caller", SpanKind.SERVER, {}, async (first) =>
      inLinkedSpan(
        "batch",
        callers.map((c) => c.link),
        async (span) => {
          const own = span!.spanContext();
          assert.notEqual(own.traceId, first!.spanContext().traceId, "not in the trace of the caller that sent it");
          const links = (span as unknown as { links: { context: { spanId: string } }[] }).links;
          assert.deepEqual(
            links.map((l) => l.context.spanId),
            callers.map((c) => c.context.spanId),
          );
          const sent = await tracedClientCall("/gantry.trust.v1.PermitGate/Batch", {}, async (m) => m);
          assert.equal(sent?.traceparent?.split("-")[1], own.traceId, "the batch's RPC is in the batch's trace");
        },
      ),
    );
  } finally {
    await stop().catch(() => {}); // the flush to nowhere fails, as it should
  }
});

test("metrics without a collector: a process serves its call counts at :<port>/metrics for Prometheus", async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  // A process of its own: the SDK starts once per process, and this one's is already on.
  const scraped = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { startTelemetry, recordCall } from ${JSON.stringify(new URL("./telemetry.ts", import.meta.url).href)};
       const stop = await startTelemetry("scrape-test");
       recordCall("contact.get", 0.004);
       recordCall("contact.get", 0.006, "not_found");
       process.stdout.write(await (await fetch("http://127.0.0.1:${port}/metrics")).text());
       await stop();`,
    ],
    {
      encoding: "utf8",
      timeout: 30_000,
      env: {
        PATH: process.env.PATH,
        OTEL_METRICS_EXPORTER: "prometheus",
        OTEL_TRACES_EXPORTER: "none",
        OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
      },
    },
  );
  assert.match(scraped, /^gantry_ability_calls_total\{[^}]*gantry_ability="contact\.get"[^}]*\} 2$/m, scraped);
  assert.match(scraped, /^gantry_ability_errors_total\{[^}]*gantry_error_code="not_found"[^}]*\} 1$/m);
  assert.match(scraped, /service_name="scrape-test"/);
});
