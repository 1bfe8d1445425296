/**
 * Offline receipt verifier: checks a receipt's Ed25519 signature (DSSE over an in-toto Statement),
 * that the statement matches the receipt, its inclusion proof in the tenant's Merkle log (RFC 6962)
 * and the signed checkpoint, against a JWKS (src/verify.ts). Exit status 0 when valid, 1 when not,
 * 2 on a usage error.
 *
 * Usage:
 *   node services/trust/scripts/verify.ts <receipt.json> <jwks.json>
 *
 * receipt.json: one receipt as trust.status returns it (`result.permits[i].receipt`).
 * jwks.json: the gateway's `GET /.well-known/jwks.json`, saved.
 */
import { readFileSync } from "node:fs";
import { verifyReceipt } from "../src/verify.ts";

const [receiptFile, jwksFile] = process.argv.slice(2);
if (!receiptFile || !jwksFile) {
  process.stderr.write("usage: node services/trust/scripts/verify.ts <receipt.json> <jwks.json>\n");
  process.exit(2);
}
let receipt: unknown;
let jwks: unknown;
try {
  receipt = JSON.parse(readFileSync(receiptFile, "utf8"));
  jwks = JSON.parse(readFileSync(jwksFile, "utf8"));
} catch (err) {
  process.stderr.write(`cannot read the inputs: ${(err as Error).message}\n`);
  process.exit(2);
}
const result = verifyReceipt(receipt as Parameters<typeof verifyReceipt>[0], jwks as { keys?: unknown[] });
for (const line of result.checked) process.stdout.write(`ok    ${line}\n`);
for (const line of result.problems) process.stdout.write(`FAIL  ${line}\n`);
process.stdout.write(result.ok ? "receipt verified\n" : "receipt NOT verified\n");
process.exit(result.ok ? 0 : 1);
