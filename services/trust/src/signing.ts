/**
 * @module trust/signing
 * Ed25519 signing of receipts and checkpoints, shared by the service and the offline verifier
 * (scripts/verify.ts). Signatures are made by libsodium (sodium-native): 39 against 63 µs a receipt
 * with node:crypto (README *The receipt's signature with libsodium*), byte for byte the same
 * signature, since Ed25519 is deterministic. Keys, verification and the JWKS stay node:crypto.
 *
 * - DSSE envelopes (github.com/secure-systems-lab/dsse): the signature is over the
 *   pre-authentication encoding `DSSEv1 <len> <payloadType> <len> <payload>`, and each signature
 *   names its key (`keyid`), so a rotated key keeps old receipts verifiable as long as the JWKS
 *   still lists it (TRUST_PREVIOUS_PUBLIC_KEYS).
 * - Checkpoints as C2SP signed notes (c2sp.org/signed-note, c2sp.org/tlog-checkpoint): origin,
 *   tree size and base64 root hash, one line each, then `— <key name> <base64(key hash ‖ sig)>`.
 * - The public keys as a JWKS (RFC 7517, OKP keys of RFC 8037).
 *
 * Key ids are derived from the public key (`ed25519:` + 16 hex digits of its SHA-256), so they
 * cannot drift from the key they name.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, verify } from "node:crypto";
import sodium from "sodium-native";

export const PAYLOAD_TYPE = "application/vnd.in-toto+json";

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface SigningKeys {
  current: SigningKey;
  /** Every public key receipts may be signed with (current and previous), by kid. */
  publicKeys: Map<string, KeyObject>;
  /** Whether the current key is the public development key. */
  development: boolean;
}

export interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

export interface Jwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The private key of a 32-byte Ed25519 seed. */
export function privateKeyFromSeed(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: "jwk" }) as { x: string };
  return Buffer.from(jwk.x, "base64url");
}

export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error("an Ed25519 public key is 32 bytes");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
}

export function keyIdOf(publicKey: KeyObject): string {
  return `ed25519:${createHash("sha256").update(rawPublicKey(publicKey)).digest("hex").slice(0, 16)}`;
}

/**
 * libsodium's secret key (seed ‖ public key) of each key signingKey made, kept off the key object so
 * that no log or dump of the configuration can reach it. It lives in sodium_malloc'd memory (locked,
 * guarded, zeroed by libsodium when collected); the seed's other copies (the configuration's, the
 * KeyObject's) are not ours to zero.
 */
const secretKeys = new WeakMap<SigningKey, Buffer>();

export function signingKey(seed: Buffer): SigningKey {
  const privateKey = privateKeyFromSeed(seed);
  const publicKey = createPublicKey(privateKey);
  const secretKey = sodium.sodium_malloc(sodium.crypto_sign_SECRETKEYBYTES);
  const sodiumPublicKey = Buffer.alloc(sodium.crypto_sign_PUBLICKEYBYTES);
  sodium.crypto_sign_seed_keypair(sodiumPublicKey, secretKey, seed);
  // The two libraries derive the public key from the seed each on their own: if they disagreed,
  // every signature would fail verification against the JWKS, so refuse to start instead.
  if (!sodiumPublicKey.equals(rawPublicKey(publicKey)))
    throw new Error("libsodium and node:crypto derive different keys");
  const key: SigningKey = { kid: keyIdOf(publicKey), privateKey, publicKey };
  secretKeys.set(key, secretKey);
  return key;
}

/** The Ed25519 signature of `message` by `key` (a key signingKey made). */
export function signBytes(key: SigningKey, message: Buffer): Buffer {
  const secretKey = secretKeys.get(key);
  if (!secretKey) throw new Error(`signing key ${key.kid} was not made by signingKey`);
  const signature = Buffer.allocUnsafe(sodium.crypto_sign_BYTES);
  sodium.crypto_sign_detached(signature, message, secretKey);
  return signature;
}

/** DSSE pre-authentication encoding: the text before the payload as one string, one copy. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${payload.length} `),
    payload,
  ]);
}

export function signEnvelope(key: SigningKey, payload: Buffer, payloadType = PAYLOAD_TYPE): Envelope {
  const sig = signBytes(key, pae(payloadType, payload));
  return {
    payloadType,
    payload: payload.toString("base64"),
    signatures: [{ keyid: key.kid, sig: sig.toString("base64") }],
  };
}

/**
 * `canonicalJson(envelope)` (the log's leaf data), written out for the envelope's fixed shape: keys
 * in RFC 8785 order, values serialised by JSON.stringify (their RFC 8785 form for strings).
 */
export function envelopeJson(e: Envelope): string {
  const sigs = e.signatures.map((s) => `{"keyid":${JSON.stringify(s.keyid)},"sig":${JSON.stringify(s.sig)}}`);
  return `{"payload":${JSON.stringify(e.payload)},"payloadType":${JSON.stringify(e.payloadType)},"signatures":[${sigs.join(",")}]}`;
}

/**
 * The envelope's payload when a signature by one of `keys` verifies; otherwise why not. Signatures
 * by keys not in `keys` are ignored (they cannot be checked), never accepted.
 */
export function openEnvelope(
  envelope: Envelope,
  keys: ReadonlyMap<string, KeyObject>,
): { ok: true; payload: Buffer; keyid: string } | { ok: false; reason: string } {
  if (!envelope || typeof envelope.payload !== "string" || !Array.isArray(envelope.signatures))
    return { ok: false, reason: "not a DSSE envelope" };
  const payload = Buffer.from(envelope.payload, "base64");
  const message = pae(envelope.payloadType, payload);
  let known = false;
  for (const s of envelope.signatures) {
    const key = keys.get(s.keyid);
    if (!key) continue;
    known = true;
    if (verify(null, message, key, Buffer.from(s.sig, "base64"))) return { ok: true, payload, keyid: s.keyid };
  }
  return { ok: false, reason: known ? "the signature does not verify" : "no signature by a key of the JWKS" };
}

export function jwks(keys: ReadonlyMap<string, KeyObject>): { keys: Jwk[] } {
  return {
    keys: [...keys].map(([kid, key]) => ({
      kty: "OKP",
      crv: "Ed25519",
      x: rawPublicKey(key).toString("base64url"),
      kid,
      alg: "EdDSA",
      use: "sig",
    })),
  };
}

/** Public keys of a JWKS by kid (Ed25519 keys only; others are skipped). */
export function keysOfJwks(set: { keys?: unknown[] }): Map<string, KeyObject> {
  const out = new Map<string, KeyObject>();
  for (const k of set.keys ?? []) {
    const jwk = k as Partial<Jwk>;
    if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || typeof jwk.kid !== "string")
      continue;
    out.set(jwk.kid, publicKeyFromRaw(Buffer.from(jwk.x, "base64url")));
  }
  return out;
}

/** C2SP signed-note key hash: the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key). */
function noteKeyHash(name: string, publicKey: KeyObject): Buffer {
  return createHash("sha256")
    .update(`${name}\n`)
    .update(Buffer.from([1]))
    .update(rawPublicKey(publicKey))
    .digest()
    .subarray(0, 4);
}

export function checkpointBody(origin: string, size: number, root: Buffer): string {
  return `${origin}\n${size}\n${root.toString("base64")}\n`;
}

export function signCheckpoint(key: SigningKey, origin: string, size: number, root: Buffer): string {
  const body = checkpointBody(origin, size, root);
  const sig = signBytes(key, Buffer.from(body));
  return `${body}\n— ${key.kid} ${Buffer.concat([noteKeyHash(key.kid, key.publicKey), sig]).toString("base64")}\n`;
}

/** Parses and checks a signed checkpoint; its size and root when a signature by one of `keys` verifies. */
export function openCheckpoint(
  note: string,
  keys: ReadonlyMap<string, KeyObject>,
): { ok: true; origin: string; size: number; root: Buffer } | { ok: false; reason: string } {
  const split = note.indexOf("\n\n");
  if (split < 0) return { ok: false, reason: "not a signed note" };
  const body = note.slice(0, split + 1);
  const lines = body.split("\n");
  const [origin, sizeText, rootText] = lines;
  if (lines.length !== 4 || !origin || !/^[0-9]+$/.test(sizeText ?? "") || !rootText)
    return { ok: false, reason: "not a checkpoint" };
  for (const line of note.slice(split + 2).split("\n")) {
    const m = /^— (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) continue;
    const key = keys.get(m[1]!);
    if (!key) continue;
    const raw = Buffer.from(m[2]!, "base64");
    if (raw.length !== 68 || !raw.subarray(0, 4).equals(noteKeyHash(m[1]!, key))) continue;
    if (verify(null, Buffer.from(body), key, raw.subarray(4)))
      return { ok: true, origin, size: Number(sizeText), root: Buffer.from(rootText, "base64") };
  }
  return { ok: false, reason: "no valid signature by a key of the JWKS" };
}
