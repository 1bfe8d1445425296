/**
 * @module gateway/discovery/live-status
 * Whether an ability can run right now. An area service answers `Describe` with the abilities it
 * has wired; the gateway's own meta abilities are live when a handler is registered. Answers are
 * cached per service (5 s; a failed Describe for 2 s), concurrent look-ups share one RPC, and once
 * an answer is older than that it is still served (for up to a minute) while a refresh runs in the
 * background, so discovery, the docs page, MCP `tools/list` and capability.discover never wait on a
 * slow or unreachable service after the first look. The cache hangs off the dispatcher, so every
 * gateway process has exactly one.
 *
 * @example
 * const status = await liveStatus(deps).of(["contact.create", "gantry.about"]);
 * status.get("gantry.about"); // "live"
 */
import { abilityById } from "@gantry/proto/catalogue";
import type { AreaService } from "@gantry/kit";
import type { Dispatcher } from "../dispatch.ts";
import type { GatewayDeps } from "../deps.ts";
import { metaHandlers } from "../meta/index.ts";

/**
 * - `live`: the owner is reachable and has a handler wired; a call runs it.
 * - `not_wired`: declared in the catalogue, no handler yet; a call answers 501.
 * - `unavailable`: the owning service does not answer right now; a call answers 503.
 */
export type AbilityStatus = "live" | "not_wired" | "unavailable";

export const STATUS_TEXT: Record<AbilityStatus, string> = {
  live: "Live: the owning service is up and the ability is wired.",
  not_wired: "Declared but not wired yet: calls answer 501 not_implemented.",
  unavailable: "The owning service is not reachable right now: calls answer 503 (retry later).",
};

const UP_TTL_MS = 5_000;
const DOWN_TTL_MS = 2_000;
/** How long an expired answer may still be served while its refresh runs. */
const STALE_MS = 60_000;

interface Entry {
  wired: Set<string> | null;
  until: number;
}

export class LiveStatus {
  private readonly dispatcher: Dispatcher;
  private readonly now: () => number;
  private readonly cache = new Map<AreaService, Entry>();
  private readonly inflight = new Map<AreaService, Promise<Set<string> | null>>();

  constructor(dispatcher: Dispatcher, now: () => number = Date.now) {
    this.dispatcher = dispatcher;
    this.now = now;
  }

  /** Status of each id (unknown ids are left out). */
  async of(ids: readonly string[]): Promise<Map<string, AbilityStatus>> {
    const services = new Set<AreaService>();
    for (const id of ids) {
      const def = abilityById.get(id);
      if (def && def.service !== "gateway") services.add(def.service);
    }
    const wired = new Map<AreaService, Set<string> | null>();
    await Promise.all([...services].map(async (s) => wired.set(s, await this.wiredOf(s))));
    const out = new Map<string, AbilityStatus>();
    for (const id of ids) {
      const def = abilityById.get(id);
      if (!def) continue;
      if (def.service === "gateway") {
        out.set(id, Object.hasOwn(metaHandlers, id) ? "live" : "not_wired");
        continue;
      }
      const set = wired.get(def.service);
      out.set(id, set === null || set === undefined ? "unavailable" : set.has(id) ? "live" : "not_wired");
    }
    return out;
  }

  private async wiredOf(service: AreaService): Promise<Set<string> | null> {
    const hit = this.cache.get(service);
    const now = this.now();
    if (hit && hit.until > now) return hit.wired;
    const pending = this.refresh(service);
    return hit && now - hit.until < STALE_MS ? hit.wired : pending;
  }

  private refresh(service: AreaService): Promise<Set<string> | null> {
    let pending = this.inflight.get(service);
    if (!pending) {
      pending = this.dispatcher
        .describe(service)
        .then((abilities) => {
          const wired = abilities ? new Set(abilities.filter((a) => a.wired).map((a) => a.id)) : null;
          this.cache.set(service, { wired, until: this.now() + (wired ? UP_TTL_MS : DOWN_TTL_MS) });
          return wired;
        })
        .finally(() => this.inflight.delete(service));
      this.inflight.set(service, pending);
    }
    return pending;
  }
}

const perDispatcher = new WeakMap<Dispatcher, LiveStatus>();

/** The gateway's live-status cache (one per dispatcher, i.e. per gateway process). */
export function liveStatus(deps: Pick<GatewayDeps, "dispatcher" | "now">): LiveStatus {
  let ls = perDispatcher.get(deps.dispatcher);
  if (!ls) {
    ls = new LiveStatus(deps.dispatcher, deps.now);
    perDispatcher.set(deps.dispatcher, ls);
  }
  return ls;
}
