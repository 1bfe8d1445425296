/**
 * @module gateway/meta/executor
 * The gateway's own executor: the meta abilities behind the same interface as an area service's
 * gRPC executor, so the Dispatcher routes `gateway`-owned abilities like any other owner's, an
 * owned id without a handler answers 501 like any unwired ability, and live status learns what is
 * wired by asking it `Describe`.
 */
import { catalogue } from "@gantry/proto/catalogue";
import { GantryError, type CallContext } from "@gantry/kit";
import type { AbilityExecutor, EdgeInfo, ExecuteOutput, WiredAbility } from "../executors/types.ts";
import type { MetaFacts, MetaHandler } from "./types.ts";

export class MetaExecutor implements AbilityExecutor {
  private readonly handlers: Readonly<Record<string, MetaHandler>>;
  private readonly facts: MetaFacts;

  constructor(handlers: Readonly<Record<string, MetaHandler>>, facts: MetaFacts) {
    this.handlers = handlers;
    this.facts = facts;
  }

  async execute(ability: string, inputJson: string, call: CallContext, edge?: EdgeInfo): Promise<ExecuteOutput> {
    const handler = Object.hasOwn(this.handlers, ability) ? this.handlers[ability] : undefined;
    if (!handler)
      throw new GantryError("not_implemented", `${ability} is declared but not wired yet.`, {
        reason: "The gateway has no handler for it yet.",
      });
    // Answers describe the gateway as this client reaches it; without the edge they would be wrong, not partial.
    if (!edge) throw new GantryError("internal", `${ability} needs the call's edge info (base URL, rate limit)`);
    const result = await handler(JSON.parse(inputJson) as Record<string, unknown>, call, { ...this.facts, ...edge });
    return { resultJson: JSON.stringify(result), replayed: false };
  }

  async describe(): Promise<WiredAbility[]> {
    return catalogue
      .filter((a) => a.service === "gateway")
      .map((a) => ({ id: a.id, wired: Object.hasOwn(this.handlers, a.id) }));
  }

  close(): void {}
}
