/**
 * @module gateway/discovery/live-status
 * Whether an ability can run right now, as its owner says: every owner (the area services over
 * gRPC, the gateway through its meta executor) answers `Describe` with the abilities it has wired
 * and what each still needs on this deployment (kit/ability-needs: a variable to set, or a part
 * with no adapter yet). Answers are cached per owner (5 s; a failed Describe for 2 s), concurrent
 * look-ups share one call, and once an answer is older than that it is still served (for up to a
 * minute) while a refresh runs in the background, so discovery, the docs page, MCP `tools/list` and
 * capability.discover never wait on a slow or unreachable service after the first look. The cache
 * only helps if it is shared, so main.ts builds one per process and passes it to whoever asks.
 *
 * @example
 * const status = await liveStatus.of(["contact.create", "gantry.about"]);
 * status.get("gantry.about"); // "live"
 * (await liveStatus.details(["web.research"])).get("web.research");
 * // { status: "needs_configuration", needs: [{ part: null, variables: ["WEB_SEARXNG_URL"], … }] }
 */
import { abilityById } from "@gantry/proto/catalogue";
import type { ServiceName } from "@gantry/proto/catalogue/types.ts";
import type { AbilityNeedView, WiredAbility } from "../executors/types.ts";

/** Who answers `Describe` for an owner (the Dispatcher). */
export interface Describer {
  describe(service: ServiceName): Promise<WiredAbility[] | null>;
}

/**
 * - `live`: the owner is reachable and has a handler wired; a call runs it (a part of it may still
 *   be listed in `needs`, e.g. one channel).
 * - `needs_configuration`: wired, but this deployment lacks what it needs (`needs` names the
 *   variables); a call answers 501 until the operator sets them.
 * - `not_wired`: declared in the catalogue, no handler yet; a call answers 501.
 * - `unavailable`: the owning service does not answer right now; a call answers 503.
 */
export type AbilityStatus = "live" | "needs_configuration" | "not_wired" | "unavailable";

export const ABILITY_STATUSES: readonly AbilityStatus[] = ["live", "needs_configuration", "not_wired", "unavailable"];

export const STATUS_TEXT: Record<AbilityStatus, string> = {
  live: "Live: the owning service is up and the ability is wired.",
  needs_configuration:
    "Needs configuration: wired, but this deployment lacks a setting it needs (see needs[].variables); calls answer 501 not_implemented until the operator sets it.",
  not_wired: "Declared but not wired yet: calls answer 501 not_implemented.",
  unavailable: "The owning service is not reachable right now: calls answer 503 (retry later).",
};

/** An ability's status and what it (or a part of it) still needs on this deployment. */
export interface AbilityState {
  status: AbilityStatus;
  /** Empty unless something is missing; a need with `part: null` is the whole ability. */
  needs: AbilityNeedView[];
}

const UP_TTL_MS = 5_000;
const DOWN_TTL_MS = 2_000;
/** How long an expired answer may still be served while its refresh runs. */
const STALE_MS = 60_000;

/** The owner's wired abilities, each with its needs; null when the owner does not answer. */
type Wired = Map<string, AbilityNeedView[]> | null;

interface Entry {
  wired: Wired;
  until: number;
}

export class LiveStatus {
  private readonly owners: Describer;
  private readonly now: () => number;
  private readonly cache = new Map<ServiceName, Entry>();
  private readonly inflight = new Map<ServiceName, Promise<Wired>>();

  constructor(owners: Describer, now: () => number = Date.now) {
    this.owners = owners;
    this.now = now;
  }

  /** Status of each id (unknown ids are left out). */
  async of(ids: readonly string[]): Promise<Map<string, AbilityStatus>> {
    const states = await this.details(ids);
    return new Map([...states].map(([id, s]) => [id, s.status]));
  }

  /** Status and needs of each id (unknown ids are left out). */
  async details(ids: readonly string[]): Promise<Map<string, AbilityState>> {
    const services = new Set<ServiceName>();
    for (const id of ids) {
      const def = abilityById.get(id);
      if (def) services.add(def.service);
    }
    const wired = new Map<ServiceName, Wired>();
    await Promise.all([...services].map(async (s) => wired.set(s, await this.wiredOf(s))));
    const out = new Map<string, AbilityState>();
    for (const id of ids) {
      const def = abilityById.get(id);
      if (!def) continue;
      const owner = wired.get(def.service);
      const needs = owner?.get(id);
      if (!owner) out.set(id, { status: "unavailable", needs: [] });
      else if (!needs) out.set(id, { status: "not_wired", needs: [] });
      else out.set(id, { status: needs.find((n) => n.part === null)?.status ?? "live", needs });
    }
    return out;
  }

  private async wiredOf(service: ServiceName): Promise<Wired> {
    const hit = this.cache.get(service);
    const now = this.now();
    if (hit && hit.until > now) return hit.wired;
    const pending = this.refresh(service);
    return hit && now - hit.until < STALE_MS ? hit.wired : pending;
  }

  private refresh(service: ServiceName): Promise<Wired> {
    let pending = this.inflight.get(service);
    if (!pending) {
      pending = this.owners
        .describe(service)
        .then((abilities) => {
          const wired = abilities
            ? new Map(abilities.filter((a) => a.wired).map((a) => [a.id, (a.needs ?? []).map(needView)]))
            : null;
          this.cache.set(service, { wired, until: this.now() + (wired ? UP_TTL_MS : DOWN_TTL_MS) });
          return wired;
        })
        .finally(() => this.inflight.delete(service));
      this.inflight.set(service, pending);
    }
    return pending;
  }
}

/** A need as Describe sends it (proto3: an empty `part` is the whole ability) as discovery shows it. */
function needView(n: AbilityNeedView | (Omit<AbilityNeedView, "part"> & { part: string })): AbilityNeedView {
  return {
    part: n.part || null,
    status: n.status === "not_wired" ? "not_wired" : "needs_configuration",
    variables: [...(n.variables ?? [])],
    message: n.message,
  };
}
