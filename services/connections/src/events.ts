/**
 * @module connections/events
 * The trail of a connection, kept twice: a `connection_events` row written in the same transaction
 * as the change it records (the audit of every consent step, refresh and revocation), and a NATS
 * message on `connections.connection.<what>` (stream CONNECTIONS) for other services, written to the
 * kit's outbox in that same transaction and published by its relay once committed (kit/src/outbox.ts):
 * a crash or a NATS outage after the commit delays the message, never loses it. Messages carry ids,
 * statuses and reasons, never a credential; each has a `msgID` (connection id, event and row
 * version), so a re-publish is deduplicated by JetStream.
 */
import { enqueueEvents, SUBJECTS } from "@gantry/kit";
import { type Connection, type Prisma, SCHEMA } from "./db.ts";

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

/** The transaction client's view the trail and the outbox need. */
type Tx = Pick<Prisma.TransactionClient, "connectionEvent" | "$executeRawUnsafe">;

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

/**
 * Queues the message of a change in the outbox, inside the transaction that made it: `row` is the
 * connection as that transaction leaves it. Callers flush the outbox after the commit.
 */
export async function enqueue(
  tx: Tx,
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
  await enqueueEvents(tx, SCHEMA, [
    {
      tenant: row.tenant,
      subject: PUBLISHED[event],
      msgId: extra.msgId ?? `${row.id}.${event}.${row.version}`,
      payload: message,
    },
  ]);
}
