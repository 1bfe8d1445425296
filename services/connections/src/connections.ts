/**
 * @module connections/connections
 * Finding a tenant's connection and revoking one: what connection.get, connection.revoke,
 * connection.authorize (revoke) and the CredentialResolver share.
 *
 * A tenant has at most one live (not revoked) connection per service of kind `service` (a partial
 * unique index); when it has none, the latest revoked one still answers "what happened" for reads.
 */
import type { CallContext } from "@gantry/kit";
import type { Context } from "./context.ts";
import { NO_TOKENS, openTokens } from "./credentials.ts";
import { SCHEMA, type Connection } from "./db.ts";
import { enqueue, recordEvent } from "./events.ts";
import { closeSessions } from "./sessions.ts";

/** The tenant's live connection for a service (kind `service`), or null. */
export function liveConnection(ctx: Context, tenant: string, service: string): Promise<Connection | null> {
  return ctx.db.connection.findFirst({
    where: { tenant, service, kind: "service", status: { not: "revoked" } },
  });
}

/** The live connection for the service, else the most recently revoked one, else null. */
export async function connectionForService(ctx: Context, tenant: string, service: string): Promise<Connection | null> {
  return (
    (await liveConnection(ctx, tenant, service)) ??
    (await ctx.db.connection.findFirst({
      where: { tenant, service, kind: "service" },
      orderBy: [{ revokedAt: { sort: "desc", nulls: "last" } }, { createdAt: "desc" }],
    }))
  );
}

/** A connection of the caller's tenant by id, or null (another tenant's looks like none). */
/** lastUsed is kept to the minute: one write per connection per minute, not one per use. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** Records that a connection's credential was used now (resolved for a service, or a tool ran). */
export async function markUsed(ctx: Context, connection: Pick<Connection, "id" | "tenant">): Promise<void> {
  const now = ctx.now();
  await ctx.db.connection.updateMany({
    where: {
      id: connection.id,
      tenant: connection.tenant,
      OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_GRANULARITY_MS) } }],
    },
    data: { lastUsedAt: new Date(now) },
  });
}

export function connectionById(ctx: Context, tenant: string, id: string): Promise<Connection | null> {
  return ctx.db.connection.findFirst({ where: { id, tenant } });
}

export type ProviderRevocation = {
  /** null: nothing to revoke there (no tokens, no OAuth provider, or an API key). */
  providerRevoked: boolean | null;
  providerError?: string;
};

/**
 * Revokes the connection's OAuth tokens at its provider (RFC 7009; the refresh token first, which
 * ends the grant at most providers, then the access token) where it has a revocation endpoint. A
 * failure is answered (and logged), never thrown: the caller drops the tokens here either way.
 */
export async function revokeAtProvider(ctx: Context, row: Connection): Promise<ProviderRevocation> {
  const provider = row.authScheme === "oauth2" ? ctx.providers.get(row.service) : undefined;
  const tokens = openTokens(ctx, row);
  if (!tokens || !provider) return { providerRevoked: null };
  try {
    const refreshRevoked = tokens.refresh ? await provider.revoke(tokens.refresh, "refresh_token") : true;
    const accessRevoked = await provider.revoke(tokens.access, "access_token");
    return { providerRevoked: refreshRevoked && accessRevoked };
  } catch (err) {
    const providerError = err instanceof Error ? err.message : String(err);
    ctx.log.warn(
      { connectionId: row.id, tenant: row.tenant, err: providerError },
      "revocation at the provider failed; the tokens are deleted here anyway",
    );
    return { providerRevoked: false, providerError };
  }
}

/**
 * Revokes a connection: its tokens are revoked at the provider (refresh token first, which ends the
 * grant at most providers, then the access token) where the provider supports revocation, then
 * deleted here; the status becomes `revoked` and open consent sessions are closed. All of it holds
 * the connection's row lock, so a refresh running elsewhere finishes first and its new tokens are
 * the ones revoked. A provider that fails to revoke does not keep the connection alive (the caller
 * asked to disconnect, and the tokens are deleted either way): the failure is in the event trail and
 * the log. Its shares are revoked with it. Revoking a revoked connection returns it unchanged.
 */
export async function revokeConnection(ctx: Context, call: CallContext, row: Connection): Promise<Connection> {
  if (row.status === "revoked") return row;
  const timeout = ctx.config.CONNECTIONS_PROVIDER_TIMEOUT_MS * 4 + 5_000;
  const outcome = await ctx.db.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(`SELECT 1 FROM "${SCHEMA}"."connections" WHERE id = $1 FOR UPDATE`, row.id);
      const locked = await tx.connection.findFirst({ where: { id: row.id, tenant: call.tenant } });
      if (!locked || locked.status === "revoked") return { row: locked ?? row, detail: null };
      const detail = await revokeAtProvider(ctx, locked);
      const now = new Date(ctx.now());
      const revoked = await tx.connection.update({
        where: { id: locked.id },
        data: {
          ...NO_TOKENS,
          status: "revoked",
          statusReason: null,
          revokedAt: now,
          credentialExpiresAt: null,
          credentialIssuedAt: null,
          updatedAt: now,
          version: { increment: 1 },
        },
      });
      await closeSessions(tx, locked, now);
      // Its shares end with it.
      await tx.connectionShare.updateMany({
        where: { connectionId: locked.id, tenant: call.tenant, revokedAt: null },
        data: { revokedAt: now },
      });
      await recordEvent(tx, {
        connection: locked,
        type: "revoked",
        at: now,
        principalId: call.keyId,
        requestId: call.requestId,
        detail,
      });
      await enqueue(tx, "revoked", revoked, { requestId: call.requestId, detail, at: now });
      return { row: revoked, detail, at: now };
    },
    { timeout, maxWait: 10_000 },
  );
  await ctx.outbox.flush();
  return outcome.row;
}
