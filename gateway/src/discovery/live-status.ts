/**
 * @module gateway/discovery/live-status
 * Whether an ability can run right now, as its owner says: every owner (the area services over
 * gRPC, the gateway through its meta executor) answers `Describe` with the abilities it has wired.
 * Answers are cached per owner (5 s; a failed Describe for 2 s), concurrent look-ups share one
 * call, and once an answer is older than that it is still served (for up to a minute) while a
 * refresh runs in the background, so discovery, the docs page, MCP `tools/list` and
 * capability.discover never wait on a slow or unreachable service after the first look. The cache
 * only helps if it is shared, so main.ts builds one per process and passes it to whoever asks.
 *
 * @example
 * const status = await liveStatus.of(["contact.create", "gantry.about"]);
 * status.get("gantry.about"); // "live"
 */
import { abilityById } from "@gantry/proto/catalogue";
import type { ServiceName } from "@gantry/proto/catalogue/types.ts";
import type { WiredAbility } from "../executors/types.ts";

/** Who answers `Describe` for an owner (the Dispatcher). */
export interface Describer {
  describe(service: ServiceName): Promise<WiredAbility[] | null>;
}

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
  private readonly owners: Describer;
  private readonly now: () => number;
  private readonly cache = new Map<ServiceName, Entry>();
  private readonly inflight = new Map<ServiceName, Promise<Set<string> | null>>();

  constructor(owners: Describer, now: () => number = Date.now) {
    this.owners = owners;
    this.now = now;
  }

  /** Status of each id (unknown ids are left out). */
  async of(ids: readonly string[]): Promise<Map<string, AbilityStatus>> {
    const services = new Set<ServiceName>();
    for (const id of ids) {
      const def = abilityById.get(id);
      if (def) services.add(def.service);
    }
    const wired = new Map<ServiceName, Set<string> | null>();
    await Promise.all([...services].map(async (s) => wired.set(s, await this.wiredOf(s))));
    const out = new Map<string, AbilityStatus>();
    for (const id of ids) {
      const def = abilityById.get(id);
      if (!def) continue;
      const set = wired.get(def.service);
      out.set(id, set === null || set === undefined ? "unavailable" : set.has(id) ? "live" : "not_wired");
    }
    return out;
  }

  private async wiredOf(service: ServiceName): Promise<Set<string> | null> {
    const hit = this.cache.get(service);
    const now = this.now();
    if (hit && hit.until > now) return hit.wired;
    const pending = this.refresh(service);
    return hit && now - hit.until < STALE_MS ? hit.wired : pending;
  }

  private refresh(service: ServiceName): Promise<Set<string> | null> {
    let pending = this.inflight.get(service);
    if (!pending) {
      pending = this.owners
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
