/**
 * @module kit/telemetry-sdk
 * The OpenTelemetry Node SDK as every Gantry process starts it, loaded only when the OTEL_*
 * variables ask for telemetry (kit/telemetry). The SDK reads its own configuration from them
 * (exporter, protocol, sampler, metrics); what is ours: the service name when `OTEL_SERVICE_NAME`
 * is unset, and the official instrumentations for Postgres (`pg`, `pg-pool`) and outgoing HTTP
 * (undici, which the SSRF guard uses: it reports through diagnostics_channel, so it needs no patching).
 */
import { createRequire } from "node:module";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK } from "@opentelemetry/sdk-node";

/** Starts the SDK; returns its shutdown. */
export function startSdk(serviceName: string, env: NodeJS.ProcessEnv): () => Promise<void> {
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName }),
    instrumentations: [new PgInstrumentation({ requireParentSpan: true }), new UndiciInstrumentation()],
  });
  sdk.start();
  // The instrumentations patch a module when it is required through the hook the SDK just set up,
  // but ES modules imported `pg` before any of this ran: requiring it again hands the (shared) module
  // to the hook, which patches its classes in place for every importer.
  const require = createRequire(import.meta.url);
  require("pg");
  require("pg-pool");
  return () => sdk.shutdown();
}
