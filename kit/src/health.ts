/**
 * @module kit/health
 * A client for the standard `grpc.health.v1.Health/Check`, used by the gateway's /health and by
 * the local runner to wait for services.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath } from "grpc-health-check";
import { RpcClient } from "./grpc-client.ts";
import type { GrpcHandlers } from "./grpc-server.ts";
import type { HealthCheckResponse_ServingStatus } from "./generated/grpc.ts";

/** What `Check` answers, or `DOWN` when nothing answered. */
export type HealthStatus = HealthCheckResponse_ServingStatus | "DOWN";

let HealthCtor: grpc.ServiceClientConstructor | undefined;

function healthCtor(): grpc.ServiceClientConstructor {
  if (!HealthCtor) {
    const def = protoLoader.loadSync(protoPath, { keepCase: true, enums: String, defaults: true });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
    };
    HealthCtor = pkg.grpc.health.v1.Health;
  }
  return HealthCtor;
}

/**
 * The service side of `grpc.health.v1.Health/Check` for the whole server (service name ""),
 * registered on the kit's `RpcServer`; `set` flips it (NOT_SERVING while starting and stopping).
 */
export function healthService(initial: HealthCheckResponse_ServingStatus = "NOT_SERVING"): {
  service: grpc.ServiceDefinition;
  impl: Pick<GrpcHandlers<"grpc.health.v1.Health">, "Check">;
  set: (status: HealthCheckResponse_ServingStatus) => void;
} {
  let current: HealthCheckResponse_ServingStatus = initial;
  // Check only: List and Watch are not served (kubelet and the runner ask Check).
  const impl: Pick<GrpcHandlers<"grpc.health.v1.Health">, "Check"> = {
    Check: (call, callback) => {
      if (call.request.service) callback({ code: grpc.status.NOT_FOUND, details: "unknown service" });
      else callback(null, { status: current });
    },
  };
  return { service: healthCtor().service, impl, set: (s) => (current = s) };
}

export class HealthClient {
  private readonly client: RpcClient<"grpc.health.v1.Health">;

  constructor(addr: string) {
    this.client = new RpcClient<"grpc.health.v1.Health">(healthCtor(), addr);
  }

  check(timeoutMs = 1_000): Promise<HealthStatus> {
    return this.client.unary("Check", { service: "" }, { deadlineMs: timeoutMs }).then(
      (res) => res.status,
      () => "DOWN",
    );
  }

  close(): void {
    this.client.close();
  }
}
