/**
 * @module gateway/metrics
 * Prometheus metrics. Ability labels are catalogue ids or "unknown", never raw paths, so a client
 * cannot blow up label cardinality.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export function createMetrics() {
  const registry = new Registry();
  // The event-loop delay histogram samples every 100 ms, not prom-client's 10 ms: at 10 ms it woke
  // the idle gateway 100 times a second, about 0.9% of a core on a slow machine (8.6 ms of CPU a
  // second against 1.1 ms; docs/benchmarks.md, *Memory*), which also delayed kit/src/idle-memory.ts's
  // collection. The lag gauges are read per scrape, seconds apart; each sample is the interval
  // between two wake-ups, so they read about 0.1 s at idle and the lag is what exceeds that.
  collectDefaultMetrics({ register: registry, prefix: "gantry_gateway_", eventLoopMonitoringPrecision: 100 });
  return {
    registry,
    requests: new Counter({
      name: "gantry_requests_total",
      help: "Ability calls by ability and HTTP status",
      labelNames: ["ability", "status"],
      registers: [registry],
    }),
    latency: new Histogram({
      name: "gantry_request_duration_seconds",
      help: "Ability call latency at the gateway, by ability and HTTP status",
      labelNames: ["ability", "status"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: "gantry_rate_limited_total",
      help: "Calls refused with 429",
      registers: [registry],
    }),
    upstreamErrors: new Counter({
      name: "gantry_upstream_errors_total",
      help: "Failed gRPC calls to area services by service and error code",
      labelNames: ["service", "code"],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
