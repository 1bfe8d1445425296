/**
 * A starting service waits for its database instead of crashing: Postgres that starts answering
 * only after a while (here: a port that opens a second later, forwarding to the test Postgres) is
 * waited for; one that never answers fails after the given time, saying so.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import pg from "pg";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { createLogger } from "./logger.ts";
import { waitForPostgres } from "./postgres-wait.ts";

let t: TestStack;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
});
after(async () => t?.stop());

const log = createLogger("postgres-wait-test", "silent");

/** A free port, closed again: nothing listens on it until `open` forwards it to Postgres. */
async function latePort(): Promise<{ port: number; open: () => Promise<net.Server> }> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
  // The stack's URL may name a Unix socket (`?host=<dir>`); Postgres listens on loopback too.
  const target = new URL(t.stack.env.DATABASE_URL);
  const socketDir = target.searchParams.get("host");
  const open = async () => {
    const proxy = net.createServer((client) => {
      const upstream = socketDir
        ? net.connect(`${socketDir}/.s.PGSQL.${target.port}`)
        : net.connect(Number(target.port), target.hostname);
      client.pipe(upstream).pipe(client);
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(port, "127.0.0.1", r));
    return proxy;
  };
  return { port, open };
}

function poolAt(port: number): pg.Pool {
  const url = new URL(t.stack.env.DATABASE_URL);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  url.searchParams.delete("host");
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1, connectionTimeoutMillis: 1_000 });
  pool.on("error", () => {});
  return pool;
}

test("a database that starts answering later is waited for", async () => {
  const { port, open } = await latePort();
  const pool = poolAt(port);
  let proxy: net.Server | undefined;
  const opening = new Promise<void>((r) =>
    setTimeout(async () => {
      proxy = await open();
      r();
    }, 1_000),
  );
  try {
    const started = Date.now();
    await waitForPostgres(pool, 20, log);
    assert.ok(Date.now() - started >= 900, "answered before the database was there");
    await opening;
  } finally {
    await pool.end();
    proxy?.close();
  }
});

test("one that never answers fails after the given time, saying so", async () => {
  const { port } = await latePort();
  const pool = poolAt(port);
  try {
    await assert.rejects(waitForPostgres(pool, 1, log), /Postgres did not accept connections within 1 s/);
  } finally {
    await pool.end();
  }
});
