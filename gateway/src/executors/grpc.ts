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
import type { AbilityExecutor, AbilityNeedView, ExecuteOutput, WiredAbility } from "./types.ts";

/**
 * A need's status, which the proto carries as a string: a value this gateway does not know (a newer
 * service) reads as `not_wired`, the one that promises nothing a setting could fix.
 */
function needStatus(status: string): AbilityNeedView["status"] {
  return status === "needs_configuration" ? status : "not_wired";
}

export class GrpcExecutor implements AbilityExecutor {
  private readonly service: AreaService;
  private readonly client: RpcClient<"gantry.ability.v1.AbilityService">;
  private readonly timeoutMs: number;

  /** `signer`: the gateway's key for `service`; every Execute carries its token (kit/call-auth). */
  constructor(service: AreaService, addr: string, timeoutMs: number, signer?: CallSigner) {
    this.service = service;
    this.timeoutMs = timeoutMs;
    this.client = makeClient(ABILITY_PROTO, "gantry.ability.v1.AbilityService", addr, { signer });
  }

  async execute(ability: string, inputJson: string, call: CallContext): Promise<ExecuteOutput> {
    try {
      const res = await this.client.unary(
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
      const res = await this.client.unary("Describe", {}, { deadlineMs: 1_000 });
      return res.abilities.map((a) => ({
        id: a.id,
        wired: a.wired,
        needs: a.needs.map((n) => ({ ...n, status: needStatus(n.status) })),
      }));
    } catch {
      return null;
    }
  }

  close(): void {
    this.client.close();
  }
}
