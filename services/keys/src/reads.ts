/**
 * @module keys/reads
 * The hot reads as prepared statements (kit/src/data/prepared.ts), columns aliased to the Prisma
 * model so rows feed the same mappers (records.ts). Everything else goes through Prisma.
 */
import { oneOf, preparedQuery } from "@gantry/kit";
import { KEY_EVENT_KINDS } from "@gantry/proto/catalogue/keys.ts";
import type { KeyEventView, KeyViewRow } from "./records.ts";

/**
 * One event of the trail as the statement returns it, `[kind, at (epoch ms), reason, actorKeyId,
 * requestId]`: a JSON array, so the whole trail comes back in one column of one row.
 */
type EventTuple = [string, number, string | null, string | null, string | null];

export interface InspectRow extends KeyViewRow {
  rotatedFrom: string | null;
  /** Oldest first, the latest 50; null when the key has none. */
  events: EventTuple[] | null;
}

/**
 * key.inspect: the calling key with its predecessor and its trail in one round trip (three Prisma
 * queries before). A NULL list reads as empty, as Prisma reads it (the bootstrap key stores NULL
 * collections and products). Row-level security holds every `api_keys` reference, the subqueries'
 * included, to the scope of the call; `key_events` has no tenant and is reached only through the
 * visible key.
 */
export const keyForInspect = preparedQuery<InspectRow, [id: string]>(
  "keys.key_for_inspect",
  `SELECT k.id, k.tenant, k.name, k.prefix, k.status,
          coalesce(k.scopes, '{}') AS scopes, coalesce(k.collections, '{}') AS collections,
          coalesce(k.products, '{}') AS products, k.admin,
          k.sub_tenants AS "subTenants", k.rate_limit AS "rateLimit", k.rate_window_seconds AS "rateWindowSeconds",
          k.expires_at AS "expiresAt", k.created_at AS "createdAt", k.last_used_at AS "lastUsedAt",
          k.revoked_at AS "revokedAt", k.rotated_to AS "rotatedTo",
          (SELECT p.id FROM keys.api_keys p WHERE p.rotated_to = k.id) AS "rotatedFrom",
          (SELECT json_agg(json_build_array(e.kind, (extract(epoch FROM e.at) * 1000)::float8, e.reason,
                                            e.actor_key_id, e.request_id) ORDER BY e.at, e.id)
             FROM (SELECT * FROM keys.key_events WHERE key_id = k.id ORDER BY at DESC, id DESC LIMIT 50) e) AS events
     FROM keys.api_keys k WHERE k.id = $1`,
);

export function eventTupleView([kind, at, reason, actorKeyId, requestId]: EventTuple): KeyEventView {
  return {
    kind: oneOf(KEY_EVENT_KINDS, kind, "key event kind"),
    at: new Date(at).toISOString(),
    reason,
    actorKeyId,
    requestId,
  };
}
