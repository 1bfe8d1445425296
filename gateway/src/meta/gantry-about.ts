/**
 * @module gateway/meta/gantry-about
 * `gantry.about`: the service's self-description for the calling key (the spec's `{base_url}`
 * ability): version, the abilities this key may call grouped by area, its limits and where the
 * docs live.
 */
import { catalogue, keyMayCall } from "@gantry/proto/catalogue";
import type { MetaHandler } from "./types.ts";

interface Allowed {
  count: number;
  areas: { area: string; abilities: string[] }[];
}

// Keys' scopes never change (a change is a new key), so what a scope set allows is computed once.
const allowedByScopes = new Map<string, Allowed>();

function allowedFor(scopes: string[]): Allowed {
  const cacheKey = scopes.join("\n");
  let hit = allowedByScopes.get(cacheKey);
  if (!hit) {
    const allowed = catalogue.filter((a) => keyMayCall(scopes, a.id));
    const areas: Record<string, string[]> = {};
    for (const a of allowed) {
      areas[a.area] ??= [];
      areas[a.area].push(a.id);
    }
    hit = {
      count: allowed.length,
      areas: Object.entries(areas)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([area, abilities]) => ({ area, abilities })),
    };
    if (allowedByScopes.size >= 10_000) allowedByScopes.clear();
    allowedByScopes.set(cacheKey, hit);
  }
  return hit;
}

export const gantryAbout: MetaHandler = async (_input, call, env) => {
  const allowed = allowedFor(call.scopes);
  return {
    name: "Gantry",
    version: env.version,
    tenant: call.tenant,
    keyId: call.keyId,
    admin: call.admin,
    abilityCount: allowed.count,
    areas: allowed.areas,
    limits: {
      rateLimit: env.rateLimit,
      maxBodyBytes: env.maxBodyBytes,
      authCacheSeconds: 30,
    },
    urls: {
      docs: `${env.baseUrl}/docs`,
      mcp: `${env.baseUrl}/mcp`,
      openapi: `${env.baseUrl}/openapi.json`,
      abilities: `${env.baseUrl}/v1/abilities`,
    },
  };
};
