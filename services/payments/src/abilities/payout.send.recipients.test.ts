/**
 * payout.send's recipient cache (src/recipient-cache.ts): a cold cache reads the recipient and
 * pays; a warm one pays without reading it; and whatever changed the recipient row since this
 * process cached it (SQL standing in for another replica, a new verification, a deletion), the
 * payout is built from the row as it is now, or refused as the row now says. Never from the copy.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { idempotentInsert, withTenant } from "@gantry/kit";
import { SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { acceptPayout, recipientChanged, recipientOf } from "../payout-writes.ts";
import { acceptance, newPayout } from "../payouts.ts";
import { sandboxProvider } from "../providers/sandbox.ts";
import type { ProviderName } from "../providers/types.ts";
import { assertLedgerBalanced, fund, type PaymentsTest, recipient, startPayments } from "../test/helpers.ts";

let t: PaymentsTest;
let reads = 0;
before(async () => {
  t = await startPayments();
  // Counts the recipient reads this process sends (the cache's misses), by statement name.
  const pool = t.ctx.pool;
  const query = pool.query;
  pool.query = function (this: typeof pool, q: unknown, ...rest: unknown[]) {
    if ((q as { name?: string })?.name === "payments.recipient_by_id") reads++;
    return (query as (...a: unknown[]) => unknown).call(this, q, ...rest);
  } as typeof pool.query;
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
});

let keys = 0;
const send = (tenant: string, recipientId: string, amount: number, currency = "USD") =>
  t.call("payout.send", { recipientId, amount, currency, idempotencyKey: `k${++keys}` }, { tenant });

async function stored(id: string): Promise<{ account_name: string; bank_name: string | null; status: string }> {
  const { rows } = await t.db.query(`SELECT account_name, bank_name, status FROM payments.payouts WHERE id = $1`, [id]);
  return rows[0];
}

test("a cold cache reads the recipient and pays; later payouts to it read it no more; another tenant's call is not served from it", async () => {
  const tenant = "cache-cold-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 100, "USD");
  const before = reads;
  const first = await send(tenant, rcp, 1);
  assert.equal(first.status, "paid");
  assert.equal(reads, before + 1);
  const [second, third] = [await send(tenant, rcp, 2), await send(tenant, rcp, 3)];
  assert.deepEqual([second.status, third.status], ["paid", "paid"]);
  assert.equal(reads, before + 1);
  await assert.rejects(send("cache-cold-other", rcp, 1), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/recipientId");
    return true;
  });
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 10000 - 600);
});

test("a recipient changed in the database since it was cached: the payout copies the row as it is, and its sandbox outcome follows the row", async () => {
  const tenant = "cache-sql-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 100, "USD");
  const firstInput = { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: "before-change" };
  const first = await t.call("payout.send", firstInput, { tenant });
  assert.equal(first.destination.accountName, "ADA OBI");

  // Not through this process, and verified_at left as it was: only the copied fields differ.
  await t.db.query(
    `UPDATE payments.recipients SET account_name = 'GRACE HOPPER', bank_name = 'New Bank' WHERE id = $1`,
    [rcp],
  );
  const renamed = await send(tenant, rcp, 2);
  assert.equal(renamed.status, "paid");
  assert.equal(renamed.destination.accountName, "GRACE HOPPER");
  assert.equal(renamed.destination.bankName, "New Bank");
  assert.deepEqual(await stored(renamed.id), { account_name: "GRACE HOPPER", bank_name: "New Bank", status: "paid" });
  // A replay answers the first payout as it was made: a taken key checks no recipient.
  assert.deepEqual(await t.call("payout.send", firstInput, { tenant }), first);

  // The sandbox closes accounts ending 0002: the row now names one, so the payout fails and its money comes back.
  await t.db.query(`UPDATE payments.recipients SET account_number_last4 = '0002' WHERE id = $1`, [rcp]);
  const closed = await send(tenant, rcp, 3);
  assert.equal(closed.status, "failed");
  assert.equal(closed.failureCode, "account_closed");
  assert.equal(closed.destination.accountNumberLast4, "0002");
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 10000 - 300);
  assert.equal(bal.balances[0].reserved.minor, 0);
});

test("a recipient verified again since it was cached (another replica's payout.verify_account): the payout copies the new verification", async () => {
  const tenant = "cache-verify-co";
  const account = { country: "NG", currency: "USD", accountNumber: "0155554321", bankCode: "058" };
  const first = await t.call("payout.verify_account", { ...account, accountName: "Ada Obi" }, { tenant });
  await fund(t, tenant, 100, "USD");
  assert.equal((await send(tenant, first.id, 1)).destination.accountName, "ADA OBI");
  const again = await t.call("payout.verify_account", { ...account, accountName: "Ada Obi-Lovelace" }, { tenant });
  assert.equal(again.id, first.id);
  const po = await send(tenant, first.id, 2);
  assert.equal(po.destination.accountName, "ADA OBI-LOVELACE");
  assert.equal((await stored(po.id)).account_name, "ADA OBI-LOVELACE");
});

test("a recipient deleted or moved to another currency since it was cached: refused as the row says, nothing recorded, the key unused", async () => {
  const tenant = "cache-gone-co";
  const moved = await recipient(t, tenant, "USD");
  const gone = await recipient(t, tenant, "USD");
  await fund(t, tenant, 100, "USD");
  await send(tenant, moved, 1);
  await send(tenant, gone, 1);
  const payouts = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM payments.payouts WHERE tenant = $1`, [tenant])).rows[0].n;
  const keysUsed = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM payments.idempotency_records WHERE tenant = $1`, [tenant]))
      .rows[0].n;
  const [payoutsBefore, keysBefore] = [await payouts(), await keysUsed()];

  await t.db.query(`UPDATE payments.recipients SET currency = 'EUR' WHERE id = $1`, [moved]);
  await assert.rejects(send(tenant, moved, 1), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].code, "recipient_currency");
    assert.match(err.message, /receives EUR/);
    return true;
  });
  await t.db.query(`DELETE FROM payments.recipients WHERE id = $1`, [gone]);
  await assert.rejects(send(tenant, gone, 1), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/recipientId");
    return true;
  });
  assert.equal(await payouts(), payoutsBefore);
  assert.equal(await keysUsed(), keysBefore);
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 10000 - 200);
});

test("a cached recipient whose provider cannot be had is refused only while the row says so", async () => {
  const tenant = "cache-provider-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 100, "USD");
  // A live provider_b recipient in a deployment where provider_b is the sandbox: no provider for it.
  await t.db.query(`UPDATE payments.recipients SET mode = 'live' WHERE id = $1`, [rcp]);
  await assert.rejects(send(tenant, rcp, 1), { code: "unavailable" });
  await assert.rejects(send(tenant, rcp, 1), { code: "unavailable" });
  await t.db.query(`UPDATE payments.recipients SET mode = 'sandbox' WHERE id = $1`, [rcp]);
  const po = await send(tenant, rcp, 1);
  assert.equal(po.status, "paid");
  assert.equal(po.mode, "sandbox");
});

test("the accepting statement refuses a recipient that is not the row, and its key's claim rolls back with it", async () => {
  const tenant = "cache-stale-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 100, "USD");
  const input = { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: "stale-1" };
  const write = (verifiedAt?: Date) =>
    withTenant(tenant, async () => {
      const row = (await recipientOf(t.ctx.pool, rcp, tenant))!;
      const r = verifiedAt ? { ...row, verifiedAt } : row;
      const id = newId("payout");
      const p = newPayout({
        id,
        call: { tenant, requestId: "req_stale" },
        recipient: r,
        provider: sandboxProvider(r.provider as ProviderName),
        amountMinor: 100n,
        currency: "USD",
        description: null,
        reference: null,
        idempotencyKey: input.idempotencyKey,
        metadata: {},
        batchId: null,
        position: 0,
        at: new Date(),
      });
      const { record, journals, event } = acceptance(p, undefined);
      return idempotentInsert({
        pool: t.ctx.pool,
        schema: SCHEMA,
        call: { tenant, requestId: "req_stale" } as any,
        ability: "payout.send",
        input,
        recordId: id,
        insert: acceptPayout(record, r, journals, event),
        result: () => record,
        replay: async () => record,
        claimFirst: true,
      });
    });
  // An earlier verification than the row's: refused, nothing written, the key free.
  await assert.rejects(write(new Date(Date.now() - 60_000)), (err) => recipientChanged(err));
  const { rows } = await t.db.query(
    `SELECT (SELECT count(*)::int FROM payments.idempotency_records WHERE tenant = $1) AS keys,
            (SELECT count(*)::int FROM payments.payouts WHERE tenant = $1) AS payouts`,
    [tenant],
  );
  assert.deepEqual(rows[0], { keys: 0, payouts: 0 });
  // The row as it is: accepted under the same key.
  const { created } = await write();
  assert.equal(created, true);
});
