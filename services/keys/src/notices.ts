/**
 * @module keys/notices
 * Key lifecycle notices on NATS (stream `KEYS`, subjects `keys.key.{issued,rotated,revoked,expired}`,
 * payload `{keyId}`). Every gateway subscribes and drops the key from its cache at once, so a
 * revocation or rotation is seen everywhere in milliseconds instead of after the 30 s cache TTL.
 * A notice is written to the kit's outbox in the transaction of the change (kit/src/outbox.ts), so
 * a crash or a NATS outage after the commit delays it but never loses it; the relay publishes it
 * with a `msgID` (`<subject>:<keyId>:<eventId>`: a re-publish is deduplicated). `flush` publishes at
 * once after the commit and says whether these notices have gone out (`notified` in key.revoke);
 * when not, the relay keeps trying and the gateways' cache TTL bounds the wait meanwhile.
 */
import {
  asSystem,
  enqueueEvents,
  ensureStream,
  type Logger,
  type Nats,
  type OutboxRelay,
  STREAMS,
  type SUBJECTS,
  startOutboxRelay,
} from "@gantry/kit";
import type pg from "pg";

export type NoticeSubject = (typeof SUBJECTS)["keyIssued" | "keyRotated" | "keyRevoked" | "keyExpired"];

/** Prisma's interactive-transaction client or a pg client: whatever made the change. */
type Tx = Parameters<typeof enqueueEvents>[0];

export interface Notices {
  /** Queues the notice of a change inside its transaction; returns its message id. */
  enqueue(tx: Tx, subject: NoticeSubject, key: { id: string; tenant: string }, eventId: string): Promise<string>;
  /** Publishes what is queued; true when every one of `msgIds` has gone out. */
  flush(msgIds: readonly string[]): Promise<boolean>;
  stop(): Promise<void>;
}

/** The message id of a notice: the same change always gives the same id. */
export const noticeId = (subject: NoticeSubject, keyId: string, eventId: string) => `${subject}:${keyId}:${eventId}`;

export async function declareKeysStream(nats: Nats): Promise<void> {
  await ensureStream(nats.jsm, {
    ...STREAMS.KEYS,
    subjects: [...STREAMS.KEYS.subjects],
    max_age: 30 * 24 * 3600 * 1e9,
  });
}

export function outboxNotices(pool: pg.Pool, schema: string, nats: Nats, log: Logger): Notices {
  const relay: OutboxRelay = startOutboxRelay({ pool, schema, nats, log });
  return {
    async enqueue(tx, subject, key, eventId) {
      const msgId = noticeId(subject, key.id, eventId);
      await enqueueEvents(tx, schema, [{ tenant: key.tenant, subject, msgId, payload: { keyId: key.id } }]);
      return msgId;
    },
    async flush(msgIds) {
      await relay.flush();
      if (msgIds.length === 0) return true;
      // System scope: an admin's call may have queued another tenant's notice.
      const { rows } = await asSystem(() =>
        pool.query(`SELECT 1 FROM "${schema}"."outbox" WHERE msg_id = ANY($1::text[]) LIMIT 1`, [msgIds]),
      );
      if (rows.length > 0) log.warn({ msgIds }, "key notice not published yet; the outbox keeps trying");
      return rows.length === 0;
    },
    stop: () => relay.stop(),
  };
}
