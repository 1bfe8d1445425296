/**
 * @module connections/crypto
 * Envelope encryption of credentials at rest. Each record (a connection, an OAuth session) gets its
 * own random 256-bit data key; every secret value of the record (access token, refresh token, PKCE
 * verifier) is sealed with AES-256-GCM under that data key with a fresh 96-bit IV; the data key is
 * itself sealed (wrapped) with AES-256-GCM under the master key of a numbered version. The record
 * stores the wrapped data key and the master-key version; the master key never touches the database.
 *
 * Associated data binds every ciphertext to where it belongs: the tenant, the record id and, for
 * values, the field name. A ciphertext copied to another tenant's row, another connection, or another
 * column fails authentication instead of decrypting, so neither a bug nor a database writer can move a
 * credential between tenants.
 *
 * Rotation: a new master key gets a new version (CONNECTIONS_MASTER_KEY + CONNECTIONS_MASTER_KEY_VERSION);
 * the previous keys stay readable (CONNECTIONS_PREVIOUS_MASTER_KEYS) until `rewrap` (src/rewrap.ts)
 * has re-wrapped every data key under the current version. Values are not re-encrypted: only the
 * 60-byte wrapped data key changes.
 *
 * Sealed form (values and wrapped keys alike): `iv (12) ‖ ciphertext ‖ tag (16)`.
 *
 * @example
 * const sealed = sealRecord(keys, { tenant: "acme", id: "con_01…" }, { access: "ya29…", refresh: null });
 * openValue(keys, { tenant: "acme", id: "con_01…" }, sealed.wrappedKey, sealed.keyVersion, "access", sealed.values.access!);
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Version tag of the associated-data layout; part of every AAD so a future layout cannot be confused with this one. */
const AAD_VERSION = "gantry.connections.v1";

/** The master keys this process holds: the current one (new writes) and older ones (reads until re-wrapped). */
export interface MasterKeys {
  current: { version: number; key: Buffer };
  /** Every usable version, the current one included. */
  byVersion: ReadonlyMap<number, Buffer>;
  /** True for the development key derived from a public constant (never in production). */
  development: boolean;
}

/** Where a sealed value belongs: it only opens with the same tenant and record id. */
export interface Binding {
  tenant: string;
  id: string;
}

export class DecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DecryptionError";
  }
}

/** Unambiguous associated data: a JSON array, so no choice of tenant or id can collide with another's. */
function aad(purpose: "key" | "value", binding: Binding, extra: string | number): Buffer {
  return Buffer.from(JSON.stringify([AAD_VERSION, purpose, binding.tenant, binding.id, extra]), "utf8");
}

function seal(key: Buffer, plaintext: Buffer, associated: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associated);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function open(key: Buffer, sealed: Uint8Array, associated: Buffer): Buffer {
  const buf = Buffer.from(sealed);
  if (buf.length < IV_BYTES + TAG_BYTES) throw new DecryptionError("sealed value is too short");
  const iv = buf.subarray(0, IV_BYTES);
  const tag = buf.subarray(buf.length - TAG_BYTES);
  const body = buf.subarray(IV_BYTES, buf.length - TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(associated);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new DecryptionError("sealed value failed authentication (wrong key, tenant, record or field)");
  }
}

function masterKey(keys: MasterKeys, version: number): Buffer {
  const key = keys.byVersion.get(version);
  if (!key)
    throw new DecryptionError(
      `master key version ${version} is not configured (CONNECTIONS_PREVIOUS_MASTER_KEYS); it is needed until rewrap has run`,
    );
  return key;
}

/** A record's sealed values and its wrapped data key. */
export interface SealedRecord<F extends string> {
  wrappedKey: Buffer;
  keyVersion: number;
  values: Record<F, Buffer | null>;
}

/** Seals `values` (null stays null) under a new random data key wrapped by the current master key. */
export function sealRecord<F extends string>(
  keys: MasterKeys,
  binding: Binding,
  values: Record<F, string | null>,
): SealedRecord<F> {
  const dataKey = randomBytes(KEY_BYTES);
  try {
    const { version, key } = keys.current;
    const out = {} as Record<F, Buffer | null>;
    for (const [field, value] of Object.entries(values) as [F, string | null][]) {
      out[field] = value === null ? null : seal(dataKey, Buffer.from(value, "utf8"), aad("value", binding, field));
    }
    return { wrappedKey: seal(key, dataKey, aad("key", binding, version)), keyVersion: version, values: out };
  } finally {
    dataKey.fill(0);
  }
}

/** Unwraps a record's data key (checks tenant, record id and key version). */
function unwrap(keys: MasterKeys, binding: Binding, wrappedKey: Uint8Array, keyVersion: number): Buffer {
  return open(masterKey(keys, keyVersion), wrappedKey, aad("key", binding, keyVersion));
}

/** Opens the values of a record; fields whose sealed value is null come back null. */
export function openRecord<F extends string>(
  keys: MasterKeys,
  binding: Binding,
  wrappedKey: Uint8Array,
  keyVersion: number,
  values: Record<F, Uint8Array | null>,
): Record<F, string | null> {
  const dataKey = unwrap(keys, binding, wrappedKey, keyVersion);
  try {
    const out = {} as Record<F, string | null>;
    for (const [field, sealed] of Object.entries(values) as [F, Uint8Array | null][]) {
      out[field] = sealed === null ? null : open(dataKey, sealed, aad("value", binding, field)).toString("utf8");
    }
    return out;
  } finally {
    dataKey.fill(0);
  }
}

/** Opens one value of a record. */
export function openValue(
  keys: MasterKeys,
  binding: Binding,
  wrappedKey: Uint8Array,
  keyVersion: number,
  field: string,
  sealed: Uint8Array,
): string {
  return openRecord(keys, binding, wrappedKey, keyVersion, { [field]: sealed })[field] as string;
}

/** Re-wraps a record's data key under the current master key (values are untouched). */
export function rewrapKey(
  keys: MasterKeys,
  binding: Binding,
  wrappedKey: Uint8Array,
  keyVersion: number,
): { wrappedKey: Buffer; keyVersion: number } {
  const dataKey = unwrap(keys, binding, wrappedKey, keyVersion);
  try {
    const { version, key } = keys.current;
    return { wrappedKey: seal(key, dataKey, aad("key", binding, version)), keyVersion: version };
  } finally {
    dataKey.fill(0);
  }
}

/** The public, well-known development key: usable only under NODE_ENV development or test. */
export const DEVELOPMENT_KEY_LABEL = "gantry connections DEVELOPMENT master key - public, never use in production";

export function developmentMasterKey(): Buffer {
  return createHash("sha256").update(DEVELOPMENT_KEY_LABEL).digest();
}

/** Decodes a base64 master key; it must be exactly 32 bytes. */
export function decodeMasterKey(value: string, name: string): Buffer {
  const trimmed = value.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new Error(`${name} is not base64`);
  const key = Buffer.from(trimmed.replaceAll("-", "+").replaceAll("_", "/"), "base64");
  if (key.length !== KEY_BYTES)
    throw new Error(
      `${name} must be 32 bytes (base64 of 32 random bytes: \`openssl rand -base64 32\`), not ${key.length}`,
    );
  return key;
}
