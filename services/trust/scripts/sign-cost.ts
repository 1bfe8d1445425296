/**
 * CPU a signature, node:crypto's Ed25519 against libsodium's (the one signing.ts uses), in one
 * process, rounds alternating, over a message of a receipt's size (the DSSE pre-authentication
 * encoding of a ~600-byte statement). README *The receipt's signature with libsodium*.
 *   N=20000 ROUNDS=4 SIZE=700 node services/trust/scripts/sign-cost.ts
 */
import { randomBytes, sign } from "node:crypto";
import { signBytes, signingKey } from "../src/signing.ts";

const n = Number(process.env.N ?? 20_000);
const rounds = Number(process.env.ROUNDS ?? 4);
const message = randomBytes(Number(process.env.SIZE ?? 700));
const key = signingKey(randomBytes(32));
if (!signBytes(key, message).equals(sign(null, message, key.privateKey))) throw new Error("the signatures differ");

const paths: [string, () => Buffer][] = [
  ["node:crypto", () => sign(null, message, key.privateKey)],
  ["libsodium", () => signBytes(key, message)],
];
for (const [, f] of paths) for (let i = 0; i < 2_000; i++) f();

for (let round = 1; round <= rounds; round++) {
  const line: string[] = [];
  for (const [name, f] of round % 2 ? paths : [...paths].reverse()) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const used = process.cpuUsage(start);
    line.push(`${name} ${((used.user + used.system) / n).toFixed(1)} µs`);
  }
  console.log(`round ${round}: ${line.join(", ")}`);
}
