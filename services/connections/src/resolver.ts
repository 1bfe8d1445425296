/**
 * @module connections/resolver
 * The CredentialResolver gRPC service (proto/gantry/connections/v1/connections.proto): which
 * credential a service should use for a tenant now. The tenant's connection when it is connected
 * (refreshed first when its token is due: this is the "on use" refresh), else the platform account
 * configured for the service (CONNECTIONS_PLATFORM_ACCOUNTS), and the answer says which
 * (`credential_source`). A connection that is pending, needs consent again or was revoked is not
 * used, and `connection_status` says why the platform account answered. A connection whose provider
 * is unreachable while its token has expired is an error, never a silent switch to the platform.
 *
 * Each call runs in the tenant's scope (`withTenant`), so row-level security holds it to that
 * tenant's rows; the tenant must match exactly (a sub-tenant does not use its parent's connection).
 */
import {
  GantryError,
  type grpc,
  lookupService,
  type ResolveCredentialRequest,
  type ResolvedCredential,
  toGrpcError,
  translateDbError,
  withTenant,
} from "@gantry/kit";
import { SERVICE_KEY_PATTERN, TENANT_PATTERN } from "@gantry/proto/catalogue/schema.ts";
import { CONNECTIONS_PROTO } from "@gantry/proto/paths";
import { connectionForService, markUsed } from "./connections.ts";
import type { Context } from "./context.ts";
import { openTokens } from "./credentials.ts";
import { freshForUse } from "./refresh.ts";

const TENANT_RE = new RegExp(TENANT_PATTERN);
const SERVICE_RE = new RegExp(SERVICE_KEY_PATTERN);

export async function resolveCredential(
  ctx: Context,
  tenant: string,
  service: string,
  requestId?: string,
): Promise<ResolvedCredential> {
  let row = await connectionForService(ctx, tenant, service);
  if (row?.status === "connected") {
    row = await freshForUse(ctx, row, requestId);
    const tokens = row.status === "connected" ? openTokens(ctx, row) : null;
    if (tokens) {
      await markUsed(ctx, row);
      return {
        credential_source: "tenant",
        service,
        connection_id: row.id,
        auth_scheme: "oauth2",
        access_token: tokens.access,
        token_type: row.tokenType ?? "bearer",
        expires_at_ms: row.credentialExpiresAt?.getTime() ?? 0,
        scopes: row.scopes,
        external_ref: row.externalRef ?? "",
        credentials: {},
        connection_status: row.status,
      };
    }
  }
  const platform = ctx.platform.get(service);
  if (platform) {
    return {
      credential_source: "platform",
      service,
      connection_id: "",
      auth_scheme: "platform",
      access_token: "",
      token_type: "",
      expires_at_ms: 0,
      scopes: [],
      external_ref: "",
      credentials: { ...platform },
      connection_status: row?.status ?? "",
    };
  }
  throw new GantryError(
    "not_found",
    row
      ? `Tenant ${tenant}'s connection for ${service} is ${row.status} and no platform account is configured for ${service}.`
      : `Tenant ${tenant} has no connection for ${service} and no platform account is configured for ${service}.`,
  );
}

export function resolverService(ctx: Context) {
  const Service = lookupService(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver");
  const impl: grpc.UntypedServiceImplementation = {
    ResolveCredential: (
      call: grpc.ServerUnaryCall<ResolveCredentialRequest, ResolvedCredential>,
      callback: grpc.sendUnaryData<ResolvedCredential>,
    ) => {
      const { tenant, service, request_id: requestId } = call.request;
      const run = async () => {
        if (!tenant || tenant.length > 128 || !TENANT_RE.test(tenant))
          throw new GantryError("invalid_request", "tenant must be a tenant id (e.g. acme, acme/shop1)");
        if (!service || service.length > 64 || !SERVICE_RE.test(service))
          throw new GantryError("invalid_request", `service must be a service key (${SERVICE_KEY_PATTERN})`);
        return withTenant(tenant, () => resolveCredential(ctx, tenant, service, requestId || undefined));
      };
      run().then(
        (resolved) => callback(null, resolved),
        (thrown) => {
          const err = translateDbError(thrown) ?? thrown;
          const gerr = err instanceof GantryError ? err : null;
          if (!gerr || gerr.httpStatus >= 500)
            ctx.log.error(
              { tenant, serviceKey: service, requestId, err: String(gerr?.cause ?? err) },
              "ResolveCredential failed",
            );
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
  };
  return { service: Service.service, impl };
}
