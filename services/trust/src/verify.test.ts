/**
 * The offline verifier and the signing keys without any server: receipts signed by the current key
 * and by a rotated-out key (kept in TRUST_PREVIOUS_PUBLIC_KEYS) verify against the JWKS; a key
 * missing from the JWKS, a changed byte of the envelope, a wrong proof or a checkpoint for another
 * root do not. A log's growth verifies from a kept checkpoint to a later one for every pair of sizes
 * up to 40, and not once a leaf of the earlier log was rewritten. The configuration refuses a missing key outside development and test, and a
 * malformed one anywhere.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { canonicalJson, ConfigError } from "@gantry/kit";
import { loadSigningKeys } from "./config.ts";
import { inclusionPath, leafHash, MerkleLevels, rootHash } from "./merkle.ts";
import { logOrigin, type ReceiptView, statementOf } from "./receipts.ts";
import { jwks, rawPublicKey, signCheckpoint, signEnvelope, type SigningKey, signingKey } from "./signing.ts";
import { type LogView, verifyLogConsistency, verifyReceipt } from "./verify.ts";

function receiptsSignedBy(keys: SigningKey[], checkpointKey: SigningKey): ReceiptView[] {
  const rows = keys.map((key, i) => {
    const fields = {
      tenant: "acme",
      requestId: `req_${i}AAAAAAAAAAAAAAAAAAAAAAAAA`,
      runId: "run_01JAAAAAAAAAAAAAAAAAAAAAAA",
      permitId: `pmt_${i}AAAAAAAAAAAAAAAAAAAAAAAAA`,
      ability: "contact.create",
      inputHash: "a".repeat(64),
      resultHash: "b".repeat(64),
      status: 200,
      at: new Date(1_700_000_000_000 + i),
    };
    const envelope = signEnvelope(key, Buffer.from(canonicalJson(statementOf(fields))));
    return { fields, envelope, leaf: leafHash(canonicalJson(envelope)) };
  });
  const leaves = rows.map((r) => r.leaf);
  const root = rootHash(leaves);
  const checkpoint = signCheckpoint(checkpointKey, logOrigin("acme"), leaves.length, root);
  return rows.map((r, i) => ({
    requestId: r.fields.requestId,
    ability: r.fields.ability,
    inputHash: r.fields.inputHash,
    resultHash: r.fields.resultHash,
    outcome: "succeeded",
    status: 200,
    runId: r.fields.runId,
    permitId: r.fields.permitId,
    at: r.fields.at.toISOString(),
    envelope: r.envelope,
    inclusion: {
      logIndex: i,
      treeSize: leaves.length,
      rootHash: root.toString("hex"),
      hashes: inclusionPath(i, leaves).map((h) => h.toString("hex")),
      checkpoint,
    },
  }));
}

test("receipts signed before and after a rotation verify while the JWKS lists both keys", () => {
  const oldKey = signingKey(randomBytes(32));
  const newSeed = randomBytes(32);
  const keys = loadSigningKeys({
    NODE_ENV: "production",
    TRUST_SIGNING_KEY: newSeed.toString("base64"),
    TRUST_PREVIOUS_PUBLIC_KEYS: JSON.stringify([rawPublicKey(oldKey.publicKey).toString("base64url")]),
  });
  assert.equal(keys.development, false);
  assert.deepEqual([...keys.publicKeys.keys()].sort(), [oldKey.kid, keys.current.kid].sort());
  const set = jwks(keys.publicKeys);
  const receipts = receiptsSignedBy([oldKey, oldKey, keys.current], keys.current);
  for (const r of receipts) {
    const v = verifyReceipt(r, set);
    assert.ok(v.ok, v.problems.join("; "));
  }
  // Without the old key in the JWKS, its receipts no longer verify.
  const onlyNew = jwks(new Map([[keys.current.kid, keys.current.publicKey]]));
  const v = verifyReceipt(receipts[0]!, onlyNew);
  assert.equal(v.ok, false);
  assert.deepEqual(v.problems, ["signature: no signature by a key of the JWKS"]);
});

test("a changed envelope, proof or checkpoint is rejected, naming the check", () => {
  const key = signingKey(randomBytes(32));
  const set = jwks(new Map([[key.kid, key.publicKey]]));
  const [r0, r1] = receiptsSignedBy([key, key, key, key, key], key) as [ReceiptView, ReceiptView];
  assert.ok(verifyReceipt(r0, set).ok);

  const sig = Buffer.from(r0.envelope.signatures[0]!.sig, "base64");
  sig[5]! ^= 1;
  const badSig = {
    ...r0,
    envelope: { ...r0.envelope, signatures: [{ ...r0.envelope.signatures[0]!, sig: sig.toString("base64") }] },
  };
  assert.ok(verifyReceipt(badSig, set).problems.includes("signature: the signature does not verify"));

  const moved = { ...r0, inclusion: { ...r0.inclusion!, logIndex: 1 } };
  assert.deepEqual(verifyReceipt(moved, set).problems, [
    "inclusion: the proof does not lead from this receipt to the root hash",
  ]);

  const swapped = { ...r0, envelope: r1.envelope };
  assert.ok(verifyReceipt(swapped, set).problems.some((p) => p.startsWith("statement: differs")));

  const otherRoot = signCheckpoint(key, logOrigin("acme"), 5, rootHash([leafHash("x")]));
  assert.deepEqual(verifyReceipt({ ...r0, inclusion: { ...r0.inclusion!, checkpoint: otherRoot } }, set).problems, [
    "checkpoint: signed for another tree size or root than the proof",
  ]);
  const forgedCheckpoint = r0.inclusion!.checkpoint.replace("\n5\n", "\n6\n");
  assert.deepEqual(
    verifyReceipt({ ...r0, inclusion: { ...r0.inclusion!, checkpoint: forgedCheckpoint } }, set).problems,
    ["checkpoint: no valid signature by a key of the JWKS"],
  );
});

test("the signing key: required in production, a loud public default only in development and test", () => {
  assert.throws(
    () => loadSigningKeys({ NODE_ENV: "production", TRUST_PREVIOUS_PUBLIC_KEYS: "[]" }),
    (err: unknown) => err instanceof ConfigError && /TRUST_SIGNING_KEY: required/.test(err.message),
  );
  assert.throws(
    () => loadSigningKeys({ NODE_ENV: "test", TRUST_SIGNING_KEY: "c2hvcnQ=", TRUST_PREVIOUS_PUBLIC_KEYS: "[]" }),
    /TRUST_SIGNING_KEY: must be base64 of exactly 32 bytes/,
  );
  assert.throws(
    () => loadSigningKeys({ NODE_ENV: "test", TRUST_PREVIOUS_PUBLIC_KEYS: '["nope"]' }),
    /TRUST_PREVIOUS_PUBLIC_KEYS\[0\]/,
  );
  const dev = loadSigningKeys({ NODE_ENV: "development", TRUST_PREVIOUS_PUBLIC_KEYS: "[]" });
  assert.equal(dev.development, true);
  assert.equal(dev.current.kid, loadSigningKeys({ NODE_ENV: "test", TRUST_PREVIOUS_PUBLIC_KEYS: "[]" }).current.kid);
});

function logAnswer(key: SigningKey, leaves: Buffer[], fromSize: number | null, tenant = "acme"): LogView {
  const tree = new MerkleLevels(leaves);
  return {
    origin: logOrigin(tenant),
    treeSize: tree.size,
    rootHash: tree.root().toString("hex"),
    checkpoint: signCheckpoint(key, logOrigin(tenant), tree.size, tree.root()),
    consistency:
      fromSize === null ? null : { fromSize, hashes: tree.consistency(fromSize).map((h) => h.toString("hex")) },
  };
}

test("a kept checkpoint and a later trust.status `log`: the log's growth verifies for every pair of sizes up to 40", () => {
  const key = signingKey(randomBytes(32));
  const set = jwks(new Map([[key.kid, key.publicKey]]));
  const leaves = Array.from({ length: 40 }, (_, i) => leafHash(`receipt ${i}`));
  for (let later = 1; later <= 40; later++) {
    for (let earlier = 1; earlier <= later; earlier++) {
      const kept = logAnswer(key, leaves.slice(0, earlier), null).checkpoint;
      const result = verifyLogConsistency(kept, logAnswer(key, leaves.slice(0, later), earlier), set);
      assert.ok(result.ok, `${earlier} → ${later}: ${result.problems.join("; ")}`);
    }
  }
});

test("a log rewritten under a kept checkpoint fails the consistency check offline, naming it", () => {
  const key = signingKey(randomBytes(32));
  const set = jwks(new Map([[key.kid, key.publicKey]]));
  const leaves = Array.from({ length: 12 }, (_, i) => leafHash(`receipt ${i}`));
  const kept = logAnswer(key, leaves.slice(0, 7), null).checkpoint;
  // The database's leaf 3 rewritten, then the log grew and a checkpoint was signed over it.
  const rewritten = leaves.map((l, i) => (i === 3 ? leafHash("forged receipt") : l));
  const result = verifyLogConsistency(kept, logAnswer(key, rewritten, 7), set);
  assert.equal(result.ok, false);
  assert.deepEqual(result.problems, [
    "consistency: the log at 12 does not extend the checkpoint of 7 (rewritten, or a wrong proof)",
  ]);
  // A proof from another size, another tenant's log, an unknown key, no proof: each named.
  const honest = logAnswer(key, leaves, 7);
  assert.ok(verifyLogConsistency(kept, honest, set).ok);
  assert.match(verifyLogConsistency(kept, logAnswer(key, leaves, 6), set).problems.join(), /from size 6/);
  assert.match(verifyLogConsistency(kept, logAnswer(key, leaves, 7, "beta"), set).problems.join(), /different logs/);
  assert.match(verifyLogConsistency(kept, { ...honest, consistency: null }, set).problems.join(), /no consistency/);
  const stranger = signingKey(randomBytes(32));
  assert.match(
    verifyLogConsistency(kept, logAnswer(stranger, leaves, 7), set).problems.join(),
    /later checkpoint: no valid signature/,
  );
  assert.match(
    verifyLogConsistency(kept, { ...honest, treeSize: 11 }, set).problems.join(),
    /later checkpoint: signed for another tree size/,
  );
});
