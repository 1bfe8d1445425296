/**
 * @module infra/runner/health
 * Health probes the runner uses to decide that a process is up: the standard gRPC health check
 * (`grpc.health.v1.Health/Check`, service "") for area services, `GET /health` for gateways, and
 * a plain TCP connect for dependencies.
 *
 * @example
 * const probe = new HealthClient("127.0.0.1:50051"); // from @gantry/kit
 * if ((await probe.check()) === "SERVING") console.log("keys is up");
 * probe.close();
 */
import net from "node:net";
import { HealthClient } from "@gantry/kit";

/** One-shot gRPC health check: true when `address` answers SERVING. */
export async function grpcHealthy(address: string, timeoutMs = 1000): Promise<boolean> {
  const probe = new HealthClient(address);
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

/**
 * True when `GET <baseUrl>/health` answers 200 and names every one of `services` SERVING: a gateway
 * is ready only once it reaches the services of its own stack (it was given their bound addresses),
 * not merely when it listens.
 */
export async function gatewayReady(baseUrl: string, services: readonly string[], timeoutMs = 1000): Promise<boolean> {
  try {
    const res = await fetch(new URL("/health", baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json().catch(() => ({}))) as { services?: Record<string, string> };
    return res.status === 200 && services.every((s) => body.services?.[s] === "SERVING");
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
