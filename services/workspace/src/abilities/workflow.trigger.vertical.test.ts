/**
 * context.verticalId on workflow runs, through the gateway (issue 32 item 7): a run triggered under
 * a vertical shows it, and the run's row keeps it; one triggered without shows null.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "../test/helpers.ts";

let t: TestStack;
let k: Keys;

before(async () => {
  t = await startWorkspaceStack();
  k = await tenantKeys(t);
});
after(async () => {
  await t?.stop();
});

test("workflow.trigger keeps context.verticalId on the run", async () => {
  const r = await ok(t, "workflow.trigger", { workflow: "send-booking-reminders" }, k.acme, { verticalId: "clinic" });
  assert.equal(r.vertical, "clinic");
  const plain = await ok(t, "workflow.trigger", { workflow: "send-booking-reminders" }, k.acme);
  assert.equal(plain.vertical, null);
  const { rows } = await t.db.query(
    `SELECT id, vertical FROM workspace.workflow_runs WHERE id = ANY($1) ORDER BY vertical NULLS LAST`,
    [[r.runId, plain.runId]],
  );
  assert.deepEqual(rows, [
    { id: r.runId, vertical: "clinic" },
    { id: plain.runId, vertical: null },
  ]);
  // A replay (same idempotencyKey) answers the stored run, vertical included.
  const first = await ok(t, "workflow.trigger", { workflow: "nightly", idempotencyKey: "v-1" }, k.acme, {
    verticalId: "salon",
  });
  const again = await ok(t, "workflow.trigger", { workflow: "nightly", idempotencyKey: "v-1" }, k.acme, {
    verticalId: "salon",
  });
  assert.equal(again.runId, first.runId);
  assert.equal(again.vertical, "salon");
});
