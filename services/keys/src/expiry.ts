/**
 * @module keys/expiry
 * Expiry is a time (`expires_at`), not a status change: a key stops authenticating the moment its
 * expiry passes, whoever notices. The `expired` entry of the event trail is recorded
 *
 * - lazily, when ResolveKey meets an expired key and when key.inspect / key.list / key.revoke read
 *   keys whose expiry has passed, so the trail is right whenever anyone looks; and
 * - by a periodic sweep (`KEY_EXPIRY_SWEEP_SECONDS`, default 60) that also publishes
 *   `keys.key.expired` for other consumers.
 *
 * The event's time is the expiry itself, not when it was noticed. A partial unique index
 * (`key_events_expired_once`) makes every recorder idempotent, across replicas too.
 *
 * `recordExpired` sees the keys the current scope sees: a call's tenant, or every tenant in system
 * scope (the resolver and the sweep, which runs in `asSystem` wherever it is started from).
 */
import { SUBJECTS, asSystem } from "@gantry/kit";
import { SCHEMA, type Context } from "./context.ts";

/** Records `expired` for the given keys (all keys when `ids` is omitted) whose expiry has passed. Returns the newly recorded ids. */
export async function recordExpired(ctx: Context, ids?: string[]): Promise<string[]> {
  if (ids && ids.length === 0) return [];
  const params: unknown[] = [new Date(ctx.now())];
  let filter = "";
  if (ids) {
    params.push(ids);
    filter = `AND k.id = ANY($2::text[])`;
  }
  // The trail rows and their notices in one statement: the outbox gets a notice for each row recorded.
  const { rows } = await ctx.pool.query<{ key_id: string }>(
    `WITH recorded AS (
       INSERT INTO "${SCHEMA}"."key_events" ("key_id", "kind", "reason", "at")
       SELECT k.id, 'expired',
              CASE WHEN k.rotated_to IS NOT NULL THEN 'rotation overlap ended; successor ' || k.rotated_to ELSE 'expiry reached' END,
              k.expires_at
         FROM "${SCHEMA}"."api_keys" k
        WHERE k.status = 'active' AND k.expires_at IS NOT NULL AND k.expires_at <= $1 ${filter}
       ON CONFLICT ("key_id") WHERE "kind" = 'expired' DO NOTHING
       RETURNING "key_id", "id"
     ), queued AS (
       INSERT INTO "${SCHEMA}"."outbox" ("tenant", "subject", "msg_id", "payload")
       SELECT k.tenant, '${SUBJECTS.keyExpired}', '${SUBJECTS.keyExpired}:' || r.key_id || ':' || r.id::text,
              jsonb_build_object('keyId', r.key_id)
         FROM recorded r JOIN "${SCHEMA}"."api_keys" k ON k.id = r.key_id
     )
     SELECT key_id FROM recorded`,
    params,
  );
  if (rows.length > 0) await ctx.notices.flush([]);
  return rows.map((r) => r.key_id);
}

export function startExpirySweep(ctx: Context, everyMs: number): { stop: () => void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    asSystem(() => recordExpired(ctx))
      .then((ids) => ids.length && ctx.log.info({ expired: ids.length }, "expired keys recorded"))
      .catch((err) => ctx.log.warn({ err: String(err) }, "expiry sweep failed; the next one retries"))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
