/**
 * OpenTelemetry end to end, against a real Jaeger started here: with only the standard OTEL_*
 * variables set, one call is one trace, read back from Jaeger's query API — the gateway's span, the
 * gRPC hop's client and server spans, and the service's Postgres spans and NATS publishes, in one tree, each tagged
 * with the call's request id where the call is ours (`gantry.request_id`, as in the log lines).
 * Every exporter protocol the SDK offers is used once: `http/protobuf` and `grpc` for traces, and the
 * services' RED metrics (calls, errors, duration by ability) arrive over OTLP too.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { JAEGER_SKIP, type Jaeger, type JaegerTrace, startJaeger, waitForTrace } from "@gantry/infra/testing/jaeger.ts";

const skip = JAEGER_SKIP;

let jaeger: Jaeger;
before(async () => {
  if (!skip) jaeger = await startJaeger();
});
after(async () => {
  await jaeger?.stop();
});

/** The service that sent each span, and each span's parent (by span id). */
function tree(trace: JaegerTrace) {
  const service = (s: JaegerTrace["spans"][number]) => trace.processes[s.processID].serviceName;
  const byId = new Map(trace.spans.map((s) => [s.spanID, s]));
  const parentOf = (s: JaegerTrace["spans"][number]) =>
    byId.get(s.references.find((r) => r.refType === "CHILD_OF")?.spanID ?? "");
  const ancestors = (s: JaegerTrace["spans"][number]) => {
    const out: typeof trace.spans = [];
    for (let p = parentOf(s); p; p = parentOf(p)) out.push(p);
    return out;
  };
  const tag = (s: JaegerTrace["spans"][number], key: string) => s.tags.find((t) => t.key === key)?.value;
  return { service, parentOf, ancestors, tag };
}

for (const protocol of ["http/protobuf", "grpc"] as const) {
  describe(`traces over OTLP ${protocol}`, { skip }, () => {
    let t: TestStack;
    let key: string;
    before(async () => {
      t = await startTestStack({
        services: ["keys", "workspace"],
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: protocol === "grpc" ? jaeger.otlpGrpc : jaeger.otlpHttp,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_BSP_SCHEDULE_DELAY: "100",
          OTEL_METRIC_EXPORT_INTERVAL: "1000",
          OTEL_RESOURCE_ATTRIBUTES: `gantry.test=${protocol}`,
          LOG_LEVEL: "warn",
        },
      });
      key = (await t.insertKey({ tenant: "acme", name: "traced" })).key;
    });
    after(async () => {
      await t?.stop();
    });

    test("a call is one trace: gateway → gRPC hop → workspace → its Postgres statements", async () => {
      const res = await t.call("contact.create", { input: { name: "Ada Obi", email: "ada@northwind.example" } }, key);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const requestId = String(res.headers["x-request-id"]);

      const trace = await waitForTrace(jaeger, "gateway", { "gantry.request_id": requestId }, (found) =>
        found.spans.some(
          (s) =>
            found.processes[s.processID].serviceName === "workspace" &&
            s.tags.some((t) => t.key === "db.system.name" || t.key === "db.system"),
        ),
      );
      const { service, parentOf, ancestors, tag } = tree(trace);
      const root = trace.spans.find((s) => service(s) === "gateway" && s.operationName === "contact.create");
      assert.ok(root, `the gateway's span: ${trace.spans.map((s) => `${service(s)}:${s.operationName}`).join(", ")}`);
      assert.equal(parentOf(root), undefined, "the gateway's span is the root");
      assert.equal(tag(root, "gantry.request_id"), requestId);

      const server = trace.spans.find((s) => service(s) === "workspace" && s.operationName === "contact.create");
      assert.ok(server, "the workspace service's span for the call");
      assert.equal(tag(server, "gantry.request_id"), requestId, "the request id of the call's log lines");
      const client = parentOf(server);
      assert.ok(client && service(client) === "gateway", "the hop's client span is the gateway's");
      assert.ok(ancestors(server).includes(root));

      const queries = trace.spans.filter(
        (s) => service(s) === "workspace" && (tag(s, "db.system.name") ?? tag(s, "db.system")) === "postgresql",
      );
      assert.ok(queries.length > 0, "Postgres spans");
      for (const q of queries)
        assert.ok(ancestors(q).includes(server), `${q.operationName} sits under the call's span`);
    });

    if (protocol === "http/protobuf")
      test("a NATS publish made for a call is a span of that call", async () => {
        const res = await t.call(
          "event.emit",
          { input: { event: "booking.confirmed", payload: { bookingId: "bk_1" } } },
          key,
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const requestId = String(res.headers["x-request-id"]);
        const trace = await waitForTrace(jaeger, "gateway", { "gantry.request_id": requestId }, (found) =>
          found.spans.some((s) =>
            s.tags.some((t) => t.key === "messaging.destination.name" && String(t.value).includes("booking")),
          ),
        );
        const { service, ancestors, tag } = tree(trace);
        const server = trace.spans.find((s) => service(s) === "workspace" && s.operationName === "event.emit");
        const publish = trace.spans.find(
          (s) =>
            tag(s, "messaging.system") === "nats" && String(tag(s, "messaging.destination.name")).includes("booking"),
        );
        assert.ok(server && publish);
        assert.ok(ancestors(publish).includes(server), "under the workspace span of the call");
        assert.match(String(tag(publish, "messaging.destination.name")), /booking\.confirmed/);
      });

    if (protocol === "http/protobuf")
      test("every service counts its calls, errors and duration by ability (RED metrics over OTLP)", async () => {
        const missing = await t.call("contact.get", { input: { id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q" } }, key);
        assert.equal(missing.status, 404);
        const until = Date.now() + 20_000;
        let text = "";
        for (;;) {
          text = await (await fetch(jaeger.metrics)).text();
          if (/gantry_ability_errors_total\{[^}]*gantry_ability="contact\.get"[^}]*\}/.test(text)) break;
          assert.ok(Date.now() < until, `no error count for contact.get in:\n${text.slice(0, 3000)}`);
          await new Promise((r) => setTimeout(r, 250));
        }
        const line = (name: string, ability: string) =>
          text
            .split("\n")
            .find(
              (l) => l.startsWith(name) && l.includes(`gantry_ability="${ability}"`) && l.includes('job="workspace"'),
            );
        assert.ok(line("gantry_ability_calls_total", "contact.create"), "calls, by ability and service");
        assert.match(line("gantry_ability_errors_total", "contact.get") ?? "", /gantry_error_code="not_found"/);
        assert.ok(
          line("gantry_ability_duration_seconds_count", "contact.create") ??
            line("gantry_ability_duration_count", "contact.create"),
          "duration",
        );
      });
  });
}
