/**
 * contact.update on the one-service harness: an update that waits longer than Prisma's own
 * interactive-transaction limit (5 s) for the contact's row, as it does behind a concurrent update
 * of the same contact on a loaded machine, still applies (the kit's client default,
 * TRANSACTION_LIMITS in kit/src/service.ts), and the change made meanwhile survives the merge.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";

let s: ServiceHarness<Context>;
before(async () => {
  s = await startService<Context>("workspace");
});
after(async () => s?.stop());

test("a contact.update that waits 6 s for the contact's row lock still applies", async () => {
  const created = await s.call("contact.create", { name: "Slow Lock", metadata: { a: "1" } }, { tenant: "acme" });
  const holder = await s.db.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM workspace.contacts WHERE id = $1 FOR UPDATE", [created.id]);
    const pending = s
      .call("contact.update", { id: created.id, company: "Held Ltd", metadata: { b: "2" } }, { tenant: "acme" })
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    await new Promise((r) => setTimeout(r, 6_000));
    await holder.query(`UPDATE workspace.contacts SET metadata = metadata || '{"c":"3"}' WHERE id = $1`, [created.id]);
    await holder.query("COMMIT");
    const outcome = await pending;
    assert.ok("result" in outcome, `contact.update failed: ${"error" in outcome ? JSON.stringify(outcome.error) : ""}`);
    assert.equal(outcome.result.company, "Held Ltd");
    assert.deepEqual(outcome.result.metadata, { a: "1", b: "2", c: "3" });
  } finally {
    holder.release();
  }
});
