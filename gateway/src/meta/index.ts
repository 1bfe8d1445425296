/**
 * @module gateway/meta
 * Handlers of the abilities the catalogue gives to the gateway. An owned id without a handler here
 * answers 501 like any unwired ability.
 */
import { gantryAbout } from "./gantry-about.ts";
import { capabilityDiscover } from "./capability-discover.ts";
import type { MetaHandler } from "./types.ts";

export type { MetaEnv, MetaHandler } from "./types.ts";

export const metaHandlers: Record<string, MetaHandler> = {
  "gantry.about": gantryAbout,
  "capability.discover": capabilityDiscover,
};
