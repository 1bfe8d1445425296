/**
 * @module gateway/meta
 * Handlers of the abilities the catalogue gives to the gateway, by id; meta/executor.ts runs them.
 */
import { gantryAbout } from "./gantry-about.ts";
import { capabilityDiscover } from "./capability-discover.ts";
import type { MetaHandler } from "./types.ts";

export type { MetaEnv, MetaFacts, MetaHandler } from "./types.ts";
export { MetaExecutor } from "./executor.ts";

export const metaHandlers: Record<string, MetaHandler> = {
  "gantry.about": gantryAbout,
  "capability.discover": capabilityDiscover,
};
