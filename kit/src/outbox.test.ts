/**
 * The transactional outbox against real Postgres and a real NATS server (issue 28, item 3):
 * - an event is published only if its transaction commits, and the row is gone once it is;
 * - across a NATS outage, every event written meanwhile arrives once NATS is back, exactly once by
 *   id, although the relay retried, two relays competed and the same ids were enqueued twice;
 * - rows are under row-level security like every tenant table;
 * - a flush returns once a round that saw its event ends, also while other flushes keep coming;
 * - an idle relay polls less often, so its pool's connection (a Postgres backend) closes.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, eventually, type TestStack } from "@gantry/infra/testing/stack.ts";
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { createLogger } from "./logger.ts";
import { connectNats, decodeJson, ensureStream, type Nats } from "./nats.ts";
import { enqueueEvents, OUTBOX_TABLE_SQL, startOutboxRelay } from "./outbox.ts";
import { asSystem, enforceTenantIsolation, SERVICE_ROLE, TenantPool, withTenant } from "./tenancy.ts";

const SCHEMA = "outbox_demo";
const STREAM = { name: "OUTBOX_DEMO", subjects: ["outboxdemo.>"] };
const log = createLogger("outbox-test", "silent");
let t: TestStack;
let pool: TenantPool;
let nats: Nats;

before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  await t.db.query(`CREATE SCHEMA ${SCHEMA}; SET search_path TO ${SCHEMA}; ${OUTBOX_TABLE_SQL}`);
  await t.db.query(`GRANT USAGE ON SCHEMA ${SCHEMA} TO ${SERVICE_ROLE}`).catch(() => {});
  await enforceTenantIsolation(t.db, SCHEMA, SERVICE_ROLE);
  pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 4, role: SERVICE_ROLE });
  pool.on("error", () => {});
  nats = await connectNats(t.stack.env.NATS_URL, "outbox-test", log);
  await ensureStream(nats.jsm, STREAM);
});

after(async () => {
  await nats?.nc.close().catch(() => {});
  await pool?.end();
  await t?.stop();
});

/** Every message on the stream so far: its msg id and body. */
async function published(): Promise<{ id: string; body: { n: number } }[]> {
  const name = `reader_${Math.random().toString(36).slice(2)}`;
  await nats.jsm.consumers.add(STREAM.name, {
    name,
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    inactive_threshold: 10_000_000_000,
  });
  const consumer = await nats.js.consumers.get(STREAM.name, name);
  const info = await nats.jsm.streams.info(STREAM.name);
  const out: { id: string; body: { n: number } }[] = [];
  if (info.state.messages === 0) return out;
  const batch = await consumer.fetch({ max_messages: info.state.messages, expires: 5_000 });
  for await (const m of batch) {
    out.push({ id: m.headers?.get("Nats-Msg-Id") ?? "", body: decodeJson(m.data) });
    if (out.length === info.state.messages) break;
  }
  return out;
}

async function pending(): Promise<number> {
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.outbox`);
  return rows[0].n;
}

/** A change and its event, in one transaction of `tenant`'s scope; `fail` rolls it back. */
async function change(tenant: string, n: number, fail = false): Promise<void> {
  await withTenant(tenant, async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await enqueueEvents(client, SCHEMA, [
        { tenant, subject: `outboxdemo.thing.changed`, msgId: `thing-${n}`, payload: { n } },
      ]);
      if (fail) throw new Error("the change failed");
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK");
      throw err;
    } finally {
      client.release();
    }
  });
}

test("committed events are published once and removed; a rolled-back change publishes nothing", async () => {
  const relay = startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 60_000 });
  try {
    await change("acme", 1);
    await assert.rejects(change("acme", 2, true), /the change failed/);
    assert.equal(await relay.flush(), 1);
    assert.equal(await pending(), 0);
    assert.deepEqual(
      (await published()).map((m) => [m.id, m.body.n]),
      [["thing-1", 1]],
    );
  } finally {
    await relay.stop();
  }
});

test("rows are under row-level security: a tenant sees only its own", async () => {
  const relay = startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 60_000 });
  try {
    await change("acme", 3);
    await change("beta", 4);
    const seen = await withTenant("beta", async () => (await pool.query(`SELECT msg_id FROM ${SCHEMA}.outbox`)).rows);
    assert.deepEqual(
      seen.map((r) => r.msg_id),
      ["thing-4"],
    );
    await asSystem(() => relay.flush());
    assert.equal(await pending(), 0);
  } finally {
    await relay.stop();
  }
});

test("across a NATS outage every event arrives once NATS is back, exactly once by id", async () => {
  const relays = [1, 2].map(() => startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 200 }));
  try {
    const before = (await published()).length;
    await t.stack.stopService("nats");
    for (let n = 100; n < 120; n++) await change("acme", n);
    // A retried call enqueues the same event again: the id, not the row, decides.
    await change("acme", 105);
    await Promise.all(relays.map((r) => r.flush()));
    assert.equal(await pending(), 21, "nothing is lost while NATS is away");
    const { rows } = await t.db.query(`SELECT max(attempts)::int AS a, max(last_error) AS e FROM ${SCHEMA}.outbox`);
    assert.ok(rows[0].a >= 1 && rows[0].e, "the failure is counted and kept");

    await t.stack.startService("nats");
    await t.stack.waitHealthy("nats", 60_000);
    await eventually(async () => (await pending()) === 0, 60_000);
    const messages = (await published()).slice(before);
    const ids = messages.map((m) => m.id).sort();
    const expected = Array.from({ length: 20 }, (_, i) => `thing-${100 + i}`).sort();
    assert.deepEqual(ids, expected, "each id once");
  } finally {
    await Promise.all(relays.map((r) => r.stop()));
  }
});

test("a flush under steady load returns after a round that saw its event, not after every later caller's", async () => {
  const relay = startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 60_000 });
  let asking = true;
  // Other handlers flushing all the time, as under load: each asks while a round is running.
  const others = (async () => {
    while (asking) {
      void relay.flush();
      await new Promise((r) => setImmediate(r));
    }
  })();
  try {
    await withTenant("acme", () =>
      enqueueEvents(pool, SCHEMA, [
        { tenant: "acme", subject: "outboxdemo.steady", msgId: "steady-1", payload: { n: 1 } },
      ]),
    );
    const mine = await Promise.race([
      relay.flush().then(() => "returned"),
      new Promise((r) => setTimeout(() => r("still waiting"), 5_000)),
    ]);
    assert.equal(mine, "returned");
    const { rows } = await asSystem(() =>
      pool.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.outbox WHERE msg_id = 'steady-1'`),
    );
    assert.equal(rows[0].n, 0);
  } finally {
    asking = false;
    await others;
    await relay.stop();
  }
  assert.ok((await published()).some((m) => m.id === "steady-1"));
});

test("an idle relay lets its Postgres connection go, and still publishes what another replica left behind", async () => {
  // Its own pool, with pg's idle timeout (10 s): only the relay can close its connection sooner.
  const own = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 2, role: SERVICE_ROLE });
  own.on("error", () => {});
  const relay = startOutboxRelay({ pool: own, schema: SCHEMA, nats, log, intervalMs: 100, idleIntervalMs: 1_000 });
  try {
    await eventually(async () => own.totalCount === 1, 5_000);
    // Polled every 100 ms, or kept after its empty rounds, the connection would stay.
    await eventually(async () => own.totalCount === 0, 5_000);
    // A replica that committed and crashed before its flush: nobody flushes this row but the timer.
    await change("acme", 200);
    await eventually(async () => (await pending()) === 0, 3_000);
  } finally {
    await relay.stop();
    await own.end();
  }
  assert.ok((await published()).some((m) => m.id === "thing-200"));
});
