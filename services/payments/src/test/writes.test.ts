/**
 * The hot writes of payment.initiate and payout.send (src/payment-writes.ts, src/payout-writes.ts):
 * all or nothing when a step fails inside them (the idempotency row, the record, its history and
 * its ledger journal together), a refused payout leaving its key unused, payout.send's effects
 * as a user sees them (the journals, the balance, the NATS event), and a payout's one-statement move
 * happening once under a race and not at all from a stale status.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { runPrepared, withTenant } from "@gantry/kit";
import { newId } from "../ids.ts";
import { paymentById } from "../payment-writes.ts";
import { acceptPayout, movePayout, payoutById, recipientOf } from "../payout-writes.ts";
import { paymentOut, payoutOut } from "../records.ts";
import { acceptance, advancePayout, newPayout } from "../payouts.ts";
import { sandboxProvider } from "../providers/sandbox.ts";
import type { ProviderName } from "../providers/types.ts";
import { assertLedgerBalanced, fund, type PaymentsTest, recipient, startPayments, watchEvents } from "./helpers.ts";

let t: PaymentsTest;
before(async () => {
  t = await startPayments();
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
});

/** Makes Postgres fail every insert into `table` for `tenant` (a crash between two of the writes). */
async function failInserts(table: string, tenant: string): Promise<() => Promise<void>> {
  const fn = `fail_${table}_${tenant.replaceAll("-", "_")}`;
  await t.db.query(
    `CREATE FUNCTION payments.${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.tenant = '${tenant}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`,
  );
  await t.db.query(
    `CREATE TRIGGER ${fn} BEFORE INSERT ON payments.${table} FOR EACH ROW EXECUTE FUNCTION payments.${fn}()`,
  );
  return async () => {
    await t.db.query(`DROP TRIGGER ${fn} ON payments.${table}`);
    await t.db.query(`DROP FUNCTION payments.${fn}()`);
  };
}

async function count(table: string, tenant: string): Promise<number> {
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM payments.${table} WHERE tenant = $1`, [tenant]);
  return rows[0].n;
}

test("payment.initiate: a failed history write leaves no payment and no used key; the retry creates it once", async () => {
  const tenant = "crash-pay-co";
  const input = { amount: 12.5, currency: "USD", idempotencyKey: "order-1" };
  const restore = await failInserts("payment_events", tenant);
  try {
    await assert.rejects(t.call("payment.initiate", input, { tenant }));
    assert.equal(await count("payments", tenant), 0);
    assert.equal(await count("idempotency_records", tenant), 0);
  } finally {
    await restore();
  }
  const p = await t.call("payment.initiate", input, { tenant });
  assert.equal(p.status, "pending");
  assert.match(p.checkoutUrl, /^https:\/\/sandbox\.gantry\.invalid\/pay\//);
  assert.equal(p.providerReference, `sandbox_${p.id}`);
  const again = await t.call("payment.initiate", input, { tenant });
  assert.equal(again.id, p.id);
  assert.equal(again.checkoutUrl, p.checkoutUrl);
  assert.equal(await count("payments", tenant), 1);
  const s = await t.call("payment.status", { id: p.id }, { tenant });
  assert.deepEqual(
    s.history.map((h: any) => [h.from, h.to, h.source]),
    [
      [null, "pending", "api"],
      ["pending", "succeeded", "poll"],
    ],
  );
});

test("payout.send: a failed reservation leaves no payout, no journal and no used key; the balance is untouched", async () => {
  const tenant = "crash-payout-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 50, "USD");
  const input = { recipientId: rcp, amount: 20, currency: "USD", idempotencyKey: "payout-1" };
  const restore = await failInserts("ledger_journals", tenant);
  try {
    await assert.rejects(t.call("payout.send", input, { tenant }));
  } finally {
    await restore();
  }
  assert.equal(await count("payouts", tenant), 0);
  assert.equal(await count("idempotency_records", tenant), 0);
  const { rows } = await t.db.query(
    `SELECT count(*)::int AS n FROM payments.ledger_entries WHERE ref_type = 'payout' AND tenant = $1`,
    [tenant],
  );
  assert.equal(rows[0].n, 0);
  assert.equal((await t.call("payout.balance", { currency: "USD" }, { tenant })).balances[0].available.minor, 5000);

  const paid = await t.call("payout.send", input, { tenant });
  assert.equal(paid.status, "paid");
  assert.equal((await t.call("payout.balance", { currency: "USD" }, { tenant })).balances[0].available.minor, 3000);
});

test("payout.send replayed while the balance row is locked answers at once: the key is claimed before the balance", async () => {
  const tenant = "replay-lock-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 50, "USD");
  const input = { recipientId: rcp, amount: 5, currency: "USD", idempotencyKey: "weekly" };
  const first = await t.call("payout.send", input, { tenant });
  // Another writer of this balance holds its row (as a payout does from its ledger lines to its commit).
  const holder = await t.db.connect();
  try {
    await holder.query("BEGIN");
    const { rowCount } = await holder.query(
      "SELECT 1 FROM payments.balances WHERE tenant = $1 AND settlement_account = 'sandbox' AND currency = 'USD' FOR UPDATE",
      [tenant],
    );
    assert.equal(rowCount, 1);
    const replay = await Promise.race([
      t.call("payout.send", input, { tenant }),
      new Promise((resolve) => setTimeout(() => resolve("waited on the balance lock"), 3_000)),
    ]);
    assert.equal((replay as { id?: string }).id, first.id);
  } finally {
    await holder.query("ROLLBACK");
    holder.release();
  }
  assert.equal(await count("payouts", tenant), 1);
});

/**
 * Statements any pg client of this process sends while `fn` runs (the service runs in process),
 * once the outbox relay has sent the events before it. The relay's later polls and a pooled
 * connection's change of tenant scope (sent only when the pool hands over a connection last used for
 * another tenant) can fall inside the window on any call (CI saw 3 for 2 once), so they are not counted.
 */
async function statementsDuring(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; (await t.db.query("SELECT 1 FROM payments.outbox")).rowCount; i++) {
    assert.ok(i < 250, "the outbox relay did not empty the outbox within 5 s");
    await new Promise((r) => setTimeout(r, 20));
  }
  const query = pg.Client.prototype.query;
  const sent: string[] = [];
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string } | undefined;
    sent.push(typeof first === "string" ? first : (first?.text ?? first?.name ?? ""));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  };
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = query;
  }
  // The relay's statements and a tenant scope's change both begin with set_config; a call's own never do.
  return sent.filter((text) => !text.includes("set_config")).length;
}

test("a replay reads its key and its record in one statement (payment.initiate 2 in all, payout.send 2: its recipient is cached since the first call) and answers the record as stored now", async () => {
  const tenant = "replay-reads-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 50, "USD");
  const payment = { amount: 12.5, currency: "USD", idempotencyKey: "order-1" };
  const first = await t.call("payment.initiate", payment, { tenant });
  // Moved since the first answer: a replay shows the record, not a copy of that answer.
  assert.equal((await t.call("payment.status", { id: first.id }, { tenant })).status, "succeeded");
  let replay: { id: string; status: string; amount: unknown } | undefined;
  assert.equal(await statementsDuring(async () => (replay = await t.call("payment.initiate", payment, { tenant }))), 2);
  assert.deepEqual([replay?.id, replay?.status, replay?.amount], [first.id, "succeeded", first.amount]);

  const payout = { recipientId: rcp, amount: 5, currency: "USD", idempotencyKey: "weekly" };
  const sent = await t.call("payout.send", payout, { tenant });
  let again: { id: string; status: string } | undefined;
  // The first call cached the recipient (src/recipient-cache.ts): the replay is the statement and the lookup.
  assert.equal(await statementsDuring(async () => (again = await t.call("payout.send", payout, { tenant }))), 2);
  assert.deepEqual(again, sent);
  // The key's other tenant has no such key: a first use there, not the record above.
  const other = await t.call("payment.initiate", payment, { tenant: "replay-reads-other" });
  assert.notEqual(other.id, first.id);
});

test("payout.send refused for the balance uses no key: once funded, the same key sends it", async () => {
  const tenant = "short-co";
  const rcp = await recipient(t, tenant, "EUR");
  await fund(t, tenant, 10, "EUR");
  const input = { recipientId: rcp, amount: 25, currency: "EUR", idempotencyKey: "rent" };
  await assert.rejects(t.call("payout.send", input, { tenant }), (err: any) => {
    assert.equal(err.code, "conflict");
    assert.equal(err.details[0].code, "insufficient_balance");
    assert.equal(err.details[0].path, "/input/amount");
    assert.deepEqual(err.details[0].available, { amount: 10, currency: "EUR", minor: 1000 });
    return true;
  });
  assert.equal(await count("payouts", tenant), 0);
  assert.equal(await count("idempotency_records", tenant), 0);
  await fund(t, tenant, 20, "EUR");
  const sent = await t.call("payout.send", input, { tenant });
  assert.equal(sent.status, "paid");
  assert.equal((await t.call("payout.balance", { currency: "EUR" }, { tenant })).balances[0].available.minor, 500);
});

test("12 concurrent payouts against a balance for 11: exactly 11 are paid, the 12th is refused with nothing left", async () => {
  const tenant = "race-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 11, "USD");
  const outcomes = await Promise.allSettled(
    Array.from({ length: 12 }, (_, i) =>
      t.call("payout.send", { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: `race-${i}` }, { tenant }),
    ),
  );
  const paid = outcomes.filter((o) => o.status === "fulfilled");
  const refused = outcomes.filter((o) => o.status === "rejected") as PromiseRejectedResult[];
  assert.equal(paid.length, 11);
  assert.equal(refused.length, 1);
  // Refused after the other 11 reserved: what it saw available was nothing.
  assert.equal(refused[0].reason.details[0].code, "insufficient_balance");
  assert.deepEqual(refused[0].reason.details[0].available, { amount: 0, currency: "USD", minor: 0 });
  assert.equal(await count("payouts", tenant), 11);
  assert.equal(await count("idempotency_records", tenant), 11);
  const [row] = (
    await t.db.query(`SELECT available::int, reserved::int FROM payments.balances WHERE tenant = $1`, [tenant])
  ).rows;
  assert.deepEqual(row, { available: 0, reserved: 0 });
});

test("a batch racing single payouts for one balance: the batch locks the row, nothing overdraws, every refusal is a 409", async () => {
  const tenant = "batch-race-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 10, "USD");
  const send = (i: number) =>
    t.call("payout.send", { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: `single-${i}` }, { tenant });
  const [batch, ...singles] = await Promise.allSettled([
    t.call(
      "payout.batch",
      {
        items: [
          { recipientId: rcp, amount: 3, currency: "USD", reference: "a" },
          { recipientId: rcp, amount: 3, currency: "USD", reference: "b" },
        ],
        idempotencyKey: "race-batch",
      },
      { tenant },
    ),
    ...Array.from({ length: 6 }, (_, i) => send(i)),
  ]);
  for (const refused of [batch, ...singles].filter((o) => o.status === "rejected") as PromiseRejectedResult[]) {
    assert.equal(refused.reason.code, "conflict", String(refused.reason));
    assert.equal(refused.reason.details[0].code, "insufficient_balance");
  }
  const sent = singles.filter((o) => o.status === "fulfilled").length;
  // 6 + 4 singles, or the batch refused after 5 or more singles and all 6 paid.
  assert.deepEqual(
    batch.status === "fulfilled" ? [6, sent] : [0, sent],
    batch.status === "fulfilled" ? [6, 4] : [0, 6],
  );
  const [row] = (
    await t.db.query(`SELECT available::int, reserved::int FROM payments.balances WHERE tenant = $1`, [tenant])
  ).rows;
  assert.equal(row.available + row.reserved, batch.status === "fulfilled" ? 0 : 400);
  assert.ok(row.available >= 0);
});

test("a payout the sandbox fails is still refused beyond the balance: the reservation is checked, not the net move", async () => {
  const tenant = "closed-short-co";
  const closed = await recipient(t, tenant, "USD", "0002");
  await fund(t, tenant, 5, "USD");
  const input = { recipientId: closed, amount: 6, currency: "USD", idempotencyKey: "closed-1" };
  await assert.rejects(t.call("payout.send", input, { tenant }), (err: any) => {
    assert.equal(err.details[0].code, "insufficient_balance");
    assert.equal(err.details[0].available.minor, 500);
    return true;
  });
  assert.equal(await count("payouts", tenant), 0);
  const within = await t.call("payout.send", { ...input, amount: 5, idempotencyKey: "closed-2" }, { tenant });
  assert.equal(within.status, "failed");
});

test("payout.send: reserved then paid in the ledger, and payments.payout.paid on NATS", async () => {
  const tenant = "payout-events-co";
  const rcp = await recipient(t, tenant, "GBP");
  await fund(t, tenant, 30, "GBP");
  const events = watchEvents(t, "payments.payout.paid");
  const p = await t.call(
    "payout.send",
    { recipientId: rcp, amount: 12.34, currency: "GBP", idempotencyKey: "k1", metadata: { invoice: "42" } },
    { tenant },
  );
  assert.equal(p.status, "paid");
  assert.deepEqual(p.amount, { amount: 12.34, currency: "GBP", minor: 1234 });
  assert.deepEqual(p.metadata, { invoice: "42" });
  assert.equal(p.idempotencyKey, "k1");
  assert.ok(p.paid);
  const { rows } = await t.db.query(
    `SELECT journal_id, account, amount_minor::int AS minor FROM payments.ledger_entries WHERE ref_id = $1 ORDER BY journal_id, account`,
    [p.id],
  );
  assert.deepEqual(
    rows.map((r) => [r.journal_id, r.account, r.minor]),
    [
      [`${p.id}:paid`, "payouts_sent", 1234],
      [`${p.id}:paid`, "reserved", -1234],
      [`${p.id}:reserved`, "available", -1234],
      [`${p.id}:reserved`, "reserved", 1234],
    ],
  );
  const event = await events.next(p.id);
  assert.equal(event.tenant, tenant);
  // The sandbox pays at once: accepted (pending) → paid, no processing in between.
  assert.equal(event.from, "pending");
  assert.deepEqual(event.amount, { minor: 1234, currency: "GBP" });
  const bal = await t.call("payout.balance", { currency: "GBP" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 3000 - 1234);
  assert.equal(bal.balances[0].reserved.minor, 0);
});

test("a payout moves once: two moves from the status both saw race, one wins; a move from a stale status writes nothing", async () => {
  const tenant = "race-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 10, "USD");
  const [pending] = await withTenant(tenant, async () => {
    const r = await recipientOf(t.ctx.pool, rcp, tenant);
    const p = newPayout({
      id: newId("payout"),
      call: { tenant, requestId: "req_race" },
      recipient: r!,
      provider: sandboxProvider(r!.provider as ProviderName),
      amountMinor: 400n,
      currency: "USD",
      description: null,
      reference: null,
      idempotencyKey: null,
      metadata: {},
      batchId: null,
      position: 0,
      at: new Date(),
    });
    const { record, journals, event } = acceptance(p, undefined);
    const insert = acceptPayout(record, r!, journals, event);
    // Unkeyed, as idempotentInsert runs it without a key: `claim` is one row.
    const text = `WITH claim AS (SELECT NULL::text AS record_id), ${insert.text.trimStart().slice("WITH ".length)}`;
    const [row] = await runPrepared<{ id: string }>(t.ctx.pool, `${insert.name}+test`, text, insert.values);
    assert.equal(row?.id, record.id);
    return [await payoutById(t.ctx.pool, record.id)];
  });
  assert.equal(pending.status, "pending");
  const moves = await withTenant(tenant, () =>
    Promise.all([
      advancePayout(t.ctx, pending.id, { status: "paid", feeMinor: 0n }, { source: "api" }, pending),
      advancePayout(t.ctx, pending.id, { status: "failed" }, { source: "poll" }, pending),
    ]),
  );
  assert.deepEqual(moves.map((m) => m.moved).sort(), [false, true]);
  const winner = moves.find((m) => m.moved)!.record.status;
  const journals = async () =>
    (
      await t.db.query(`SELECT DISTINCT journal_id FROM payments.ledger_entries WHERE ref_id = $1 ORDER BY 1`, [
        pending.id,
      ])
    ).rows.map((r) => r.journal_id);
  const booked = [`${pending.id}:${winner === "paid" ? "paid" : "released"}`, `${pending.id}:reserved`];
  assert.deepEqual(await journals(), booked);

  // Seen as still pending (stale): the statement's precondition fails, nothing is written; the
  // locked path then reads the real status, from which the move is not allowed.
  const outbox = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM payments.outbox WHERE msg_id LIKE $1`, [`${pending.id}.%`]))
      .rows[0].n;
  const queued = await outbox();
  const stale = await withTenant(tenant, () =>
    movePayout(
      t.ctx.pool,
      pending,
      {
        status: "cancelled",
        updatedAt: new Date(),
        paidAt: null,
        feeMinor: null,
        failureCode: "cancelled",
        failureMessage: "x",
        providerReference: null,
      },
      [{ suffix: "released", debit: "available", credit: "reserved", amountMinor: 400n, memo: "x" }],
      { tenant, subject: "payments.payout.cancelled", msgId: `${pending.id}.cancelled`, payload: {} },
    ),
  );
  assert.equal(stale, undefined);
  const again = await withTenant(tenant, () =>
    advancePayout(t.ctx, pending.id, { status: "cancelled" }, { source: "poll" }, pending),
  );
  assert.equal(again.moved, false);
  assert.equal(again.record.status, winner);
  assert.deepEqual(await journals(), booked);
  assert.equal(await outbox(), queued);
});

/** Runs `fn` and counts the accepting statements it sent: payouts (or payments) alone, and together. */
async function acceptingStatements<T>(
  fn: () => Promise<T>,
  [one, many] = ["payments.accept_payout+claim", "payments.accept_payouts"],
): Promise<{ value: T; alone: number; together: number }> {
  let alone = 0;
  let together = 0;
  const query = pg.Client.prototype.query;
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const name = (args[0] as { name?: string } | undefined)?.name;
    if (name === one) alone++;
    if (name === many) together++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  };
  try {
    return { value: await fn(), alone, together };
  } finally {
    pg.Client.prototype.query = query;
  }
}

test("payouts that arrive together are accepted together: each written, booked, keyed and published as alone, in fewer statements", async () => {
  const tenant = "together-co";
  const [a, b] = [await recipient(t, tenant, "USD"), await recipient(t, tenant, "USD")];
  await fund(t, tenant, 1_000, "USD");
  const sub = t.ctx.nats.nc.subscribe("payments.payout.paid", { timeout: 10_000 });
  const inputs = Array.from({ length: 24 }, (_, i) => ({
    recipientId: i % 2 ? a : b,
    amount: i + 1,
    currency: "USD",
    idempotencyKey: `together-${i}`,
    ...(i === 3 ? { metadata: { note: 'quote " and \\ backslash, {braces}' } } : {}),
  }));
  // Two calls with one key: one payout, answered to both.
  inputs.push({ ...inputs[5] });
  const {
    value: sent,
    alone,
    together,
  } = await acceptingStatements(() => Promise.all(inputs.map((input) => t.call("payout.send", input, { tenant }))));
  assert.ok(together >= 1, `no statement accepted payouts together (${alone} alone)`);
  assert.ok(alone + together < 20, `${alone} statements alone and ${together} together for 25 calls`);
  assert.equal(sent[25 - 1].id, sent[5].id);
  for (const [i, p] of sent.slice(0, 24).entries()) {
    assert.equal(p.status, "paid");
    assert.equal(p.amount.minor, (i + 1) * 100);
    assert.equal(p.recipientId, i % 2 ? a : b);
    assert.equal(p.idempotencyKey, `together-${i}`);
  }
  assert.deepEqual(sent[3].metadata, { note: 'quote " and \\ backslash, {braces}' });
  assert.equal(await count("payouts", tenant), 24);
  assert.equal(await count("idempotency_records", tenant), 24);
  // As stored: what each answer said, and its two journals.
  const stored = await t.db.query(
    `SELECT p.id, p.amount_minor::int AS minor, p.metadata, (SELECT count(*)::int FROM payments.ledger_journals j WHERE j.ref_id = p.id) AS journals
       FROM payments.payouts p WHERE p.tenant = $1`,
    [tenant],
  );
  const byId = new Map(stored.rows.map((r) => [r.id, r]));
  for (const [i, p] of sent.slice(0, 24).entries()) {
    assert.equal(byId.get(p.id)?.minor, (i + 1) * 100);
    assert.equal(byId.get(p.id)?.journals, 2);
  }
  assert.deepEqual(byId.get(sent[3].id)?.metadata, { note: 'quote " and \\ backslash, {braces}' });
  // Every field as stored is what the call answered (a value bound to the wrong column would show).
  for (const p of sent.slice(0, 24)) {
    assert.deepEqual(payoutOut(await withTenant(tenant, () => payoutById(t.ctx.pool, p.id))), p);
  }
  // Each payout's event once, whichever statement wrote it.
  const published = new Map<string, number>();
  for await (const m of sub) {
    const body = JSON.parse(new TextDecoder().decode(m.data)) as { id: string; tenant: string };
    if (body.tenant !== tenant) continue;
    published.set(body.id, (published.get(body.id) ?? 0) + 1);
    if (published.size === 24) break;
  }
  sub.unsubscribe();
  assert.deepEqual(
    [...published.keys()].sort(),
    sent
      .slice(0, 24)
      .map((p) => p.id)
      .sort(),
  );
  assert.ok([...published.values()].every((n) => n === 1));
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 100_000 - 30_000);
  assert.equal(bal.balances[0].reserved.minor, 0);
});

test("a payout that cannot be accepted with the others is accepted or refused alone, and the others as if it had not been there", async () => {
  const tenant = "together-refused-co";
  const [a, b] = [await recipient(t, tenant, "USD"), await recipient(t, tenant, "USD")];
  await fund(t, tenant, 100, "USD");
  // Both recipients cached by a first payout each; then b is verified again behind this process's back.
  await t.call("payout.send", { recipientId: a, amount: 1, currency: "USD", idempotencyKey: "first-a" }, { tenant });
  await t.call("payout.send", { recipientId: b, amount: 1, currency: "USD", idempotencyKey: "first-b" }, { tenant });
  await t.db.query(`UPDATE payments.recipients SET verified_at = verified_at + interval '1 second' WHERE id = $1`, [b]);
  const send = (recipientId: string, amount: number, key: string) =>
    t.call("payout.send", { recipientId, amount, currency: "USD", idempotencyKey: key }, { tenant });
  const { value: outcomes, together } = await acceptingStatements(() =>
    Promise.allSettled([
      ...Array.from({ length: 7 }, (_, i) => send(a, 10, `a-${i}`)),
      send(b, 5, "b-stale"),
      // Beyond all that is available (98): refused, alone, whatever order the others go in.
      send(a, 99, "too-much"),
    ]),
  );
  assert.ok(together >= 1);
  const [tooMuch, ...rest] = [outcomes.at(-1)!, ...outcomes.slice(0, -1)];
  assert.ok(
    rest.every((o) => o.status === "fulfilled" && o.value.status === "paid"),
    JSON.stringify(rest),
  );
  assert.equal(tooMuch.status, "rejected");
  assert.equal((tooMuch as PromiseRejectedResult).reason.details[0].code, "insufficient_balance");
  assert.equal(await count("payouts", tenant), 2 + 8);
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 10_000 - 200 - 7_000 - 500);
});

test("payments that arrive together are accepted together: each written with its history and key as alone, a replay answered", async () => {
  const tenant = "together-pay-co";
  const inputs = Array.from({ length: 20 }, (_, i) => ({
    amount: i + 1,
    currency: i % 2 ? "USD" : "EUR",
    idempotencyKey: `pay-${i}`,
    description: i === 2 ? 'an "order", {1,2} \\ done' : undefined,
  }));
  inputs.push({ ...inputs[7] });
  const {
    value: made,
    alone,
    together,
  } = await acceptingStatements(
    () => Promise.all(inputs.map((input) => t.call("payment.initiate", input, { tenant }))),
    ["payments.insert_payment+claim", "payments.insert_payments"],
  );
  assert.ok(together >= 1, `no statement accepted payments together (${alone} alone)`);
  assert.ok(alone + together < 16, `${alone} statements alone and ${together} together for 21 calls`);
  assert.equal(made[20].id, made[7].id);
  const stored = await t.db.query(
    `SELECT p.id, p.amount_minor::int AS minor, p.currency, p.description,
            (SELECT count(*)::int FROM payments.payment_events e WHERE e.payment_id = p.id) AS history
       FROM payments.payments p WHERE p.tenant = $1`,
    [tenant],
  );
  assert.equal(stored.rows.length, 20);
  const byId = new Map(stored.rows.map((r) => [r.id, r]));
  for (const [i, p] of made.slice(0, 20).entries()) {
    assert.equal(p.idempotencyKey ?? `pay-${i}`, `pay-${i}`);
    assert.deepEqual(
      { minor: byId.get(p.id)?.minor, currency: byId.get(p.id)?.currency, history: byId.get(p.id)?.history },
      { minor: (i + 1) * 100, currency: i % 2 ? "USD" : "EUR", history: 1 },
    );
  }
  assert.equal(byId.get(made[2].id)?.description, 'an "order", {1,2} \\ done');
  for (const p of made.slice(0, 20)) {
    assert.deepEqual(paymentOut(await withTenant(tenant, () => paymentById(t.ctx.pool, p.id))), p);
  }
  assert.equal(await count("idempotency_records", tenant), 20);
});
