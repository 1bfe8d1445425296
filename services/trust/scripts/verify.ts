/**
 * Offline verifier, against a JWKS (src/verify.ts). Exit status 0 when valid, 1 when not, 2 on a
 * usage error.
 *
 * A receipt: its Ed25519 signature (DSSE over an in-toto Statement), that the statement matches the
 * receipt, its inclusion proof in the tenant's Merkle log (RFC 6962) and the signed checkpoint.
 *   node services/trust/scripts/verify.ts <receipt.json> <jwks.json>
 * receipt.json: one receipt as trust.status returns it (`result.permits[i].receipt`).
 *
 * That the log only grew: from a checkpoint kept earlier to a later trust.status `log` (asked with
 * `logFromSize` = the earlier checkpoint's size), both checkpoints and the consistency proof.
 *   node services/trust/scripts/verify.ts consistency <earlier-checkpoint.txt> <log.json> <jwks.json>
 * earlier-checkpoint.txt: a checkpoint as trust.status gave it (`log.checkpoint`, or a receipt's
 * `inclusion.checkpoint`).
 * log.json: trust.status's `result.log`.
 *
 * jwks.json: the gateway's `GET /.well-known/jwks.json`, saved.
 */
import { readFileSync } from "node:fs";
import { type LogView, type Verification, verifyLogConsistency, verifyReceipt } from "../src/verify.ts";

const args = process.argv.slice(2);
const consistency = args[0] === "consistency";
const files = consistency ? args.slice(1) : args;
if (files.length !== (consistency ? 3 : 2)) {
  process.stderr.write(
    "usage: node services/trust/scripts/verify.ts <receipt.json> <jwks.json>\n" +
      "       node services/trust/scripts/verify.ts consistency <earlier-checkpoint.txt> <log.json> <jwks.json>\n",
  );
  process.exit(2);
}
let result: Verification;
try {
  if (consistency) {
    const [earlierFile, logFile, jwksFile] = files as [string, string, string];
    result = verifyLogConsistency(
      readFileSync(earlierFile, "utf8"),
      JSON.parse(readFileSync(logFile, "utf8")) as LogView,
      JSON.parse(readFileSync(jwksFile, "utf8")),
    );
  } else {
    const [receiptFile, jwksFile] = files as [string, string];
    result = verifyReceipt(
      JSON.parse(readFileSync(receiptFile, "utf8")) as Parameters<typeof verifyReceipt>[0],
      JSON.parse(readFileSync(jwksFile, "utf8")),
    );
  }
} catch (err) {
  process.stderr.write(`cannot read the inputs: ${(err as Error).message}\n`);
  process.exit(2);
}
const what = consistency ? "log consistency" : "receipt";
for (const line of result.checked) process.stdout.write(`ok    ${line}\n`);
for (const line of result.problems) process.stdout.write(`FAIL  ${line}\n`);
process.stdout.write(result.ok ? `${what} verified\n` : `${what} NOT verified\n`);
process.exit(result.ok ? 0 : 1);
