/**
 * An independent verifier, one Gantry did not write, holds the receipt log to its proofs: Go's
 * golang.org/x/mod/sumdb/note and sumdb/tlog, in the small program bench/tlog-verify (built once into
 * the tools cache: infra/testing/go-tool.ts). Receipts are made through the whole stack (gateway +
 * keys + trust + workspace); the program checks the checkpoint's signature (note.Open, with the
 * verifier key it derives from the gateway's JWKS), the inclusion of every receipt
 * (tlog.CheckRecord on the leaf data: the envelope's canonical JSON) and the consistency of kept
 * earlier checkpoints with the later one (tlog.CheckTree). A tampered inclusion or consistency
 * proof, a tampered root (unsigned, or signed by a key the verifier trusts), a changed receipt and
 * a wrong key are each refused, so the test fails if Gantry's proofs or notes are wrong. The same
 * program then reads the log from its public C2SP tlog-tiles URLs only (tlog.TileHashReader) and
 * proves every entry and the kept checkpoint's consistency from the tiles. Skipped,
 * saying why, where there is no Go toolchain.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import request from "supertest";
import { canonicalJson } from "@gantry/kit";
import { buildGoTool, GO_SKIP } from "@gantry/infra/testing/go-tool.ts";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { jwks as jwksOf, signCheckpoint, signingKey } from "../signing.ts";

interface Result {
  code: number | null;
  out: {
    ok: boolean;
    verifierKeys: string[];
    checkpoint?: { origin: string; size: number; root: string; signedBy: string[] };
    checked: string[];
    problems: string[];
  };
  stderr: string;
}

const skip = GO_SKIP;
let t: TestStack;
let bin: string;
let key: string;
let jwks: { keys: { kid: string; x: string }[] };

before(async () => {
  if (skip) return;
  bin = buildGoTool("bench/tlog-verify", "tlog-verify");
  t = await startTestStack({ services: ["keys", "trust", "workspace"], healthTimeoutMs: 120_000 });
  key = (await t.insertKey({ tenant: "audited", name: "auditor" })).key;
  jwks = (await request(t.url).get("/.well-known/jwks.json").expect(200)).body;
});
after(async () => {
  await t?.stop();
});

function tlogVerify(input: unknown): Result {
  const r = spawnSync(bin, [], { input: JSON.stringify(input), encoding: "utf8", timeout: 30_000 });
  assert.notEqual(r.status, 2, `tlog-verify could not read its input: ${r.stderr}`);
  return { code: r.status, out: JSON.parse(r.stdout), stderr: r.stderr };
}

function refused(r: Result, problem: RegExp): void {
  assert.equal(r.code, 1, JSON.stringify(r.out));
  assert.equal(r.out.ok, false);
  assert.ok(
    r.out.problems.some((p) => problem.test(p)),
    `expected a problem like ${problem}: ${JSON.stringify(r.out.problems)}`,
  );
}

const flip = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);

test("Go's sumdb/note and sumdb/tlog verify Gantry's checkpoints, receipts and log growth, and refuse tampering", {
  skip,
}, async () => {
  const inputs = Array.from({ length: 7 }, (_, i) => ({ name: `Audited Person ${i}` }));
  const run = (
    await t
      .call(
        "trust.preflight",
        { input: { task: "Record customers", actions: inputs.map((input) => ({ ability: "contact.create", input })) } },
        key,
      )
      .expect(200)
  ).body.result;
  const callUnderRun = async (i: number) =>
    t.call("contact.create", { input: inputs[i], context: { runId: run.id } }, key).expect(200);
  const status = async (logFromSize?: number) =>
    (await t.call("trust.status", { input: { runId: run.id, logFromSize } }, key).expect(200)).body.result;

  // Checkpoints kept at sizes 1 and 3 (a power of two and not), then the log grows to 7.
  await callUnderRun(0);
  const one = (await status()).log;
  for (const i of [1, 2]) await callUnderRun(i);
  const three = (await status()).log;
  for (const i of [3, 4, 5, 6]) await callUnderRun(i);
  const seven = await status(3);
  const log = seven.log;
  assert.equal(log.treeSize, 7);
  const fromOne = (await status(1)).log;
  assert.equal(fromOne.checkpoint, log.checkpoint, "the checkpoint of a size is the same note each time");

  const receipts = seven.permits.map((p: { receipt: any }) => p.receipt);
  assert.equal(receipts.length, 7);
  const records = receipts.map((r: any) => {
    assert.equal(r.inclusion.checkpoint, log.checkpoint, "every receipt is proven against the answer's checkpoint");
    return { index: r.inclusion.logIndex, data: canonicalJson(r.envelope), proof: r.inclusion.hashes };
  });
  const origin = "gantry.trust/receipts/audited";
  const good = {
    jwks,
    origin,
    checkpoint: log.checkpoint,
    records,
    earlier: { checkpoint: three.checkpoint, proof: log.consistency.hashes },
  };

  const all = tlogVerify(good);
  assert.equal(all.code, 0, JSON.stringify(all.out));
  assert.equal(all.out.ok, true);
  assert.deepEqual(all.out.checkpoint, {
    origin,
    size: 7,
    root: log.rootHash,
    signedBy: [jwks.keys[0]!.kid],
  });
  assert.equal(all.out.checked.filter((c) => /: included in the tree of 7$/.test(c)).length, 7);
  assert.ok(all.out.checked.includes("consistency: the tree of 7 extends the tree of 3"), all.out.checked.join("\n"));
  // The C2SP verifier key note derives from the JWKS names the kid and its key hash.
  const [vkey] = all.out.verifierKeys;
  assert.match(vkey!, /^ed25519:[0-9a-f]{16}\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);

  // The same with only that verifier key, and from the kept checkpoint of 1.
  const byVkey = tlogVerify({
    verifierKeys: [vkey],
    checkpoint: fromOne.checkpoint,
    earlier: { checkpoint: one.checkpoint, proof: fromOne.consistency.hashes },
  });
  assert.equal(byVkey.code, 0, JSON.stringify(byVkey.out));
  assert.ok(byVkey.out.checked.includes("consistency: the tree of 7 extends the tree of 1"));
  // A kept checkpoint of the same size: consistent with an empty proof.
  const same = tlogVerify({ jwks, checkpoint: three.checkpoint, earlier: { checkpoint: three.checkpoint, proof: [] } });
  assert.equal(same.code, 0, JSON.stringify(same.out));

  // A tampered inclusion proof.
  const badPath = records.map((r: any, i: number) =>
    i === 4 ? { ...r, proof: [flip(r.proof[0]), ...r.proof.slice(1)] } : r,
  );
  refused(tlogVerify({ ...good, records: badPath }), /^record 4 \(leaf \d+\): inclusion: /);
  // A proof for another leaf index, and a changed receipt.
  refused(tlogVerify({ ...good, records: [{ ...records[0], index: records[1].index }] }), /inclusion/);
  const changed = { ...receipts[2].envelope, payloadType: "text/plain" };
  refused(tlogVerify({ ...good, records: [{ ...records[2], data: canonicalJson(changed) }] }), /inclusion/);
  // A tampered consistency proof.
  const badProof = [...log.consistency.hashes];
  badProof[badProof.length - 1] = flip(badProof.at(-1));
  refused(
    tlogVerify({ ...good, earlier: { checkpoint: three.checkpoint, proof: badProof } }),
    /^consistency: from 3 to 7: /,
  );
  // A consistency proof for another pair of sizes.
  refused(
    tlogVerify({ ...good, earlier: { checkpoint: one.checkpoint, proof: log.consistency.hashes } }),
    /^consistency/,
  );

  // A tampered root: the note's signature no longer holds.
  const [body, sigs] = log.checkpoint.split("\n\n");
  const lines = body.split("\n");
  const otherRoot = randomBytes(32);
  const tamperedNote = `${lines[0]}\n${lines[1]}\n${otherRoot.toString("base64")}\n\n${sigs}`;
  refused(tlogVerify({ ...good, checkpoint: tamperedNote }), /^checkpoint: signature: /);
  // …and signed by a key the verifier trusts: the proofs do not lead to it.
  const rogue = signingKey(randomBytes(32));
  const resigned = signCheckpoint(rogue, origin, 7, otherRoot);
  const trusting = { ...good, jwks: { keys: [...jwks.keys, ...jwksOf(new Map([[rogue.kid, rogue.publicKey]])).keys] } };
  const r = tlogVerify({ ...trusting, checkpoint: resigned });
  assert.equal(r.code, 1);
  assert.equal(r.out.problems.filter((p) => /inclusion/.test(p)).length, 7, JSON.stringify(r.out.problems));
  assert.ok(
    r.out.problems.some((p) => /^consistency: from 3 to 7: /.test(p)),
    JSON.stringify(r.out.problems),
  );

  // A wrong key under the right name: nothing verifies.
  const wrong = { keys: [{ ...jwks.keys[0]!, x: rawX(signingKey(randomBytes(32))) }] };
  refused(tlogVerify({ ...good, jwks: wrong }), /^checkpoint: signature: /);
  // A checkpoint of another tenant's log, when the origin is pinned.
  refused(tlogVerify({ ...good, origin: "gantry.trust/receipts/someone-else" }), /^checkpoint: of the log /);

  // The same log from its public tlog-tiles URLs alone (no key): x/mod's TileHashReader accepts a
  // tile only if it leads to the signed root; every entry is proven included and the kept
  // checkpoint of 3 consistent, from tiles.
  const tiles = { base: `${t.url}/v1/logs/${log.logId}/` };
  const fromTiles = tlogVerify({ jwks, origin, tiles, earlier: { checkpoint: three.checkpoint } });
  assert.equal(fromTiles.code, 0, JSON.stringify(fromTiles.out));
  assert.equal(fromTiles.out.checkpoint?.size, 7);
  assert.equal(fromTiles.out.checked.filter((c) => /^tiles: entry \d+ included in the tree of 7$/.test(c)).length, 7);
  assert.ok(fromTiles.out.checked.includes("tiles: consistency: the tree of 7 extends the tree of 3"));
  // A checkpoint for another root, signed by a key the verifier trusts: the served tiles do not lead to it.
  refused(tlogVerify({ ...trusting, checkpoint: resigned, tiles }), /^tiles: /);
  // A receipt changed in the database after the fact: its entry no longer hashes to the tile's leaf.
  await t.db.query(
    `UPDATE trust.receipts SET envelope = jsonb_set(envelope, '{payloadType}', '"text/plain"') WHERE tenant = 'audited' AND log_index = 5`,
  );
  refused(tlogVerify({ jwks, origin, tiles }), /^tiles: entry 5: /);
});

function rawX(k: ReturnType<typeof signingKey>): string {
  return jwksOf(new Map([[k.kid, k.publicKey]])).keys[0]!.x;
}
