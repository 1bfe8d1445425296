/**
 * @module gateway/dispatch
 * Sends a validated call to the service that owns the ability (catalogue `service`) over gRPC, or to
 * a meta handler inside the gateway. Transport failures become `unavailable` (503 + retryAfterMs).
 */
import { ABILITY_PROTO } from "@gantry/proto/paths";
import type { ServiceName } from "@gantry/proto/catalogue/types.ts";
import { AREA_SERVICES, GantryError, makeClient, toGrpcContext, unary, type AreaService, type CallContext, type grpc } from "@gantry/kit";

export class Dispatcher {
  readonly clients: Map<AreaService, grpc.Client>;
  private readonly timeoutMs: number;

  constructor(addrs: Record<AreaService, string>, timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.clients = new Map(AREA_SERVICES.map((s) => [s.name, makeClient<grpc.Client>(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addrs[s.name])]));
  }

  /** Returns the service's JSON-encoded result. */
  async execute(service: ServiceName, ability: string, inputJson: string, call: CallContext): Promise<string> {
    const client = this.clients.get(service as AreaService);
    if (!client) throw new GantryError("internal", `no client for service ${service}`);
    try {
      const res = await unary<object, { result_json: string }>(client, "Execute", { ability, context: toGrpcContext(call), input_json: inputJson }, { deadlineMs: this.timeoutMs });
      return res.result_json || "null";
    } catch (err) {
      if (err instanceof GantryError && err.code === "unavailable" && !err.reason) {
        throw new GantryError("unavailable", `The ${service} service is unavailable; retry shortly.`, {
          reason: `${ability} is owned by the ${service} service, which is not reachable right now.`,
          retryAfterMs: 1_000,
          cause: err,
        });
      }
      throw err;
    }
  }

  /** Lists what a service has wired (Describe RPC); null when it is down. */
  async describe(service: AreaService): Promise<{ id: string; wired: boolean }[] | null> {
    try {
      const res = await unary<object, { abilities: { id: string; wired: boolean }[] }>(this.clients.get(service)!, "Describe", {}, { deadlineMs: 1_000 });
      return res.abilities;
    } catch {
      return null;
    }
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
  }
}
