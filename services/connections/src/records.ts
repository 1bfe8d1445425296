/**
 * @module connections/records
 * The wire shape of a connection (rows → JSON-ready objects, exactly the catalogue's `connection`
 * result), the credential source a service uses now, and the refusals the handlers share, worded once.
 * Credentials are never part of any output: the mapping below names every field it emits.
 */
import { type DetailCode, GantryError } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import type { Context } from "./context.ts";
import type { Connection } from "./db.ts";

export type ConnectionOut = OutputOf<"connection.list">["items"][number];
export type CredentialSource = OutputOf<"connection.get">["credentialSource"];
export type ConnectionStatus = ConnectionOut["status"];

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function connectionOut(c: Connection): ConnectionOut {
  return {
    id: c.id,
    tenant: c.tenant,
    kind: c.kind as ConnectionOut["kind"],
    service: c.service,
    label: c.label,
    status: c.status as ConnectionStatus,
    authScheme: c.authScheme as ConnectionOut["authScheme"],
    externalRef: c.externalRef,
    scopes: c.scopes,
    principalId: c.principalId,
    created: c.createdAt.toISOString(),
    updated: c.updatedAt.toISOString(),
    connected: iso(c.connectedAt),
    revoked: iso(c.revokedAt),
    credentialExpires: iso(c.credentialExpiresAt),
    lastRefreshed: iso(c.lastRefreshedAt),
    lastUsed: iso(c.lastUsedAt),
  };
}

/**
 * Whose account a service uses now: the tenant's connection when it is connected, else the platform
 * account when one is configured, else none (abilities needing the service then fail).
 */
export function credentialSource(ctx: Context, service: string, connection: Connection | null): CredentialSource {
  if (connection?.status === "connected") return "tenant";
  return ctx.platform.has(service) ? "platform" : "none";
}

/** 404 for a connection that does not exist *in the caller's tenant* (another tenant's looks the same). */
export function connectionNotFound(id: string, path = "/input/connectionId"): GantryError {
  return new GantryError("not_found", `No connection with id ${id} in this tenant.`, {
    details: [{ path, message: `${path} does not name a connection of this tenant`, code: "record_not_found" }],
  });
}

/** 400 naming one input field, with its detail code (kit/src/errors.ts DETAIL_CODES). */
export function invalidField(
  path: string,
  message: string,
  code: DetailCode,
  extra: Record<string, unknown> = {},
): GantryError {
  return new GantryError("validation_failed", `${path} ${message}`, {
    details: [{ path, message: `${path} ${message}`, code, ...extra }],
  });
}

/** 400 for a service key no provider or platform account is configured for. */
export function unknownService(ctx: Context, service: string, path = "/input/service", oauthOnly = false): GantryError {
  const known = [...new Set([...ctx.providers.keys(), ...(oauthOnly ? [] : ctx.platform.keys())])].sort();
  const message = known.length
    ? `is "${service}", which is not a configured service; configured: ${known.join(", ")}`
    : `is "${service}", but no ${oauthOnly ? "OAuth provider" : "service"} is configured (CONNECTIONS_PROVIDERS)`;
  return invalidField(path, message, "enum", { params: { allowedValues: known } });
}
