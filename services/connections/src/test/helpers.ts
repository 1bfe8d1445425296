/**
 * Test helpers for the connections service: the one-service harness (real Postgres, NATS, gRPC; the
 * service in this process) configured against a real authorization server (auth-server.ts), a test
 * clock every instance reads, a gRPC client for the CredentialResolver, the NATS messages the
 * service published, and the whole consent flow in one call.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type CallContext, decodeJson, makeClient, natsConnectOptions, type RpcClient } from "@gantry/kit";
import { CONNECTIONS_PROTO } from "@gantry/proto/paths";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";
import type { ConnectionMessage } from "../events.ts";
import type { ResolvedCredential } from "@gantry/kit";
import { type AuthServer, type AuthServerOptions, startAuthServer } from "./auth-server.ts";

export const PLATFORM_EMAIL = { apiKey: "platform-email-key-not-a-tenant-one", from: "noreply@gantry.example" };

export interface ConnectionsTest {
  s: ServiceHarness<Context>;
  auth: AuthServer;
  /** Moves the service's clock forward (cumulative), without sleeping. */
  advanceClock: (ms: number) => void;
  /** ResolveCredential over gRPC on the harness's service (or another instance's port). */
  resolve: (tenant: string, service: string, port?: number) => Promise<ResolvedCredential>;
  /** Messages published on connections.> since start. */
  messages: ConnectionMessage[];
  /** start → the user consents at the provider → complete; returns both results and the redirect. */
  connect: (
    service: string,
    caller?: Partial<CallContext>,
  ) => Promise<{ started: any; completed: any; redirect: string }>;
  env: Record<string, string>;
  port: number;
  stop: () => Promise<void>;
}

export async function startConnections(
  opts: {
    env?: Record<string, string>;
    authServer?: AuthServerOptions;
    /** CONNECTIONS_PROVIDERS from the started auth server (default: `payments` only). */
    providers?: (auth: AuthServer) => Record<string, unknown>;
  } = {},
): Promise<ConnectionsTest> {
  const auth = await startAuthServer(opts.authServer);
  const dir = mkdtempSync(join(tmpdir(), "gantry-connections-clock-"));
  const clockFile = join(dir, "offset");
  writeFileSync(clockFile, "0");
  let offset = 0;
  const env = {
    NODE_ENV: "test",
    GANTRY_TEST_CLOCK_FILE: clockFile,
    CONNECTIONS_ALLOW_HTTP_LOOPBACK: "true",
    CONNECTIONS_PROVIDERS: JSON.stringify(opts.providers?.(auth) ?? { payments: auth.providerConfig() }),
    CONNECTIONS_PLATFORM_ACCOUNTS: JSON.stringify({ email: PLATFORM_EMAIL }),
    CONNECTIONS_REFRESH_SWEEP_SECONDS: "0",
    ...opts.env,
  };
  const s = await startService<Context>("connections", env);
  const port = s.port;
  const clients = new Map<number, RpcClient<"gantry.connections.v1.CredentialResolver">>();
  const nc: NatsConnection = await connect(natsConnectOptions(s.env.NATS_URL));
  const messages: ConnectionMessage[] = [];
  const sub = nc.subscribe("connections.>");
  (async () => {
    for await (const m of sub) messages.push(decodeJson<ConnectionMessage>(m.data));
  })().catch(() => {});
  await nc.flush();

  const out: ConnectionsTest = {
    s,
    auth,
    env,
    port,
    messages,
    advanceClock: (ms) => {
      offset += ms;
      writeFileSync(clockFile, String(offset));
    },
    resolve: (tenant, service, at = port) => {
      let client = clients.get(at);
      if (!client) {
        // As payments asks (kit/topology: payments and content may resolve credentials).
        client = makeClient(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver", `127.0.0.1:${at}`, {
          signer: s.signer("payments"),
        });
        clients.set(at, client);
      }
      return client.unary("ResolveCredential", {
        tenant,
        service,
        request_id: "req_test",
      }) as Promise<ResolvedCredential>;
    },
    connect: async (service, caller = {}) => {
      const started = await s.call("connection.authorize", { service }, caller);
      const redirect = await auth.consent(started.authorizationUrl);
      const completed = await s.call(
        "connection.authorize",
        { action: "complete", connectionId: started.connection.id, state: started.state, sessionUri: redirect },
        caller,
      );
      assert.equal(completed.connection.status, "connected");
      return { started, completed, redirect };
    },
    stop: async () => {
      for (const c of clients.values()) c.close();
      await nc.drain().catch(() => {});
      await s.stop();
      await auth.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return out;
}

/** Waits until `fn` returns a truthy value (or times out). */
export async function until<T>(fn: () => T | undefined | null | false, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
