/**
 * Least privilege under `npm start` (SECURITY.md, "Who may reach what"): what each process is
 * given, read from the running process itself (/proc/<pid>/environ), is all it can use, and it
 * reaches nothing of another process's.
 *
 * Postgres: a service's DATABASE_URL logs in as a role that cannot read another service's schema,
 * cannot leave row-level security (no `SET ROLE`/`RESET ROLE` way out), and cannot create or change
 * objects; the gateway gets no database at all; the superuser's password is not the old fixed one.
 *
 * NATS: a client without a login is refused; a service's login may not publish on another area's
 * subjects nor delete a stream (the services and the gateway run on these logins here).
 *
 * Redis: a client that does not log in can do nothing; the gateway's login runs the rate-limit
 * script on its own keys and nothing else.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import pg from "pg";
import { Redis } from "ioredis";
import { generateKey } from "@gantry/kit";
import { startStack, type Stack } from "./stack.ts";
import { which } from "./binaries.ts";
import { natsSays } from "../testing/nats-says.ts";

const hasRedis = Boolean(process.env.REDIS_SERVER_BIN || which("redis-server"));

/** The environment a running process was started with, as anyone who gets into it reads it. */
function environOf(stack: Stack, name: string): Record<string, string> {
  const pid = stack.pid(name);
  assert.ok(pid, `${name} is running`);
  const raw = fs.readFileSync(`/proc/${pid}/environ`, "utf8");
  return Object.fromEntries(
    raw
      .split("\0")
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
}

/** The Postgres error code `sql` fails with on `client`, or "ok". */
async function outcome(client: pg.Client, sql: string): Promise<string> {
  try {
    await client.query(sql);
    return "ok";
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe("Postgres: each service logs in as a role of its own", () => {
  let stack: Stack;
  let keysDb: pg.Client;
  before(async () => {
    stack = await startStack({
      port: 0,
      quiet: true,
      services: ["keys", "workspace"],
      env: { GANTRY_ADMIN_KEY: generateKey() },
    });
    const url = environOf(stack, "keys").DATABASE_URL;
    assert.ok(url, "the keys service has a DATABASE_URL");
    keysDb = new pg.Client({ connectionString: url });
    keysDb.on("error", () => {});
    await keysDb.connect();
  });
  after(async () => {
    await keysDb?.end().catch(() => {});
    await stack?.stop();
  });

  test("it cannot read another service's schema", async () => {
    assert.equal(await outcome(keysDb, "SELECT count(*) FROM workspace.contacts"), "42501");
  });

  test("it cannot switch to a wider role, and RESET ROLE leaves it under row-level security", async () => {
    for (const role of ["gantry", "gantry_keys_owner", "gantry_workspace", "gantry_service", "postgres"])
      assert.notEqual(await outcome(keysDb, `SET ROLE ${role}`), "ok", `SET ROLE ${role}`);
    await keysDb.query("RESET ROLE");
    const admin = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query("SELECT count(*)::int AS n FROM keys.api_keys");
      assert.ok(rows[0].n >= 1, "the admin key is stored");
    } finally {
      await admin.end();
    }
    // Outside any tenant or system scope a connection sees no tenant rows (kit/src/tenancy.ts).
    const { rows } = await keysDb.query("SELECT count(*)::int AS n FROM keys.api_keys");
    assert.equal(rows[0].n, 0);
    assert.equal(await outcome(keysDb, "ALTER TABLE keys.api_keys DISABLE ROW LEVEL SECURITY"), "42501");
    assert.equal(await outcome(keysDb, "DROP POLICY tenant_isolation ON keys.api_keys"), "42501");
  });

  test("it cannot create objects, in its own schema or anywhere else", async () => {
    for (const sql of [
      "CREATE TABLE keys.sneaky (v int)",
      "CREATE TABLE public.sneaky (v int)",
      "CREATE TEMP TABLE sneaky (v int)",
      "CREATE SCHEMA sneaky",
      "CREATE ROLE sneaky",
      "CREATE DATABASE sneaky",
    ])
      assert.equal(await outcome(keysDb, sql), "42501", sql);
  });

  test("the gateway gets no database, and the superuser's password is not the old fixed one", async () => {
    assert.equal(environOf(stack, "gateway").DATABASE_URL, undefined);
    const url = new URL(stack.env.DATABASE_URL);
    url.password = "gantry";
    const guess = new pg.Client({ connectionString: url.toString() });
    guess.on("error", () => {});
    await assert.rejects(guess.connect(), { code: "28P01" });
  });
});

describe("NATS: each process logs in, and publishes only its own area's subjects", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ port: 0, quiet: true, services: ["keys"], gateways: 0 });
  });
  after(async () => stack?.stop());

  const login = (name: string) => {
    const url = new URL(environOf(stack, name).NATS_URL);
    return { url: url.toString(), user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  };

  test("a client without a login is refused", async () => {
    assert.match(await natsSays(stack.env.NATS_URL, {}), /Authorization Violation/);
    const { url, user } = login("keys");
    assert.match(await natsSays(url, { user, pass: "guess" }), /Authorization Violation/);
  });

  test("a service may publish its own subjects and not another area's, nor delete a stream", async () => {
    const { url, user, pass } = login("keys");
    assert.equal(await natsSays(url, { user, pass }, "keys.key.revoked"), "PONG");
    for (const subject of [
      "audit.calls.recorded",
      "events.acme.booking.confirmed",
      "connections.connection.revoked",
      "payments.payment.succeeded",
      "$JS.API.STREAM.DELETE.KEYS",
      "$JS.API.STREAM.CREATE.EVENTS",
    ])
      assert.match(await natsSays(url, { user, pass }, subject), /Permissions Violation for Publish/, subject);
  });

  test("a service reads only its own streams and subscribes only to its own inbox and subjects", async () => {
    const { url, user, pass } = login("keys");
    // keys consumes AUDIT (its audit consumer), and no other stream.
    assert.equal(await natsSays(url, { user, pass }, "$JS.API.CONSUMER.DURABLE.CREATE.AUDIT.keys-audit"), "PONG");
    for (const subject of [
      "$JS.API.CONSUMER.CREATE.WORKFLOWS",
      "$JS.API.CONSUMER.CREATE.PAYMENTS.sneaky",
      "$JS.API.CONSUMER.DURABLE.CREATE.LESSONS.sneaky",
      "$JS.API.CONSUMER.MSG.NEXT.WORKFLOWS.workflow-deliveries",
      "$JS.API.STREAM.MSG.GET.EVENTS",
      "$JS.API.DIRECT.GET.CONNECTIONS",
    ])
      assert.match(await natsSays(url, { user, pass }, subject), /Permissions Violation for Publish/, subject);
    assert.equal(await natsSays(url, { user, pass }, `_INBOX.${user}.abc.*`, "sub"), "PONG");
    for (const subject of ["payments.>", "events.>", ">", "_INBOX.>", "_INBOX.gateway.>", "keys.key.*"])
      assert.match(
        await natsSays(url, { user, pass }, subject, "sub"),
        /Permissions Violation for Subscription/,
        subject,
      );
  });
});

/** The first reply line of one RESP command sent on a connection that has not logged in. */
function anonymous(url: string, ...args: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  const command = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: hostname, port: Number(port) });
    sock.setTimeout(2000, () => sock.destroy(new Error("timeout")));
    sock.once("error", reject);
    sock.once("connect", () => sock.write(command));
    sock.once("data", (d) => {
      resolve(d.toString().split("\r\n")[0]);
      sock.end();
    });
  });
}

describe("Redis: only the gateway's login, and only for rate limits", {
  skip: hasRedis ? false : "redis-server is not installed",
}, () => {
  let stack: Stack;
  let url: string;
  before(async () => {
    stack = await startStack({ port: 0, quiet: true, services: [], gateways: 0, redis: true });
    url = stack.env.REDIS_URL!;
  });
  after(async () => stack?.stop());

  test("a client that does not log in is refused", async () => {
    assert.match(await anonymous(url, "PING"), /^-NOAUTH/);
    assert.match(await anonymous(url, "SET", "gantry:rl:k", "1"), /^-NOAUTH/);
    assert.match(await anonymous(url, "CONFIG", "GET", "*"), /^-NOAUTH/);
  });

  test("the gateway's login runs the rate-limit script on its keys, and nothing else", async () => {
    const redis = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true });
    redis.on("error", () => {});
    await redis.connect();
    try {
      const script = "local n = redis.call('INCR', KEYS[1]); redis.call('PEXPIRE', KEYS[1], 1000); return n";
      assert.equal(await redis.eval(script, 1, "gantry:rl:key_1:5:1"), 1);
      for (const attempt of [
        () => redis.get("gantry:rl:key_1:5:1"),
        () => redis.eval(script, 1, "other:key"),
        () => redis.set("other:key", "1"),
        () => redis.keys("*"),
        () => redis.flushall(),
        () => redis.config("GET", "*"),
        () => redis.publish("events", "x"),
      ])
        await assert.rejects(attempt(), /NOPERM/);
    } finally {
      redis.disconnect();
    }
  });
});
