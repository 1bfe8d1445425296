/**
 * The transactional outbox against real Postgres and a real NATS server (issue 28, item 3):
 * - an event is published only if its transaction commits, and the row is gone once it is;
 * - across a NATS outage, every event written meanwhile arrives once NATS is back, exactly once by
 *   id, although the relay retried, two relays competed and the same ids were enqueued twice;
 * - rows are under row-level security like every tenant table;
 * - a flush returns once a round that saw its event ends, also while other flushes keep coming;
 * - an idle relay polls less often, so its pool's connection (a Postgres backend) closes;
 * - two relays in steady state publish each row once;
 * - a failed row stays in its place with its error and backoff, and the rows around it go out;
 * - a relay that stalls between its claim and its commit gives the rows back after its lease.
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

test("two relays in steady state publish each row once: a claimed row is skipped by the other", async () => {
  // Every message the relays put on the wire, duplicates JetStream would drop included.
  const sends = new Map<string, number>();
  const wire = nats.nc.subscribe("outboxdemo.>", {
    callback: (_err, m) => {
      const id = m.headers?.get("Nats-Msg-Id") ?? "";
      sends.set(id, (sends.get(id) ?? 0) + 1);
    },
  });
  const relays = [1, 2].map(() => startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 50 }));
  try {
    // Both flush after every change, and both timers run, so their rounds overlap all the time.
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 40; i++) {
          const n = 1_000 + w * 100 + i;
          await change("acme", n);
          await relays[i % 2].flush();
        }
      }),
    );
    await eventually(async () => (await pending()) === 0, 10_000);
    // The server sends this connection what it published before it answers the flush's PING.
    await nats.nc.flush();
    assert.equal(sends.size, 160);
    assert.deepEqual(
      [...sends].filter(([, times]) => times !== 1),
      [],
      "no row published twice",
    );
  } finally {
    wire.unsubscribe();
    await Promise.all(relays.map((r) => r.stop()));
  }
});

test("a failed row keeps its place, its error and its backoff; the rows around it go out", async () => {
  const relay = startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 60_000 });
  try {
    await withTenant("acme", () =>
      enqueueEvents(pool, SCHEMA, [
        { tenant: "acme", subject: "outboxdemo.thing.changed", msgId: "around-1", payload: { n: 1 } },
        // No stream takes this subject: JetStream refuses the publish.
        { tenant: "acme", subject: "outboxnowhere.thing", msgId: "bad-1", payload: { n: 2 } },
        { tenant: "acme", subject: "outboxdemo.thing.changed", msgId: "around-2", payload: { n: 3 } },
      ]),
    );
    const { rows: before } = await t.db.query(
      `SELECT id, created_at, now() AS at FROM ${SCHEMA}.outbox WHERE msg_id = 'bad-1'`,
    );
    assert.equal(await relay.flush(), 2);
    const { rows } = await t.db.query(
      `SELECT id, msg_id, subject, payload, attempts, last_error, created_at,
              next_attempt_at >= $1::timestamptz + interval '1 second' AS backed_off
         FROM ${SCHEMA}.outbox`,
      [before[0].at],
    );
    assert.equal(rows.length, 1, "only the failed row is left");
    const [bad] = rows;
    assert.deepEqual(
      [bad.id, bad.msg_id, bad.subject, bad.payload, bad.attempts, bad.created_at.getTime()],
      [before[0].id, "bad-1", "outboxnowhere.thing", { n: 2 }, 1, before[0].created_at.getTime()],
      "the same row: its id (its place in the order), subject, payload and time",
    );
    assert.ok(bad.last_error, "its error is kept");
    assert.equal(bad.backed_off, true, "it waits its backoff");
    const ids = (await published()).map((m) => m.id);
    assert.ok(ids.includes("around-1") && ids.includes("around-2"));
    assert.ok(!ids.includes("bad-1"));
  } finally {
    await relay.stop();
    await t.db.query(`DELETE FROM ${SCHEMA}.outbox WHERE msg_id = 'bad-1'`);
  }
});

test("a relay that stalls holding its claim gives the rows back after its lease; another relay sends them", async () => {
  // Its publishes never answer until the end: a relay frozen between its claim and its commit.
  let unfreeze: () => void = () => {};
  const frozen = new Promise<void>((resolve) => {
    unfreeze = resolve;
  });
  /** Events the stalled relay has claimed and is publishing (its claim holds them). */
  let held = 0;
  const stalled = startOutboxRelay({
    pool,
    schema: SCHEMA,
    nats,
    log,
    intervalMs: 60_000,
    publisher: {
      publishAll: (messages) => {
        held += messages.length;
        return frozen.then(() => messages.map(() => new Error("unfrozen")));
      },
      close: () => {},
    },
  });
  const other = startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 60_000 });
  try {
    for (let n = 300; n < 303; n++) await change("acme", n);
    const claimed = stalled.flush();
    // Its claim has returned the rows; the session waits, in its transaction, for the publishes.
    await eventually(async () => held === 3, 10_000);
    await eventually(async () => {
      const { rows } = await t.db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE '%${SCHEMA}%'`,
      );
      return rows[0].n === 1;
    }, 10_000);
    assert.equal(await other.flush(), 0, "the claimed rows are skipped while their claim holds");
    assert.equal(await pending(), 3, "and are not gone: the claim has not committed");
    // Postgres ends the stalled relay's session at its lease (10 s here); its rows are due again.
    await eventually(async () => (await other.flush()) === 3, 30_000);
    assert.equal(await pending(), 0);
    unfreeze();
    await claimed;
    const ids = (await published()).map((m) => m.id).filter((id) => /^thing-30[0-2]$/.test(id));
    assert.deepEqual(ids.sort(), ["thing-300", "thing-301", "thing-302"]);
  } finally {
    unfreeze();
    await Promise.all([stalled.stop(), other.stop()]);
  }
});
