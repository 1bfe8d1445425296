/**
 * @module keys/containment
 * A tenant key can never mint a key wider than itself (issue 3). `excess(caller, requested)` lists
 * every way `requested` would exceed `caller`; key.issue and key.rotate refuse with 403 naming each
 * one (`details[].path` = the input field, `code` = `exceeds_caller`). Admin keys are root keys and
 * are not checked.
 *
 * Scopes: a requested scope is allowed only if one of the caller's scopes covers it as a pattern:
 * `*` covers everything; `p.*` covers `p.*`, `p.x`, `p.x.*` …; an exact id covers itself. Coverage
 * implies that every ability the requested scope expands to (against the live catalogue) is one the
 * caller may call, today and when abilities are added later: a caller holding `contact.get`,
 * `contact.list`, `contact.create` and `contact.update` may not mint `contact.*`, because that would
 * also grant the next `contact.` ability; it may mint those four ids.
 *
 * Collections and products: a subset of the caller's (`*` covers every name; only a holder of `*` grants `*`). Flags: `admin` / `subTenants` only if the
 * caller has them. Rate limit: no higher burst (`limit`) and no higher rate (`limit / window`) than the
 * caller's effective limit (its own or the deployment default). Expiry: not later than the caller's
 * (a caller that expires cannot mint a key that does not). Tenant: the caller's (acting) tenant.
 *
 * @example
 * excess(caller, { ...caller, scopes: ["payment.*"] });
 * // [{ path: "/input/scopes", code: "exceeds_caller", message: 'scope "payment.*" grants payment.initiate, … which this key cannot call' }]
 */
import type { ErrorDetail } from "@gantry/kit";
import { grantsName } from "@gantry/kit/grants.ts";
import { expandScopes } from "@gantry/proto/catalogue";
import type { RateLimitPolicy } from "./context.ts";

export interface Grant {
  tenant: string;
  scopes: string[];
  collections: string[];
  products: string[];
  admin: boolean;
  subTenants: boolean;
  /** Effective limit: the key's own, or the deployment default. */
  rateLimit: RateLimitPolicy;
  /** Epoch ms; null = never expires. */
  expiresAt: number | null;
}

/** True when holding `held` grants everything `requested` grants, now and for abilities added later. */
export function scopeCovers(held: string, requested: string): boolean {
  if (held === "*") return true;
  if (requested === "*") return false;
  if (held.endsWith(".*")) {
    const prefix = held.slice(0, -1);
    return requested.startsWith(prefix) && requested.length > prefix.length;
  }
  return held === requested;
}

export function excess(caller: Grant, requested: Grant): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const add = (field: string, message: string, extra: Record<string, unknown> = {}) =>
    out.push({ path: `/input/${field}`, message, code: "exceeds_caller", ...extra });

  if (requested.tenant !== caller.tenant)
    add(
      "tenant",
      `tenant "${requested.tenant}" is not this key's tenant ("${caller.tenant}"); only admin keys issue keys for other tenants`,
    );
  if (requested.admin && !caller.admin) add("admin", "admin: only admin keys may issue admin keys");
  if (requested.subTenants && !caller.subTenants)
    add("subTenants", "subTenants: this key may not act for sub-tenants, so it cannot grant that");

  const callerAbilities = new Set(expandScopes(caller.scopes));
  for (const scope of requested.scopes) {
    if (caller.scopes.some((held) => scopeCovers(held, scope))) continue;
    const extra = expandScopes([scope]).filter((id) => !callerAbilities.has(id));
    add(
      "scopes",
      extra.length > 0
        ? `scope "${scope}" grants ${extra.join(", ")}, which this key cannot call`
        : `scope "${scope}" is a pattern this key does not hold: it would also grant abilities added under it later; list the ability ids instead`,
      { scope, abilities: extra },
    );
  }

  const collections = requested.collections.filter((c) => !grantsName(caller.collections, c));
  if (collections.length)
    add(
      "collections",
      `collections ${collections.map((c) => `"${c}"`).join(", ")} are not among this key's collections`,
      { collections },
    );
  const products = requested.products.filter((p) => !grantsName(caller.products, p));
  if (products.length)
    add("products", `products ${products.map((p) => `"${p}"`).join(", ")} are not among this key's products`, {
      products,
    });

  const r = requested.rateLimit;
  const c = caller.rateLimit;
  // Rates compared by cross-multiplication: r.limit / r.window > c.limit / c.window.
  if (r.limit > c.limit || r.limit * c.windowSeconds > c.limit * r.windowSeconds) {
    add(
      "rateLimit",
      `rate limit ${r.limit} per ${r.windowSeconds} s exceeds this key's ${c.limit} per ${c.windowSeconds} s`,
    );
  }

  if (caller.expiresAt !== null && (requested.expiresAt === null || requested.expiresAt > caller.expiresAt)) {
    add(
      "expiresInHours",
      requested.expiresAt === null
        ? `the key would never expire, but this key expires at ${new Date(caller.expiresAt).toISOString()}`
        : `expiry ${new Date(requested.expiresAt).toISOString()} is later than this key's (${new Date(caller.expiresAt).toISOString()})`,
    );
  }
  return out;
}
