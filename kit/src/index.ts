/**
 * @module kit
 * The service kit: what every Gantry process shares. Import from here rather than re-implementing.
 */
export * from "./errors.ts";
export * from "./config.ts";
export * from "./env.ts";
export * from "./ability.ts";
export * from "./tenancy.ts";
export * from "./data/canonical.ts";
export * from "./data/db-errors.ts";
export * from "./data/idempotency.ts";
export * from "./call-outcome.ts";
export * from "./call-signal.ts";
export * from "./telemetry.ts";
export * from "./data/ids.ts";
export * from "./data/pagination.ts";
export * from "./data/prepared.ts";
export * from "./data/batched.ts";
export * from "./data/transaction.ts";
export * from "./data/advisory-lock.ts";
export * from "./logger.ts";
export * from "./grpc.ts";
export * from "./grpc-client.ts";
export * from "./grpc-server.ts";
export * from "./migrate.ts";
export * from "./nats.ts";
export * from "./topology.ts";
export * from "./service.ts";
export * from "./validation.ts";
export * from "./lru.ts";
export * from "./outbox.ts";
export * from "./durable-consumer.ts";
export * from "./key-format.ts";
export * from "./health.ts";
export * from "./idle-worker.ts";
export * from "./schema-check.ts";
export * from "./wire.ts";
export * from "./clock.ts";
export * from "./prng.ts";
export * from "./ssrf.ts";
export * from "./credential-resolver.ts";
export * from "./ingress.ts";
export * from "./call-auth.ts";
export * from "./grpc-tls.ts";
export * from "./chromium.ts";
export * from "./signed-links.ts";
export * from "./blob/store.ts";
