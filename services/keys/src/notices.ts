/**
 * @module keys/notices
 * Key lifecycle notices on NATS (stream `KEYS`, subjects `keys.key.{issued,rotated,revoked,expired}`,
 * payload `{keyId}`). Every gateway subscribes and drops the key from its cache at once, so a
 * revocation or rotation is seen everywhere in milliseconds instead of after the 30 s cache TTL.
 * Published through JetStream with a `msgID` (retries deduplicate) after the change is committed; a
 * failed publish is logged and reported to the caller (`notified: false`), the cache TTL then being
 * the fallback.
 */
import { STREAMS, type SUBJECTS, encodeJson, ensureStream, type Logger, type Nats } from "@gantry/kit";

export type NoticeSubject = (typeof SUBJECTS)["keyIssued" | "keyRotated" | "keyRevoked" | "keyExpired"];

export interface Notices {
  publish(subject: NoticeSubject, keyId: string, eventId: string): Promise<boolean>;
}

export async function declareKeysStream(nats: Nats): Promise<void> {
  await ensureStream(nats.jsm, {
    ...STREAMS.KEYS,
    subjects: [...STREAMS.KEYS.subjects],
    max_age: 30 * 24 * 3600 * 1e9,
  });
}

export function natsNotices(nats: Nats, log: Logger): Notices {
  return {
    async publish(subject, keyId, eventId) {
      try {
        await nats.js.publish(subject, encodeJson({ keyId }), {
          msgID: `${subject}:${keyId}:${eventId}`,
          timeout: 2_000,
        });
        return true;
      } catch (err) {
        log.warn(
          { subject, keyId, err: String(err) },
          "key notice not published; gateways fall back to their cache TTL",
        );
        return false;
      }
    },
  };
}
