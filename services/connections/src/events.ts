/**
 * @module connections/events
 * The trail of a connection, kept twice: a `connection_events` row written in the same transaction
 * as the change it records (the audit of every consent step, refresh and revocation), and, after the
 * commit, a NATS message on `connections.connection.<what>` (stream CONNECTIONS) for other services.
 * Messages carry ids, statuses and reasons, never a credential; each has a `msgID` (connection id,
 * event and row version), so a retried publish is deduplicated by JetStream.
 */
import { encodeJson, SUBJECTS } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { Connection, Prisma } from "./db.ts";

export type TrailEvent =
  | "consent_started"
  | "consent_failed"
  | "connected"
  | "refreshed"
  | "needs_reauth"
  | "revoked"
  | "shared"
  | "share_revoked";

/** The events other services hear about, and their subjects. */
const PUBLISHED = {
  connected: SUBJECTS.connectionConnected,
  refreshed: SUBJECTS.connectionRefreshed,
  needs_reauth: SUBJECTS.connectionNeedsReauth,
  revoked: SUBJECTS.connectionRevoked,
  shared: SUBJECTS.connectionShared,
  share_revoked: SUBJECTS.connectionShareRevoked,
} as const satisfies Partial<Record<TrailEvent, string>>;

export type PublishedEvent = keyof typeof PUBLISHED;

/** The body of a `connections.connection.*` message. */
export interface ConnectionMessage {
  event: PublishedEvent;
  tenant: string;
  connectionId: string;
  kind: string;
  service: string;
  status: string;
  principalId: string;
  version: number;
  requestId: string | null;
  detail: Record<string, unknown>;
  at: string;
}

/** The transaction client's view the trail needs. */
type Tx = Pick<Prisma.TransactionClient, "connectionEvent">;

/** Appends one event to the connection's trail (inside the transaction that made the change). */
export async function recordEvent(
  tx: Tx,
  e: {
    connection: Pick<Connection, "id" | "tenant">;
    type: TrailEvent;
    at: Date;
    principalId?: string | null;
    requestId?: string | null;
    detail?: Record<string, unknown>;
  },
): Promise<void> {
  await tx.connectionEvent.create({
    data: {
      tenant: e.connection.tenant,
      connectionId: e.connection.id,
      type: e.type,
      principalId: e.principalId ?? null,
      requestId: e.requestId ?? null,
      detail: (e.detail ?? {}) as Prisma.InputJsonValue,
      at: e.at,
    },
  });
}

/** Publishes a committed change. A failed publish is logged, never undoes the change (the trail has it). */
export async function publish(
  ctx: Pick<Context, "nats" | "log">,
  event: PublishedEvent,
  row: Connection,
  extra: { requestId?: string | null; detail?: Record<string, unknown>; at: Date; msgId?: string },
): Promise<void> {
  const message: ConnectionMessage = {
    event,
    tenant: row.tenant,
    connectionId: row.id,
    kind: row.kind,
    service: row.service,
    status: row.status,
    principalId: row.principalId,
    version: row.version,
    requestId: extra.requestId ?? null,
    detail: extra.detail ?? {},
    at: extra.at.toISOString(),
  };
  try {
    await ctx.nats.js.publish(PUBLISHED[event], encodeJson(message), {
      msgID: extra.msgId ?? `${row.id}.${event}.${row.version}`,
    });
  } catch (err) {
    ctx.log.warn({ connectionId: row.id, event, err: String(err) }, "publishing a connection event failed");
  }
}
