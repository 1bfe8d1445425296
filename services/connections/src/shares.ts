/**
 * @module connections/shares
 * Shares (`shr_…`, table `connection_shares`): the owner of a connection (the principal, i.e. API key
 * id, that gave consent) grants another principal of the same tenant the use of chosen tools of the
 * connection, until `expiresAt` (or until revoked). A share is never a credential: the grantee uses
 * the connection through Gantry, and every use is checked here (`authorizeUse`).
 *
 * - create (`connection.authorize` `share`): only the owner (403), a connection that is not revoked
 *   (409), another principal than the owner, an `expiresAt` in the future (400, naming the field), and
 *   tool ids that name existing tool versions of the registry (404 naming `/input/toolIds/<i>`).
 *   Trail `shared`, message `connections.connection.shared`.
 * - revoke (`connection.authorize` `revoke` with `shareId`): only the owner; revoking again returns
 *   the share unchanged. Revoking the connection revokes its shares (connections.ts).
 * - use (`authorizeUse`): the owner may use every tool; another principal needs an active share that
 *   lists the tool. No share at all, a revoked or expired share, or a share without that tool: 403,
 *   each with its own message. Status `expired` is computed from the clock (no sweep needed).
 */
import { type CallContext, GantryError } from "@gantry/kit";
import type { InputOf, OutputOf } from "@gantry/proto/catalogue";
import type { Context } from "./context.ts";
import type { Connection, ConnectionShare } from "./db.ts";
import { enqueue, recordEvent } from "./events.ts";
import { newId } from "./ids.ts";
import { connectionNotFound, invalidField } from "./records.ts";
import { resolveTool } from "./toolkits.ts";

export type ShareOut = Extract<OutputOf<"connection.authorize">, { action: "share" }>["share"];
type ShareInput = Extract<InputOf<"connection.authorize">, { action: "share" }>;

/** `active`, `expired` (by the clock) or `revoked`. */
export function shareStatus(s: ConnectionShare, nowMs: number): ShareOut["status"] {
  if (s.revokedAt) return "revoked";
  if (s.expiresAt && s.expiresAt.getTime() <= nowMs) return "expired";
  return "active";
}

export function shareOut(s: ConnectionShare, nowMs: number): ShareOut {
  return {
    id: s.id,
    connectionId: s.connectionId,
    principalId: s.principalId,
    toolIds: s.toolIds,
    status: shareStatus(s, nowMs),
    grantedBy: s.grantedBy,
    created: s.createdAt.toISOString(),
    expires: s.expiresAt ? s.expiresAt.toISOString() : null,
    revoked: s.revokedAt ? s.revokedAt.toISOString() : null,
  };
}

function notOwner(connection: Connection, what: string): GantryError {
  return new GantryError(
    "forbidden",
    `Only the connection's owner (${connection.principalId}) may ${what}; this key is not it.`,
    {
      reason: "Shares are granted and withdrawn by the principal that gave consent for the connection.",
      details: [
        {
          path: "/input/connectionId",
          message: `/input/connectionId is owned by ${connection.principalId}`,
          code: "not_owner",
        },
      ],
    },
  );
}

/** The caller's connection by id, or 404 naming `/input/connectionId`. */
async function ownConnection(ctx: Context, call: CallContext, id: string): Promise<Connection> {
  const row = await ctx.db.connection.findFirst({ where: { id, tenant: call.tenant } });
  if (!row) throw connectionNotFound(id);
  return row;
}

/** `connection.authorize` `share`. */
export async function createShare(ctx: Context, call: CallContext, input: ShareInput): Promise<ShareOut> {
  const connection = await ownConnection(ctx, call, input.connectionId);
  if (connection.principalId !== call.keyId) throw notOwner(connection, "share it");
  if (connection.status === "revoked")
    throw new GantryError(
      "conflict",
      `Connection ${connection.id} is revoked; a revoked connection cannot be shared.`,
      {
        details: [
          {
            path: "/input/connectionId",
            message: "/input/connectionId names a revoked connection",
            code: "connection_status",
          },
        ],
      },
    );
  if (input.principalId === connection.principalId)
    throw invalidField(
      "/input/principalId",
      "is the connection's owner, who may already use every tool",
      "invalid_value",
    );
  const nowMs = ctx.now();
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined) {
    expiresAt = new Date(input.expiresAt);
    if (Number.isNaN(expiresAt.getTime()))
      throw invalidField("/input/expiresAt", "is not an RFC 3339 date-time", "format");
    if (expiresAt.getTime() <= nowMs)
      throw invalidField(
        "/input/expiresAt",
        `must be in the future (now: ${new Date(nowMs).toISOString()})`,
        "invalid_value",
      );
  }
  // Every tool id names an existing version exactly (404 naming the item otherwise; never the latest instead).
  for (const [i, toolId] of input.toolIds.entries()) resolveTool(ctx.toolkits, toolId, `/input/toolIds/${i}`);
  const now = new Date(nowMs);
  const toolIds = [...new Set(input.toolIds)];
  const share = await ctx.db.$transaction(async (tx) => {
    const created = await tx.connectionShare.create({
      data: {
        id: newId("share", nowMs),
        tenant: call.tenant,
        connectionId: connection.id,
        principalId: input.principalId,
        toolIds,
        grantedBy: call.keyId,
        requestId: call.requestId,
        expiresAt,
        createdAt: now,
      },
    });
    await recordEvent(tx, {
      connection,
      type: "shared",
      at: now,
      principalId: call.keyId,
      requestId: call.requestId,
      detail: {
        shareId: created.id,
        grantee: created.principalId,
        toolIds,
        expiresAt: expiresAt?.toISOString() ?? null,
      },
    });
    await enqueue(tx, "shared", connection, {
      requestId: call.requestId,
      at: now,
      msgId: `${created.id}.shared`,
      detail: {
        shareId: created.id,
        grantee: created.principalId,
        toolIds,
        expiresAt: expiresAt?.toISOString() ?? null,
      },
    });
    return created;
  });
  await ctx.outbox.flush();
  return shareOut(share, nowMs);
}

/** `connection.authorize` `revoke` with `shareId`: ends one share (again: unchanged). */
export async function revokeShare(
  ctx: Context,
  call: CallContext,
  connectionId: string,
  shareId: string,
): Promise<{ connection: Connection; share: ShareOut }> {
  const connection = await ownConnection(ctx, call, connectionId);
  const share = await ctx.db.connectionShare.findFirst({ where: { id: shareId, connectionId, tenant: call.tenant } });
  if (!share)
    throw new GantryError("not_found", `No share ${shareId} of connection ${connectionId} in this tenant.`, {
      details: [
        {
          path: "/input/shareId",
          message: "/input/shareId does not name a share of this connection",
          code: "record_not_found",
        },
      ],
    });
  if (connection.principalId !== call.keyId) throw notOwner(connection, "revoke its shares");
  const nowMs = ctx.now();
  if (share.revokedAt) return { connection, share: shareOut(share, nowMs) };
  const now = new Date(nowMs);
  const revoked = await ctx.db.$transaction(async (tx) => {
    const claimed = await tx.connectionShare.updateMany({
      where: { id: share.id, tenant: call.tenant, revokedAt: null },
      data: { revokedAt: now },
    });
    if (claimed.count === 1) {
      const detail = { shareId: share.id, grantee: share.principalId };
      await recordEvent(tx, {
        connection,
        type: "share_revoked",
        at: now,
        principalId: call.keyId,
        requestId: call.requestId,
        detail,
      });
      await enqueue(tx, "share_revoked", connection, {
        requestId: call.requestId,
        at: now,
        msgId: `${share.id}.share_revoked`,
        detail,
      });
    }
    return {
      row: await tx.connectionShare.findFirstOrThrow({ where: { id: share.id, tenant: call.tenant } }),
      claimed,
    };
  });
  if (revoked.claimed.count === 1) await ctx.outbox.flush();
  return { connection, share: shareOut(revoked.row, nowMs) };
}

export interface UseGrant {
  access: "owner" | "shared";
  connection: Connection;
  /** The share that grants the use (for `shared`). */
  share: ConnectionShare | null;
}

/**
 * May `principalId` run `toolId` through the connection now? Answers how (owner or the granting
 * share), or throws: 404 for a connection not in the tenant, 403 otherwise (naming why: no share,
 * revoked, expired, tool not shared). What every execution through a connection calls first.
 */
export async function authorizeUse(
  ctx: Context,
  use: { tenant: string; principalId: string; connectionId: string; toolId: string },
): Promise<UseGrant> {
  const connection = await ctx.db.connection.findFirst({ where: { id: use.connectionId, tenant: use.tenant } });
  if (!connection) throw connectionNotFound(use.connectionId);
  if (connection.principalId === use.principalId) return { access: "owner", connection, share: null };
  const shares = await ctx.db.connectionShare.findMany({
    where: { tenant: use.tenant, connectionId: connection.id, principalId: use.principalId },
    orderBy: { createdAt: "desc" },
  });
  const nowMs = ctx.now();
  const active = shares.filter((s) => shareStatus(s, nowMs) === "active");
  const granting = active.find((s) => s.toolIds.includes(use.toolId));
  if (granting) return { access: "shared", connection, share: granting };
  const refuse = (message: string, path = "/input/connectionId") =>
    new GantryError("forbidden", message, { details: [{ path, message, code: "not_shared" }] });
  if (active.length > 0)
    throw refuse(`The share of ${connection.id} with this principal does not include ${use.toolId}.`, "/input/toolId");
  const latest = shares[0];
  if (!latest) throw refuse(`Connection ${connection.id} is not shared with this principal.`);
  if (latest.revokedAt)
    throw refuse(`The share of ${connection.id} with this principal was revoked at ${latest.revokedAt.toISOString()}.`);
  throw refuse(
    `The share of ${connection.id} with this principal expired at ${latest.expiresAt?.toISOString() ?? "(unknown)"}.`,
  );
}

/** The shares granted to a principal in the tenant (every status), newest first. */
export function sharesWith(ctx: Context, tenant: string, principalId: string): Promise<ConnectionShare[]> {
  return ctx.db.connectionShare.findMany({ where: { tenant, principalId }, orderBy: { createdAt: "desc" } });
}
