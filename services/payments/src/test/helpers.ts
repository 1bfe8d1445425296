/**
 * Test helpers of the payments service: the service on real Postgres + NATS (infra/testing/service.ts),
 * by default sandbox-only and without the connections lookup, and the ledger invariant every test
 * ends with: each journal, and so the whole ledger, sums to zero per currency.
 */
import assert from "node:assert/strict";
import { decodeJson, GantryError, ingressClient } from "@gantry/kit";
import { type ServiceHarness, startService } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";

export type PaymentsTest = ServiceHarness<Context>;

export function startPayments(env: Record<string, string> = {}): Promise<PaymentsTest> {
  return startService<Context>("payments", { PAYMENTS_TENANT_CREDENTIALS: "false", ...env });
}

/** Asserts double entry: no journal and no currency is out of balance, across all tenants. */
export async function assertLedgerBalanced(t: PaymentsTest): Promise<void> {
  const journals = await t.db.query(
    `SELECT journal_id, currency, SUM(amount_minor)::text AS total FROM payments.ledger_entries GROUP BY journal_id, currency HAVING SUM(amount_minor) <> 0`,
  );
  assert.deepEqual(journals.rows, []);
  const all = await t.db.query(
    `SELECT currency, SUM(amount_minor)::text AS total FROM payments.ledger_entries GROUP BY currency HAVING SUM(amount_minor) <> 0`,
  );
  assert.deepEqual(all.rows, []);
  await assertBalancesMatchLedger(t);
}

/**
 * The balance rows the ledger's trigger keeps (table `balances`) equal the ledger summed per tenant,
 * settlement account and currency, for every account a balance shows: no row drifts, none is missing.
 */
export async function assertBalancesMatchLedger(t: PaymentsTest): Promise<void> {
  const drift = await t.db.query(
    `WITH summed AS (
       SELECT tenant, settlement_account, currency,
              COALESCE(SUM(amount_minor) FILTER (WHERE account = 'available'), 0) AS available,
              COALESCE(SUM(amount_minor) FILTER (WHERE account = 'pending'), 0) AS pending,
              COALESCE(SUM(amount_minor) FILTER (WHERE account = 'reserved'), 0) AS reserved
         FROM payments.ledger_entries WHERE account IN ('available', 'pending', 'reserved')
        GROUP BY tenant, settlement_account, currency)
     SELECT COALESCE(s.tenant, b.tenant) AS tenant, COALESCE(s.settlement_account, b.settlement_account) AS account,
            COALESCE(s.currency, b.currency) AS currency,
            s.available::text AS ledger_available, b.available::text AS row_available,
            s.pending::text AS ledger_pending, b.pending::text AS row_pending,
            s.reserved::text AS ledger_reserved, b.reserved::text AS row_reserved
       FROM summed s FULL JOIN payments.balances b USING (tenant, settlement_account, currency)
      WHERE s.available IS DISTINCT FROM b.available OR s.pending IS DISTINCT FROM b.pending
         OR s.reserved IS DISTINCT FROM b.reserved`,
  );
  assert.deepEqual(drift.rows, []);
}

/** Funds a sandbox tenant: a payment that succeeds at its first status refresh. */
/**
 * The plans Postgres makes for `statements` with seq scans off: the tables of a test are tiny, so
 * this asks whether an index can serve a statement (a partial index's predicate proved), not
 * whether it would be chosen at that size.
 */
export async function plansWithoutSeqScan(t: PaymentsTest, statements: string[], values: unknown[]): Promise<string[]> {
  const c = await t.db.connect();
  try {
    await c.query("BEGIN");
    await c.query("SET LOCAL enable_seqscan = off");
    const plans: string[] = [];
    for (const sql of statements) {
      const { rows } = await c.query(`EXPLAIN ${sql}`, values);
      plans.push(rows.map((r) => r["QUERY PLAN"]).join("\n"));
    }
    return plans;
  } finally {
    await c.query("ROLLBACK");
    c.release();
  }
}

export async function fund(t: PaymentsTest, tenant: string, amount: number, currency: string): Promise<string> {
  const p = await t.call("payment.initiate", { amount, currency }, { tenant });
  const s = await t.call("payment.status", { id: p.id }, { tenant });
  assert.equal(s.status, "succeeded");
  return p.id;
}

let accounts = 1000;
/** A verified sandbox recipient; `last4` picks the sandbox outcome (0002 fails, 0003 reverses). */
export async function recipient(t: PaymentsTest, tenant: string, currency: string, last4 = "4321"): Promise<string> {
  const r = await t.call(
    "payout.verify_account",
    { country: "NG", currency, accountNumber: `01${++accounts}${last4}`, bankCode: "058", accountName: "Ada Obi" },
    { tenant },
  );
  return r.id;
}

/**
 * Delivers a webhook as the gateway does for `POST /v1/webhooks/payments/<provider>`: the raw body
 * over the service's HttpIngress (the gateway's own part is tested in gateway/test/ingress.test.ts).
 * Answers the HTTP status and JSON body the provider would see.
 */
export async function postWebhook(
  t: PaymentsTest,
  provider: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const client = ingressClient(`127.0.0.1:${t.port}`, t.signer());
  try {
    const res = await client.handle(
      {
        route: "webhooks",
        method: "POST",
        path: `/${provider}`,
        query: "",
        headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
        body: Buffer.from(body),
        request_id: "req_webhook_test",
        remote_addr: "127.0.0.1",
      },
      10_000,
    );
    return { status: res.status, body: JSON.parse(res.body.toString("utf8")) };
  } catch (err) {
    if (err instanceof GantryError) return { status: err.httpStatus, body: { error: err.message, code: err.code } };
    throw err;
  } finally {
    client.close();
  }
}

/**
 * Subscribes to `subject` now; `next(id)` resolves to the body of the first message about record
 * `id` published after the subscription (other records' messages are skipped).
 */
export function watchEvents(t: PaymentsTest, subject: string): { next: (id: string) => Promise<any> } {
  const sub = t.ctx.nats.nc.subscribe(subject);
  return {
    next: async (id) => {
      try {
        for await (const m of sub) {
          const body = decodeJson<any>(m.data);
          if (body.id === id) return body;
        }
        throw new Error(`${subject}: the subscription ended before a message about ${id}`);
      } finally {
        sub.unsubscribe();
      }
    },
  };
}
