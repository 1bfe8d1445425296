/**
 * context.verticalId on payments and payouts (issue 32 item 7): a payment, a payout and a batch
 * made under a vertical show it (and status reads keep it); one made without shows null; the lists'
 * `vertical` filter returns only that vertical's records.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  assertLedgerBalanced,
  fund,
  type PaymentsTest,
  plansWithoutSeqScan,
  recipient,
  startPayments,
} from "./helpers.ts";

let t: PaymentsTest;
before(async () => {
  t = await startPayments();
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
});

test("payment.initiate stores context.verticalId; payment.status shows it; payment.list filters by vertical", async () => {
  const tenant = "vertical-pay";
  const clinic = await t.call("payment.initiate", { amount: 20, currency: "USD" }, { tenant, verticalId: "clinic" });
  assert.equal(clinic.vertical, "clinic");
  const salon = await t.call("payment.initiate", { amount: 30, currency: "USD" }, { tenant, verticalId: "salon" });
  const none = await t.call("payment.initiate", { amount: 40, currency: "USD" }, { tenant });
  assert.equal(none.vertical, null);
  assert.equal((await t.call("payment.status", { id: clinic.id }, { tenant })).vertical, "clinic");

  const onlyClinic = await t.call("payment.list", { vertical: "clinic" }, { tenant });
  assert.deepEqual(
    onlyClinic.items.map((p: any) => [p.id, p.vertical]),
    [[clinic.id, "clinic"]],
  );
  const all = await t.call("payment.list", {}, { tenant });
  assert.deepEqual(all.items.map((p: any) => p.id).sort(), [clinic.id, salon.id, none.id].sort());
  // The filter is the tenant's: another tenant's records of the same vertical are not listed.
  await t.call(
    "payment.initiate",
    { amount: 5, currency: "USD" },
    { tenant: "vertical-pay-other", verticalId: "clinic" },
  );
  assert.equal((await t.call("payment.list", { vertical: "clinic" }, { tenant })).items.length, 1);
  await assert.rejects(t.call("payment.list", { vertical: "no spaces" }, { tenant }), { code: "validation_failed" });
});

test("payout.send and payout.batch store context.verticalId; payout.list filters by vertical", async () => {
  const tenant = "vertical-payout";
  await fund(t, tenant, 1000, "NGN");
  const rcp = await recipient(t, tenant, "NGN");
  const single = await t.call(
    "payout.send",
    { recipientId: rcp, amount: 10, currency: "NGN", idempotencyKey: "v-single" },
    { tenant, verticalId: "clinic" },
  );
  assert.equal(single.vertical, "clinic");
  assert.equal((await t.call("payout.status", { id: single.id }, { tenant })).vertical, "clinic");
  const batch = await t.call(
    "payout.batch",
    {
      items: [
        { recipientId: rcp, amount: 1, currency: "NGN", reference: "a" },
        { recipientId: rcp, amount: 2, currency: "NGN", reference: "b" },
      ],
      idempotencyKey: "v-batch",
    },
    { tenant, verticalId: "salon" },
  );
  assert.equal(batch.vertical, "salon");
  assert.deepEqual(
    batch.items.map((i: any) => i.vertical),
    ["salon", "salon"],
  );
  const plain = await t.call(
    "payout.send",
    { recipientId: rcp, amount: 3, currency: "NGN", idempotencyKey: "v-none" },
    { tenant },
  );
  assert.equal(plain.vertical, null);

  const clinic = await t.call("payout.list", { vertical: "clinic" }, { tenant });
  assert.deepEqual(
    clinic.items.map((p: any) => [p.id, p.vertical]),
    [[single.id, "clinic"]],
  );
  const salon = await t.call("payout.list", { vertical: "salon" }, { tenant });
  assert.deepEqual(salon.items.map((p: any) => p.id).sort(), batch.items.map((i: any) => i.id).sort());
  assert.equal((await t.call("payout.list", {}, { tenant })).items.length, 4);
});

test("the lists' vertical filter is served by the (tenant, vertical) indexes, partial since migration 20270108000000", async () => {
  // Both tables hold records with and without a vertical from the tests above.
  const plans = await plansWithoutSeqScan(
    t,
    [
      `SELECT count(*) FROM payments.payments WHERE tenant = $1 AND vertical = $2`,
      `SELECT count(*) FROM payments.payouts WHERE tenant = $1 AND vertical = $2`,
    ],
    ["vertical-payout", "clinic"],
  );
  assert.match(plans[0], /payments_tenant_vertical_idx/, plans[0]);
  assert.match(plans[1], /payouts_tenant_vertical_idx/, plans[1]);
});
