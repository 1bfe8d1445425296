/**
 * @module trust/verify
 * Offline verification of a receipt (as trust.status returns it under `permits[].receipt`, or a
 * claim's `receipts[]`) against a JWKS (`GET /.well-known/jwks.json`), with nothing but the two:
 *
 * 1. the DSSE envelope's signature, by a key of the JWKS (its `keyid`);
 * 2. the in-toto Statement it signs says what the receipt says (request id, ability, hashes,
 *    outcome, status, run, permit, time);
 * 3. the inclusion proof: the RFC 6962 leaf hash of the envelope's canonical JSON, with the audit
 *    path, gives the root hash at the proof's tree size;
 * 4. the checkpoint is signed by a key of the JWKS and commits to that size and root.
 *
 * And that a tenant's log only grew ({@link verifyLogConsistency}): from a checkpoint the client kept
 * to a newer one (trust.status's `log`, asked with `logFromSize`), both signed by a key of the JWKS, for the same log,
 * with the RFC 9162 §2.1.4.2 consistency proof between them.
 *
 * Used by scripts/verify.ts (the command line) and its test.
 */
import { canonicalJson } from "@gantry/kit";
import { leafHash, verifyConsistency, verifyInclusion } from "./merkle.ts";
import type { ReceiptView } from "./receipts.ts";
import { PREDICATE_TYPE, STATEMENT_TYPE } from "./receipts.ts";
import { keysOfJwks, openCheckpoint, openEnvelope, PAYLOAD_TYPE } from "./signing.ts";

export interface Verification {
  ok: boolean;
  /** What was checked and passed. */
  checked: string[];
  /** What failed, each naming the check. */
  problems: string[];
}

export function verifyReceipt(receipt: ReceiptView, jwksSet: { keys?: unknown[] }): Verification {
  const checked: string[] = [];
  const problems: string[] = [];
  const keys = keysOfJwks(jwksSet);
  if (keys.size === 0) problems.push("jwks: holds no Ed25519 key");
  const env = receipt?.envelope;
  if (env?.payloadType !== PAYLOAD_TYPE) problems.push(`envelope: payloadType is not ${PAYLOAD_TYPE}`);
  const opened = openEnvelope(env, keys);
  if (!opened.ok) problems.push(`signature: ${opened.reason}`);
  else {
    checked.push(`signature: valid, by ${opened.keyid}`);
    let statement: {
      _type?: string;
      predicateType?: string;
      subject?: { name?: string; digest?: { sha256?: string } }[];
      predicate?: Record<string, unknown>;
    };
    try {
      statement = JSON.parse(opened.payload.toString("utf8"));
    } catch {
      statement = {};
    }
    const p = statement.predicate ?? {};
    const mismatched = [
      statement._type === STATEMENT_TYPE ? null : "_type",
      statement.predicateType === PREDICATE_TYPE ? null : "predicateType",
      statement.subject?.[0]?.name === receipt.requestId ? null : "subject.name",
      statement.subject?.[0]?.digest?.sha256 === receipt.inputHash ? null : "subject.digest",
      ...(
        ["requestId", "ability", "inputHash", "resultHash", "outcome", "status", "runId", "permitId", "at"] as const
      ).map((f) => (p[f] === receipt[f] ? null : `predicate.${f}`)),
    ].filter((m): m is string => m !== null);
    if (mismatched.length) problems.push(`statement: differs from the receipt in ${mismatched.join(", ")}`);
    else checked.push("statement: matches the receipt");
  }
  const inc = receipt?.inclusion;
  if (!inc) problems.push("inclusion: the receipt carries no inclusion proof");
  else {
    const leaf = leafHash(canonicalJson(env));
    const path = inc.hashes.map((h) => Buffer.from(h, "hex"));
    if (verifyInclusion(inc.logIndex, inc.treeSize, leaf, path, Buffer.from(inc.rootHash, "hex")))
      checked.push(`inclusion: leaf ${inc.logIndex} of ${inc.treeSize} under root ${inc.rootHash}`);
    else problems.push("inclusion: the proof does not lead from this receipt to the root hash");
    const cp = openCheckpoint(inc.checkpoint, keys);
    if (!cp.ok) problems.push(`checkpoint: ${cp.reason}`);
    else if (cp.size !== inc.treeSize || cp.root.toString("hex") !== inc.rootHash)
      problems.push("checkpoint: signed for another tree size or root than the proof");
    else checked.push(`checkpoint: signed, ${cp.origin} size ${cp.size}`);
  }
  return { ok: problems.length === 0, checked, problems };
}

/** trust.status's `log`: the current checkpoint and, with `logFromSize`, the proof from that size. */
export interface LogView {
  origin: string;
  treeSize: number;
  rootHash: string;
  checkpoint: string;
  consistency: { fromSize: number; hashes: string[] } | null;
}

/**
 * Whether the log of `later` (trust.status's `log`) extends the log of the checkpoint `earlier` that
 * the client kept: both checkpoints signed by a key of the JWKS for the same origin, the later
 * proof for the earlier size, and the consistency proof leading from the earlier root to the later.
 */
export function verifyLogConsistency(earlier: string, later: LogView, jwksSet: { keys?: unknown[] }): Verification {
  const checked: string[] = [];
  const problems: string[] = [];
  const keys = keysOfJwks(jwksSet);
  if (keys.size === 0) problems.push("jwks: holds no Ed25519 key");
  const old = openCheckpoint(earlier, keys);
  const cur = openCheckpoint(later?.checkpoint ?? "", keys);
  if (!old.ok) problems.push(`earlier checkpoint: ${old.reason}`);
  else checked.push(`earlier checkpoint: signed, ${old.origin} size ${old.size}`);
  if (!cur.ok) problems.push(`later checkpoint: ${cur.reason}`);
  else if (cur.size !== later.treeSize || cur.root.toString("hex") !== later.rootHash)
    problems.push("later checkpoint: signed for another tree size or root than the answer");
  else checked.push(`later checkpoint: signed, ${cur.origin} size ${cur.size}`);
  if (!old.ok || !cur.ok) return { ok: false, checked, problems };
  if (old.origin !== cur.origin)
    problems.push(`origin: the checkpoints are of different logs (${old.origin}, ${cur.origin})`);
  const proof = later.consistency;
  if (!proof) problems.push("consistency: the answer carries no consistency proof (ask trust.status with logFromSize)");
  else if (proof.fromSize !== old.size)
    problems.push(`consistency: the proof is from size ${proof.fromSize}, the earlier checkpoint is of ${old.size}`);
  else if (
    !verifyConsistency(
      old.size,
      cur.size,
      old.root,
      cur.root,
      proof.hashes.map((h) => Buffer.from(h, "hex")),
    )
  )
    problems.push(
      `consistency: the log at ${cur.size} does not extend the checkpoint of ${old.size} (rewritten, or a wrong proof)`,
    );
  else checked.push(`consistency: the log at ${cur.size} extends the checkpoint of ${old.size}`);
  return { ok: problems.length === 0, checked, problems };
}
