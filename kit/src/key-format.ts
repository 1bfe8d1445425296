/**
 * @module kit/key-format
 * The API key format: `gk_` + 30 random base62 characters (~178 bits) + a 6-character base62
 * CRC32 checksum of everything before it. The checksum lets the gateway refuse mistyped or made-up
 * keys without a lookup, and lets secret scanners recognise a leaked key with few false positives.
 * Only the SHA-256 of a key is ever stored.
 *
 * @example
 * const raw = generateKey();      // "gk_7Qd…"
 * isWellFormedKey(raw);           // true
 * hashKey(raw);                   // 64 hex chars, what the keys service stores
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const KEY_PREFIX = "gk_";
const BODY_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = /^gk_[0-9A-Za-z]{36}$/;

// Random bytes come from a pooled buffer refilled 4 KiB at a time: one randomBytes call per
// request id was a measurable share of the gateway's per-request cost. Same CSPRNG, fewer calls.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function nextRandomByte(): number {
  if (poolOffset >= POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Unbiased base62: bytes ≥ 248 are rejected so every character is equally likely. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

function base62(n: number, width: number): string {
  let out = "";
  let v = n >>> 0;
  do {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  } while (v > 0);
  return out.padStart(width, "0");
}

function checksum(head: string): string {
  return base62(crc32(head), CHECKSUM_LENGTH);
}

export function generateKey(): string {
  const head = KEY_PREFIX + randomBase62(BODY_LENGTH);
  return head + checksum(head);
}

/** Cheap, lookup-free check: right shape and a matching checksum. */
export function isWellFormedKey(raw: string): boolean {
  if (raw.length !== KEY_LENGTH || !KEY_PATTERN.test(raw)) return false;
  const head = raw.slice(0, KEY_PREFIX.length + BODY_LENGTH);
  const expected = Buffer.from(checksum(head));
  return timingSafeEqual(expected, Buffer.from(raw.slice(-CHECKSUM_LENGTH)));
}

/**
 * The longest legacy credential (a `GANTRY_LEGACY_KEYS` secret), so the longest bearer the gateway
 * ever needs to hash: anything longer is refused unread.
 */
export const LEGACY_SECRET_MAX_LENGTH = 512;
const LEGACY_SECRET_MIN_LENGTH = 16;
const PRINTABLE_NO_SPACE = /^[\x21-\x7e]+$/;

/**
 * What a legacy credential may look like: 16 to {@link LEGACY_SECRET_MAX_LENGTH} printable ASCII
 * characters without whitespace. The keys service refuses to load any other; the gateway refuses
 * any other bearer without a lookup.
 */
export function isLegacySecretShape(raw: string): boolean {
  return (
    raw.length >= LEGACY_SECRET_MIN_LENGTH && raw.length <= LEGACY_SECRET_MAX_LENGTH && PRINTABLE_NO_SPACE.test(raw)
  );
}

/** SHA-256 hex. One-shot `crypto.hash`: the gateway hashes the bearer of every call. */
export function hashKey(raw: string): string {
  return hash("sha256", raw, "hex");
}

/** What lists show instead of the secret: enough to recognise a key, far too little to use it. */
export function keyPrefix(raw: string): string {
  return raw.slice(0, KEY_PREFIX.length + 8);
}

export function newKeyId(): string {
  return `key_${randomBase62(24)}`;
}
