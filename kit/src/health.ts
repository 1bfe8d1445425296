/**
 * @module kit/health
 * A client for the standard `grpc.health.v1.Health/Check`, used by the gateway's /health and by
 * the local runner to wait for services.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath } from "grpc-health-check";
import { CHANNEL_OPTIONS } from "./grpc.ts";

export type HealthStatus = "SERVING" | "NOT_SERVING" | "UNKNOWN" | "SERVICE_UNKNOWN" | "DOWN";

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

export class HealthClient {
  private readonly client: grpc.Client;

  constructor(addr: string) {
    this.client = new (healthCtor())(addr, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  }

  check(timeoutMs = 1_000): Promise<HealthStatus> {
    return new Promise((resolve) => {
      (this.client as unknown as { Check: (...args: unknown[]) => unknown }).Check(
        { service: "" },
        { deadline: new Date(Date.now() + timeoutMs) },
        (err: grpc.ServiceError | null, res: { status: HealthStatus }) => resolve(err ? "DOWN" : res.status),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}
