/**
 * Receipts and checkpoints are signed by libsodium, while keys, verification and the JWKS are
 * node:crypto's: the two must agree byte for byte (Ed25519 is deterministic), or a receipt would not
 * verify against the published key. Each signature is compared with node:crypto's of the same
 * message, so a libsodium key built from the wrong seed or in the wrong layout fails here.
 */
import assert from "node:assert/strict";
import { randomBytes, sign, verify } from "node:crypto";
import { test } from "node:test";
import { inspect } from "node:util";
import {
  checkpointBody,
  pae,
  PAYLOAD_TYPE,
  rawPublicKey,
  type SigningKey,
  signBytes,
  signCheckpoint,
  signEnvelope,
  signingKey,
} from "./signing.ts";

// RFC 8032 section 7.1, TEST 3: a known answer, independent of both libraries.
const RFC8032 = {
  seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
  publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
  message: "af82",
  signature:
    "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
};

const seeds = [
  Buffer.from(RFC8032.seed, "hex"),
  Buffer.alloc(32, 7),
  Buffer.alloc(32, 0),
  ...[1, 2, 3].map(() => randomBytes(32)),
];
const messages = [Buffer.alloc(0), Buffer.from("x"), randomBytes(700), randomBytes(70_000)];

test("the RFC 8032 test vector: public key and signature", () => {
  const key = signingKey(Buffer.from(RFC8032.seed, "hex"));
  assert.equal(rawPublicKey(key.publicKey).toString("hex"), RFC8032.publicKey);
  assert.equal(signBytes(key, Buffer.from(RFC8032.message, "hex")).toString("hex"), RFC8032.signature);
});

test("every signature is node:crypto's of the same message, byte for byte", () => {
  for (const seed of seeds) {
    const key = signingKey(seed);
    for (const message of messages) {
      const signature = signBytes(key, message);
      assert.deepEqual(signature, sign(null, message, key.privateKey), `seed ${seed.toString("hex")}`);
      assert.ok(verify(null, message, key.publicKey, signature));
    }
  }
});

test("a receipt's envelope and a checkpoint carry node:crypto's signature", () => {
  for (const seed of seeds) {
    const key = signingKey(seed);
    const payload = randomBytes(600);
    const envelope = signEnvelope(key, payload);
    assert.equal(
      envelope.signatures[0]!.sig,
      sign(null, pae(PAYLOAD_TYPE, payload), key.privateKey).toString("base64"),
    );

    const root = randomBytes(32);
    const body = checkpointBody("gantry.test/log/acme", 42, root);
    const note = signCheckpoint(key, "gantry.test/log/acme", 42, root);
    const signed = Buffer.from(note.slice(note.lastIndexOf(" ") + 1).trim(), "base64").subarray(4);
    assert.deepEqual(signed, sign(null, Buffer.from(body), key.privateKey));
  }
});

test("the secret key is not reachable from the key object", () => {
  const seed = Buffer.from(RFC8032.seed, "hex");
  const key = signingKey(seed);
  const shown = `${inspect(key, { depth: Number.POSITIVE_INFINITY, showHidden: true })} ${JSON.stringify(key)}`;
  assert.ok(!shown.includes(seed.subarray(0, 8).toString("hex").match(/../g)!.join(" ")), shown);
  assert.ok(!shown.includes(seed.toString("base64url").slice(0, 12)), shown);
  assert.deepEqual(Object.keys(key).sort(), ["kid", "privateKey", "publicKey"]);
});

test("a key object not made by signingKey cannot sign", () => {
  const made = signingKey(randomBytes(32));
  const copy: SigningKey = { ...made };
  assert.throws(() => signBytes(copy, Buffer.from("x")), /was not made by signingKey/);
});
