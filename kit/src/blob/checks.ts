/**
 * @module kit/blob/checks
 * What both blob drivers check before touching anything: the key's shape, and that the current
 * scope covers the tenant.
 */
import { GantryError } from "../errors.ts";
import { currentScope } from "../tenancy.ts";

/** Keys are paths of our own making (`artifacts/art_….pdf`, `help/<product>/…`), checked anyway. */
const KEY = /^[A-Za-z0-9_][A-Za-z0-9._~@%+=,-]*(\/[A-Za-z0-9_.~@%+=,-]+)*$/;

/** Whether `key` is one the store takes (a path from a URL must be checked before it becomes a key). */
export function isBlobKey(key: string): boolean {
  return key.length <= 512 && KEY.test(key) && !key.split("/").some((p) => p === "." || p === "..");
}

export function checkKey(key: string): void {
  if (!isBlobKey(key)) throw new GantryError("internal", `invalid blob key ${JSON.stringify(key)}`);
}

/** A prefix is a key, or a key followed by `/`, or empty (everything). */
export function checkPrefix(prefix: string): void {
  if (prefix !== "") checkKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
}

/**
 * Refuses a tenant the current scope does not cover: the rule row-level security applies to the
 * Postgres table (a tenant reaches its own blobs and its nested sub-tenants'; system scope reaches
 * all; no scope reaches none), kept for the S3 driver, which has no such policy of its own.
 */
export function checkScope(tenant: string): void {
  if (!tenant) throw new GantryError("internal", "blob store: empty tenant");
  const scope = currentScope();
  if (scope?.kind === "system") return;
  if (scope?.kind === "tenant" && (tenant === scope.tenant || tenant.startsWith(`${scope.tenant}/`))) return;
  throw new GantryError(
    "internal",
    scope
      ? "blob store: a call may reach only its own tenant's blobs"
      : "blob store used outside a tenant or system scope",
  );
}

/** Sweeps and other cross-tenant work run in system scope only. */
export function checkSystem(what: string): void {
  if (currentScope()?.kind !== "system") throw new GantryError("internal", `blob store: ${what} runs in system scope`);
}
