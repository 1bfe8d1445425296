/**
 * Trust's own CPU a receipt, without Postgres or the RPC: a batch of `B` receipts from their fields
 * to the append statement's values (signed envelope, leaf hash, the Merkle nodes the batch completes
 * against a right edge read from a 16,384-leaf tree, the recordset text, the nodes' hex), and the
 * Ed25519 signature alone beside it, so the rest is what the service adds around the floor of a
 * signed receipt. README *Trust's own CPU a run call*.
 *   B=4 BATCHES=5000 ROUNDS=5 node services/trust/scripts/receipt-cost.ts
 */
import { recordsetJson } from "../src/log-append.ts";
import { keyOf } from "../src/log-nodes.ts";
import { appendNodes, frontierOf, MerkleLevels } from "../src/merkle.ts";
import { type ReceiptFields, receiptRow } from "../src/receipts.ts";
import type { Context } from "../src/context.ts";
import { pae, PAYLOAD_TYPE, signBytes, signingKey } from "../src/signing.ts";

const B = Number(process.env.B ?? 4);
const BATCHES = Number(process.env.BATCHES ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const key = signingKey(Buffer.alloc(32, 7));
const ctx = { keys: { current: key } } as unknown as Context;

let n = 0;
const fields = (): ReceiptFields => ({
  tenant: "acme",
  requestId: `req_01JD${String(n++).padStart(22, "0")}`,
  runId: "run_01JDQ3W9XK2M7N4P5R6S8T0V1Y",
  permitId: "pmt_01JDQ3W9XK2M7N4P5R6S8T0V1Z",
  ability: "contact.get",
  inputHash: "a".repeat(64),
  resultHash: "b".repeat(64),
  status: 200,
  at: new Date(),
});

// Right edges at 64 sizes of a real tree, so each batch hashes the nodes a batch there completes.
const tree = new MerkleLevels(Array.from({ length: 1 << 14 }, () => receiptRow(ctx, fields()).leaf));
const edges = Array.from({ length: 64 }, (_, k) => {
  const size = 1000 + k * 37;
  return {
    size,
    frontier: new Map(frontierOf(size).map(({ level, idx }) => [keyOf(level, idx), tree.levels[level]![idx]!])),
  };
});

function batch(k: number): unknown[] {
  const rows = Array.from({ length: B }, () => receiptRow(ctx, fields()));
  const edge = edges[k % edges.length]!;
  const nodes = appendNodes(
    edge.size,
    edge.frontier,
    rows.map((r) => r.leaf),
  ).filter((x) => x.level > 0);
  return [recordsetJson(rows, edge.size), nodes.map((x) => x.hash.toString("hex"))];
}

const message = pae(PAYLOAD_TYPE, Buffer.from(receiptRow(ctx, fields()).envelope));
const cpu = (f: () => void, times: number): string => {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) f();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / (times * (f === signOnly ? 1 : B))).toFixed(1);
};
const signOnly = () => signBytes(key, message);
let k = 0;
const oneBatch = () => batch(k++);
for (let i = 0; i < 2000; i++) oneBatch();

for (let round = 1; round <= ROUNDS; round++)
  console.log(
    `round ${round}: a receipt ${cpu(oneBatch, BATCHES)} µs (batches of ${B}), its signature alone ${cpu(signOnly, BATCHES * B)} µs`,
  );
