/**
 * @module gateway/dispatch
 * Routes a validated call to the executor of the ability's owner (catalogue `service`): a gRPC
 * executor per area service, and the gateway's own meta executor (meta/executor.ts), which has
 * the same interface so that nothing upstream treats the gateway's abilities specially.
 *
 * The meta executor is mounted after construction because it depends on live status, which in
 * turn asks this dispatcher what every owner has wired.
 *
 * With `checkResults` (GANTRY_CHECK_RESULTS, on in every test stack) every result, whoever produced
 * it, is checked against its ability's output schema here, so no response escapes the contract.
 */
import type { ServiceName } from "@gantry/proto/catalogue/types.ts";
import {
  AREA_SERVICES,
  type AreaService,
  type CallContext,
  type CallKeys,
  checkResult,
  GantryError,
} from "@gantry/kit";
import { GrpcExecutor } from "./executors/grpc.ts";
import type { AbilityExecutor, EdgeInfo, ExecuteOutput, WiredAbility } from "./executors/types.ts";

export class Dispatcher {
  private readonly executors = new Map<ServiceName, AbilityExecutor>();

  private readonly checkResults: boolean;

  /** `callKeys`: the gateway's (kit/call-auth); without them calls go unsigned and services refuse them. */
  constructor(addrs: Record<AreaService, string>, timeoutMs: number, checkResults = false, callKeys?: CallKeys) {
    this.checkResults = checkResults;
    for (const s of AREA_SERVICES)
      this.executors.set(s.name, new GrpcExecutor(s.name, addrs[s.name], timeoutMs, callKeys?.signer(s.name)));
  }

  /** Serves `service`'s abilities with `executor` (the gateway's own, in main.ts). */
  mount(service: ServiceName, executor: AbilityExecutor): void {
    this.executors.get(service)?.close();
    this.executors.set(service, executor);
  }

  /** Returns the owner's JSON-encoded result and whether it was an idempotent replay. */
  async execute(
    service: ServiceName,
    ability: string,
    inputJson: string,
    call: CallContext,
    edge?: EdgeInfo,
  ): Promise<ExecuteOutput> {
    const executor = this.executors.get(service);
    if (!executor) throw new GantryError("internal", `no executor for service ${service}`);
    const out = await executor.execute(ability, inputJson, call, edge);
    if (this.checkResults) checkResult(ability, JSON.parse(out.resultJson));
    return out;
  }

  /** Lists what an owner has wired (Describe); null when it is down or unknown. */
  async describe(service: ServiceName): Promise<WiredAbility[] | null> {
    return (await this.executors.get(service)?.describe()) ?? null;
  }

  close(): void {
    for (const e of this.executors.values()) e.close();
  }
}
