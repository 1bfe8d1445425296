/**
 * The receipt's statement and envelope are serialised by hand for their fixed shapes
 * (`statementJson`, `envelopeJson`): each must be byte for byte the RFC 8785 canonical JSON of the
 * same object, which is what the signature and the log's leaf hash are over and what external
 * verifiers recompute. Fields that may be null, non-ASCII text, quotes and a failed status included.
 * The receipt row carries that envelope text, and the append sends it to Postgres inside its
 * recordset as is (`recordsetJson`): the recordset must read as the rows' values.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalJson } from "@gantry/kit";
import type { Context } from "./context.ts";
import { recordsetJson } from "./log-append.ts";
import { leafHash } from "./merkle.ts";
import { type ReceiptFields, receiptRow, statementJson, statementOf } from "./receipts.ts";
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

test("a receipt row holds its envelope's canonical JSON, the leaf its hash, and the recordset reads as the rows", () => {
  const key = signingKey(Buffer.alloc(32, 9));
  const ctx = { keys: { current: key } } as unknown as Context;
  const rows = variants.map((f) => receiptRow(ctx, f));
  for (const [i, row] of rows.entries()) {
    const envelope = signEnvelope(key, Buffer.from(statementJson(variants[i]!)));
    assert.equal(row.envelope, canonicalJson(envelope));
    assert.deepEqual(row.leaf, leafHash(canonicalJson(envelope)));
  }
  assert.deepEqual(
    JSON.parse(recordsetJson(rows, 7)),
    rows.map((r, i) => ({
      request_id: r.requestId,
      run_id: r.runId,
      permit_id: r.permitId,
      ability: r.ability,
      input_hash: r.inputHash,
      result_hash: r.resultHash,
      outcome: r.outcome,
      status: r.status,
      at: r.at.toISOString(),
      envelope: JSON.parse(r.envelope),
      leaf_hash: r.leaf.toString("hex"),
      log_index: 7 + i,
    })),
  );
});
