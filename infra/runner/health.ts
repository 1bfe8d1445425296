/**
 * @module infra/runner/health
 * Health probes the runner uses to decide that a process is up: the standard gRPC health check
 * (`grpc.health.v1.Health/Check`, service "") for area services, `GET /health` for gateways, and
 * a plain TCP connect for dependencies.
 *
 * @example
 * const probe = new GrpcHealthProbe("127.0.0.1:50051");
 * if ((await probe.check()) === "SERVING") console.log("keys is up");
 * probe.close();
 */
import net from "node:net";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath } from "grpc-health-check";

/** `health/v1/health.proto` as shipped inside the `grpc-health-check` package. */
export const HEALTH_PROTO = protoPath;

type CheckCallback = (err: grpc.ServiceError | null, res?: { status: string }) => void;
interface HealthClient extends grpc.Client {
  Check(req: { service: string }, opts: grpc.CallOptions, cb: CheckCallback): grpc.ClientUnaryCall;
}
type HealthClientCtor = new (addr: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => HealthClient;

let healthCtor: HealthClientCtor | undefined;

function loadHealthClient(): HealthClientCtor {
  if (healthCtor) return healthCtor;
  const def = protoLoader.loadSync(HEALTH_PROTO, {
    keepCase: true,
    enums: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { health: { v1: { Health: HealthClientCtor } } };
  };
  healthCtor = pkg.grpc.health.v1.Health;
  return healthCtor;
}

/** A reusable gRPC health client for one `host:port`. */
export class GrpcHealthProbe {
  readonly address: string;
  private client: HealthClient;

  constructor(address: string) {
    this.address = address;
    const Ctor = loadHealthClient();
    // Short reconnect backoff: the probe polls a process that is (re)starting, and grpc-js's
    // default backoff (1 s growing to 120 s) would notice it late.
    this.client = new Ctor(address, grpc.credentials.createInsecure(), {
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 1000,
    });
  }

  /**
   * One `Check` call with service "" (overall health). Resolves to the status name
   * (`SERVING`, `NOT_SERVING`, ...) or `UNREACHABLE` when the call fails.
   */
  check(timeoutMs = 1000): Promise<string> {
    return new Promise((resolve) => {
      this.client.Check({ service: "" }, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err || !res) resolve("UNREACHABLE");
        else resolve(String(res.status));
      });
    });
  }

  close(): void {
    this.client.close();
  }
}

/** One-shot gRPC health check: true when `address` answers SERVING. */
export async function grpcHealthy(address: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new GrpcHealthProbe(address);
  try {
    return (await probe.check(timeoutMs)) === "SERVING";
  } finally {
    probe.close();
  }
}

/** True when `GET <baseUrl>/health` answers 200. */
export async function httpHealthy(baseUrl: string, timeoutMs = 1000): Promise<boolean> {
  try {
    const res = await fetch(new URL("/health", baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return res.status === 200;
  } catch {
    return false;
  }
}

/** True when a TCP connection to `host:port` is accepted. */
export function tcpOpen(port: number, host = "127.0.0.1", timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (ok: boolean) => {
      sock.removeAllListeners();
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once("connect", () => done(true));
    sock.once("error", () => done(false));
  });
}
