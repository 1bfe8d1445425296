/**
 * The receipt's statement and envelope are serialised by hand for their fixed shapes
 * (`statementJson`, `envelopeJson`): each must be byte for byte the RFC 8785 canonical JSON of the
 * same object, which is what the signature and the log's leaf hash are over and what external
 * verifiers recompute. Fields that may be null, non-ASCII text, quotes and a failed status included.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson } from "@gantry/kit";
import { type ReceiptFields, statementJson, statementOf } from "./receipts.ts";
import { envelopeJson, signEnvelope, signingKey } from "./signing.ts";

const base: ReceiptFields = {
  tenant: "acme",
  requestId: "req_01JABCDEF",
  runId: "run_01JABCDEF",
  permitId: "permit_01JABCDEF",
  ability: "contact.get",
  inputHash: "a".repeat(64),
  resultHash: "b".repeat(64),
  status: 200,
  at: new Date("2026-11-26T23:59:58.123Z"),
};

const variants: ReceiptFields[] = [
  base,
  { ...base, permitId: null, resultHash: null, status: 500 },
  { ...base, tenant: "acme/shop1", status: 404 },
  { ...base, requestId: 'req "quoted" \\ back\nslash', ability: "web.browse" },
  { ...base, runId: "run_é✓😀\u2028", requestId: "\u0001\u001f" },
];

test("the statement written out is the canonical JSON of the statement object", () => {
  for (const f of variants) assert.equal(statementJson(f), canonicalJson(statementOf(f)), JSON.stringify(f));
});

test("the envelope written out is its canonical JSON, signed payload included", () => {
  const key = signingKey(Buffer.alloc(32, 7));
  for (const f of variants) {
    const envelope = signEnvelope(key, Buffer.from(statementJson(f)));
    assert.equal(envelopeJson(envelope), canonicalJson(envelope));
  }
  const twoSignatures = { ...signEnvelope(key, Buffer.from("x")), payloadType: 'text/plain; "v"' };
  twoSignatures.signatures.push({ keyid: "ed25519:other", sig: "c2ln" });
  assert.equal(envelopeJson(twoSignatures), canonicalJson(twoSignatures));
});
