/**
 * @module gateway/executors/grpc
 * Runs abilities owned by an area service over gRPC (`AbilityService/Execute`, `Describe`). A
 * transport failure becomes `unavailable` naming the service (503 + retryAfterMs), so a caller
 * learns which owner is down and that waiting helps, not a bare connection error.
 */
import { ABILITY_PROTO } from "@gantry/proto/paths";
import {
  forwardCall,
  GantryError,
  makeClient,
  toGrpcContext,
  type AreaService,
  type CallContext,
  type CallSigner,
  type RpcClient,
} from "@gantry/kit";
import type { AbilityExecutor, ExecuteOutput, WiredAbility } from "./types.ts";

export class GrpcExecutor implements AbilityExecutor {
  private readonly service: AreaService;
  private readonly client: RpcClient;
  private readonly timeoutMs: number;

  /** `signer`: the gateway's key for `service`; every Execute carries its token (kit/call-auth). */
  constructor(service: AreaService, addr: string, timeoutMs: number, signer?: CallSigner) {
    this.service = service;
    this.timeoutMs = timeoutMs;
    this.client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addr, { signer });
  }

  async execute(ability: string, inputJson: string, call: CallContext): Promise<ExecuteOutput> {
    try {
      const res = await this.client.unary<object, { result_json: string; replayed?: boolean }>(
        "Execute",
        { ability, context: toGrpcContext(call), input_json: inputJson },
        // The call's own deadline (its ability's, else UPSTREAM_TIMEOUT_MS) and the client's going away.
        forwardCall(call, this.timeoutMs),
      );
      return { resultJson: res.result_json || "null", replayed: res.replayed === true };
    } catch (err) {
      if (err instanceof GantryError && err.code === "unavailable" && !err.reason) {
        throw new GantryError("unavailable", `The ${this.service} service is unavailable; retry shortly.`, {
          reason: `${ability} is owned by the ${this.service} service, which is not reachable right now.`,
          retryAfterMs: 1_000,
          cause: err,
        });
      }
      throw err;
    }
  }

  async describe(): Promise<WiredAbility[] | null> {
    try {
      const res = await this.client.unary<object, { abilities: WiredAbility[] }>("Describe", {}, { deadlineMs: 1_000 });
      return res.abilities;
    } catch {
      return null;
    }
  }

  close(): void {
    this.client.close();
  }
}
