/**
 * @module gateway/pipeline/authenticate
 * Bearer key → resolved key record. A `gk_` key that is not well formed (length, checksum) is
 * refused without any lookup; a well-formed one is resolved by its SHA-256 through the key cache
 * (a key the cache holds as valid is answered from it before any other check).
 * Any other bearer of 16–512 printable characters can only be a legacy credential
 * (GANTRY_LEGACY_KEYS, held by the keys service): it is resolved with `legacyOnly`, which the keys
 * service answers from memory without a database lookup; shorter or odd bearers are refused at once.
 * It takes the header value, not the HTTP request, so the ability pipeline, the MCP route and the
 * read routes share it whatever carries the call.
 */
import type { AuthFailures } from "./auth-failures.ts";
import {
  GantryError,
  KEY_PREFIX,
  LEGACY_SECRET_MAX_LENGTH,
  hashKey,
  isLegacySecretShape,
  isWellFormedKey,
} from "@gantry/kit";
import type { KeyCache, KeyRecord } from "../key-cache.ts";
import type { ResponseHeaders } from "./outcome.ts";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Resolves the `Authorization` header's key; a rotated key's deprecation headers go into `headers`. */
export async function authenticate(
  header: string | undefined,
  keys: KeyCache,
  now: number,
  headers: ResponseHeaders,
  client?: { address: string; failures: AuthFailures },
): Promise<KeyRecord> {
  if (!client) return resolveKey(header, keys, now, headers);
  // A key this gateway already knows is answered whatever its address's record: behind one proxy
  // address, someone else's made-up keys must not lock real users out.
  const beforeLookup = (hash: string) => {
    if (!keys.knows(hash)) client.failures.refuseIfBlocked(client.address);
  };
  try {
    return await resolveKey(header, keys, now, headers, beforeLookup);
  } catch (err) {
    if (err instanceof GantryError && err.code === "unauthorized") await client.failures.failed(client.address);
    throw err;
  }
}

async function resolveKey(
  header: string | undefined,
  keys: KeyCache,
  now: number,
  headers: ResponseHeaders,
  beforeLookup?: (hash: string) => void,
): Promise<KeyRecord> {
  if (!header) {
    throw new GantryError("unauthorized", "Missing credential: send Authorization: Bearer <API key>.");
  }
  const match = BEARER.exec(header);
  if (!match) throw new GantryError("unauthorized", "Malformed Authorization header: expected Bearer <API key>.");
  const raw = match[1];
  // The common case, a key this gateway already holds, needs one hash and one cache read: its hash
  // matched a key the keys service resolved, so the format check could only agree, and a held key
  // is never refused for its client address. No credential is longer than a legacy one, so a
  // longer bearer is refused below without being hashed.
  const hash = raw.length <= LEGACY_SECRET_MAX_LENGTH ? hashKey(raw) : undefined;
  const held = hash === undefined ? undefined : keys.held(hash);
  if (held) return accepted(held, now, headers);
  const wellFormed = isWellFormedKey(raw);
  if (!wellFormed && (raw.startsWith(KEY_PREFIX) || !isLegacySecretShape(raw))) {
    throw new GantryError("unauthorized", "The API key is not recognised.", {
      reason: "Gantry keys start with gk_ and are 39 characters long; check for a copy-paste error.",
    });
  }
  // Past the format check the bearer is at most LEGACY_SECRET_MAX_LENGTH long, so it was hashed above.
  const lookupHash = hash ?? hashKey(raw);
  beforeLookup?.(lookupHash);
  const record = await keys.resolve(lookupHash, !wellFormed);
  if (!record) throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
  return accepted(record, now, headers);
}

/** A resolved key, unless it expired by now; a rotated key's deprecation headers go into `headers`. */
function accepted(record: KeyRecord, now: number, headers: ResponseHeaders): KeyRecord {
  if (record.expires_at_ms > 0 && record.expires_at_ms <= now) {
    throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
  }
  if (record.sunset_at_ms > 0) {
    // A rotated key: still valid until its sunset (RFC 9745 Deprecation, RFC 8594 Sunset).
    headers.Deprecation = `@${Math.floor(record.created_at_ms / 1000)}`;
    headers.Sunset = new Date(record.sunset_at_ms).toUTCString();
  }
  return record;
}
