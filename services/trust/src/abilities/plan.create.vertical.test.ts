/**
 * plan.create's vertical, through the gateway (issue 32 item 7): the input's `vertical`, else the
 * call's context.verticalId (as task.create), else null; the input wins over the context.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
let acme: string;

before(async () => {
  t = await startTestStack({
    services: ["keys", "trust", "memory"],
    healthTimeoutMs: 120_000,
    env: { EMBEDDER: "lexical" },
  });
  acme = (await t.insertKey({ tenant: "acme" })).key;
});
after(async () => {
  await t?.stop();
});

async function plan(input: object, context?: Record<string, string>): Promise<any> {
  const res = await t.call("plan.create", { input, ...(context ? { context } : {}) }, acme);
  assert.equal(res.status, 200, `plan.create → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

test("plan.create: the vertical defaults to context.verticalId; the input's wins; none is null", async () => {
  const fromContext = await plan({ goal: "Launch online booking" }, { verticalId: "clinic" });
  assert.equal(fromContext.vertical, "clinic");
  const fromInput = await plan({ goal: "Launch online booking", vertical: "salon" }, { verticalId: "clinic" });
  assert.equal(fromInput.vertical, "salon");
  const none = await plan({ goal: "Launch online booking" });
  assert.equal(none.vertical, null);
  const { rows } = await t.db.query(
    "SELECT id, vertical FROM trust.plans WHERE id = ANY($1) ORDER BY vertical NULLS LAST",
    [[fromContext.id, fromInput.id, none.id]],
  );
  assert.deepEqual(
    rows.map((r: { vertical: string | null }) => r.vertical),
    ["clinic", "salon", null],
  );
});
