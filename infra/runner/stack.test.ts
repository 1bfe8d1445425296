/**
 * The local runner: dependencies really start (Postgres answers SQL, NATS takes connections with
 * JetStream, Redis answers PING), stop() and a killed runner leave no process behind, the
 * supervisor restarts crashed processes (but not stopped ones), and a service asked for in two
 * replicas runs as two processes that each answer at an address of the service's `*_ADDR` list.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { HealthClient } from "@gantry/kit/health.ts";
import { natsConnectOptions } from "@gantry/kit/nats.ts";
import { startStack, REPO_ROOT, type Stack } from "./stack.ts";
import { LogSink, ManagedProcess, Watchdog } from "./supervisor.ts";
import { which } from "./binaries.ts";

const STACK_MODULE = pathToFileURL(fileURLToPath(new URL("./stack.ts", import.meta.url))).href;
const hasRedis = Boolean(process.env.REDIS_SERVER_BIN || which("redis-server"));
const hasKeys = fs.existsSync(path.join(REPO_ROOT, "services/keys/src/main.ts"));
const hasGateway = fs.existsSync(path.join(REPO_ROOT, "gateway/src/main.ts"));
const hasWorkspace = fs.existsSync(path.join(REPO_ROOT, "services/workspace/src/main.ts"));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True while the process group led by `pid` (or the process itself) has any member. */
function groupAlive(pid: number): boolean {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 0);
      return true;
    } catch {
      /* not there */
    }
  }
  return false;
}

async function until<T>(fn: () => T | Promise<T>, timeoutMs = 10_000, what = "condition"): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** PING after logging in as the URL's user (the local Redis has no anonymous user): the last reply. */
function redisPing(url: string): Promise<string> {
  const { hostname, port, username, password } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: hostname, port: Number(port) });
    sock.setTimeout(2000, () => sock.destroy(new Error("timeout")));
    sock.once("error", reject);
    const auth = `*3\r\n$4\r\nAUTH\r\n$${username.length}\r\n${username}\r\n$${password.length}\r\n${password}\r\n`;
    sock.once("connect", () => sock.write(`${auth}*1\r\n$4\r\nPING\r\n`));
    let replies = "";
    sock.on("data", (d) => {
      replies += d.toString();
      const lines = replies.trim().split("\r\n");
      if (lines.length < 2) return;
      resolve(lines[lines.length - 1]);
      sock.end();
    });
  });
}

describe("dependencies", () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ port: 0, services: [], gateways: 0, quiet: true, redis: hasRedis });
  });
  after(async () => stack?.stop());

  test("the shared environment names every dependency and every service address", () => {
    assert.match(stack.env.DATABASE_URL, /^postgres:\/\/gantry:[^@]+@127\.0\.0\.1:\d+\/gantry(\?host=%2F[^&]+)?$/);
    assert.match(stack.env.NATS_URL, /^nats:\/\/runner:[^@]+@127\.0\.0\.1:\d+$/);
    for (const v of [
      "KEYS_ADDR",
      "CONNECTIONS_ADDR",
      "PAYMENTS_ADDR",
      "MEMORY_ADDR",
      "CONTENT_ADDR",
      "TRUST_ADDR",
      "WORKSPACE_ADDR",
      "WEB_ADDR",
    ]) {
      assert.match(stack.env[v] ?? "", /^127\.0\.0\.1:\d+$/, v);
    }
    const ports = new Set(Object.values(stack.env).flatMap((v) => /:(\d+)(\/|$)/.exec(v)?.[1] ?? []));
    assert.equal(ports.size, Object.values(stack.env).filter((v) => /:(\d+)(\/|$)/.test(v)).length, "all ports differ");
  });

  test("Postgres accepts a query on the gantry database", async () => {
    const client = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    try {
      const res = await client.query("SELECT current_database() AS db, 1 + 1 AS two, inet_server_addr() AS addr");
      // The local cluster is reached over its Unix socket (no server address), which costs less per query than TCP.
      assert.deepEqual(res.rows[0], { db: "gantry", two: 2, addr: null });
    } finally {
      await client.end();
    }
  });

  test("NATS accepts a connection and has JetStream enabled", async () => {
    const nc = await connect({ ...natsConnectOptions(stack.env.NATS_URL), timeout: 2000 });
    try {
      const jsm = await jetstreamManager(nc);
      const info = await jsm.getAccountInfo();
      assert.equal(typeof info.streams, "number");
    } finally {
      await nc.close();
    }
  });

  test("Redis answers PING when asked for", { skip: hasRedis ? false : "redis-server is not installed" }, async () => {
    assert.match(stack.env.REDIS_URL ?? "", /^redis:\/\/gateway:[0-9a-f]+@127\.0\.0\.1:\d+$/);
    assert.equal(await redisPing(stack.env.REDIS_URL!), "+PONG");
  });

  test("Postgres can be stopped and started again with its data (an outage)", async () => {
    const url = stack.env.DATABASE_URL;
    const c1 = new pg.Client({ connectionString: url });
    await c1.connect();
    await c1.query("CREATE TABLE IF NOT EXISTS runner_probe (v int); INSERT INTO runner_probe VALUES (42)");
    await c1.end();

    await stack.stopService("postgres");
    const down = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    down.on("error", () => {});
    await assert.rejects(down.connect());
    assert.equal(stack.crashes("postgres"), 0, "a stop on purpose is not a crash");

    await stack.startService("postgres");
    await stack.waitHealthy("postgres", 30_000);
    const c2 = new pg.Client({ connectionString: url });
    await c2.connect();
    const res = await c2.query("SELECT v FROM runner_probe");
    await c2.end();
    assert.deepEqual(res.rows, [{ v: 42 }]);
  });
});

describe("stopping", () => {
  test("stop() leaves no child process and removes its temporary data directory", async () => {
    const stack = await startStack({ port: 0, services: [], gateways: 0, quiet: true });
    const pids = stack.names().map((n) => stack.pid(n));
    assert.ok(pids.length >= 2 && pids.every((p) => typeof p === "number"), "postgres and nats run");
    assert.ok(fs.existsSync(stack.dataDir));
    await stack.stop();
    for (const pid of pids) assert.equal(groupAlive(pid!), false, `process group ${pid} is gone`);
    assert.equal(fs.existsSync(stack.dataDir), false);
    await stack.stop(); // idempotent
  });

  test("a runner killed with SIGKILL leaves nothing behind (the watchdog cleans up)", async () => {
    const code = `
      const { startStack } = await import(${JSON.stringify(STACK_MODULE)});
      const s = await startStack({ port: 0, services: [], gateways: 0, quiet: true });
      console.log(JSON.stringify({ pids: s.names().map((n) => s.pid(n)), dir: s.dataDir }));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const info = await until(
      () => {
        const line = out.split("\n").find((l) => l.startsWith("{"));
        return line ? (JSON.parse(line) as { pids: number[]; dir: string }) : undefined;
      },
      30_000,
      "the child stack started",
    );
    assert.ok(info.pids.every((p) => groupAlive(p)));
    child.kill("SIGKILL");
    await until(() => info.pids.every((p) => !groupAlive(p)), 10_000, "every process of the killed runner is gone");
    await until(() => !fs.existsSync(info.dir), 5_000, "its temporary directory is removed");
  });
});

describe("supervisor", () => {
  const holdScript = "console.log('up ' + process.pid); setInterval(() => {}, 1000)";

  test("a crashed process is restarted with backoff, a stopped one is not", async () => {
    const sink = new LogSink();
    const watchdog = new Watchdog();
    const proc = new ManagedProcess(
      { name: "holder", command: process.execPath, args: ["-e", holdScript] },
      sink,
      watchdog,
    );
    try {
      proc.start();
      await proc.waitHealthy({ timeoutMs: 5000 });
      const first = proc.pid!;
      await until(() => sink.text().includes(`holder | up ${first}`), 5000, "first output");

      process.kill(first, "SIGKILL");
      const second = await until(() => (proc.pid && proc.pid !== first ? proc.pid : undefined), 5000, "restart");
      assert.match(sink.text(), /holder exited unexpectedly \(signal SIGKILL\).*restarting in 200 ms/);

      process.kill(second, "SIGKILL");
      await until(() => (proc.pid && proc.pid !== second ? proc.pid : undefined), 5000, "second restart");
      assert.match(sink.text(), /restarting in 400 ms/, "the backoff doubles");
      assert.equal(proc.crashes, 2);

      await proc.stop();
      assert.equal(proc.state, "stopped");
      await sleep(700);
      assert.equal(proc.pid, undefined, "a process stopped on purpose stays stopped");
      assert.equal(proc.crashes, 2);
    } finally {
      await proc.stop();
      watchdog.close();
    }
  });

  test("a process that ignores SIGTERM is killed after its stop timeout", async () => {
    const sink = new LogSink();
    const watchdog = new Watchdog();
    const stubborn =
      "process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('ready'); setInterval(() => {}, 1000)";
    const proc = new ManagedProcess(
      { name: "stubborn", command: process.execPath, args: ["-e", stubborn], stopTimeoutMs: 500 },
      sink,
      watchdog,
    );
    try {
      proc.start();
      await until(() => sink.text().includes("stubborn | ready"), 5000, "ready");
      const pid = proc.pid!;
      const t = Date.now();
      await proc.stop();
      assert.ok(Date.now() - t >= 450, "waited for the grace period");
      assert.equal(groupAlive(pid), false);
      assert.match(sink.text(), /did not stop within 500 ms; killing it/);
    } finally {
      watchdog.close();
    }
  });

  test("waitHealthy names a process that died and quotes its last log lines", async () => {
    const sink = new LogSink();
    const watchdog = new Watchdog();
    const proc = new ManagedProcess(
      {
        name: "broken",
        command: process.execPath,
        args: ["-e", "console.error('config error: DATABASE_URL is missing'); process.exit(3)"],
        restart: false,
        health: async () => false,
      },
      sink,
      watchdog,
    );
    try {
      proc.start();
      await assert.rejects(proc.waitHealthy({ timeoutMs: 10_000 }), (err: Error) => {
        assert.match(err.message, /^broken exited and is not restarted/);
        assert.match(err.message, /broken \| config error: DATABASE_URL is missing/);
        return true;
      });
    } finally {
      await proc.stop();
      watchdog.close();
    }
  });

  test("waitHealthy gives up on a process that keeps crashing", async () => {
    const sink = new LogSink();
    const watchdog = new Watchdog();
    const proc = new ManagedProcess(
      {
        name: "flappy",
        command: process.execPath,
        args: ["-e", "console.log('starting'); process.exit(1)"],
        health: async () => false,
      },
      sink,
      watchdog,
    );
    try {
      proc.start();
      await assert.rejects(
        proc.waitHealthy({ timeoutMs: 20_000, failAfterExits: 3 }),
        /flappy keeps crashing \(3 exits while starting\)/,
      );
    } finally {
      await proc.stop();
      watchdog.close();
    }
  });
});

describe("services in a stack", { skip: hasKeys ? false : "services/keys/src/main.ts does not exist yet" }, () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ port: 0, services: ["keys"], gateways: hasGateway ? 2 : 0, quiet: true });
  });
  after(async () => stack?.stop());

  test("several gateways each get their own port and answer /health", {
    skip: hasGateway ? false : "no gateway yet",
  }, async () => {
    assert.equal(stack.gatewayUrls.length, 2);
    assert.equal(stack.baseUrl, stack.gatewayUrls[0]);
    assert.notEqual(stack.gatewayUrls[0], stack.gatewayUrls[1]);
    assert.deepEqual(
      stack.names().filter((n) => n.startsWith("gateway")),
      ["gateway", "gateway-2"],
    );
    for (const url of stack.gatewayUrls) assert.equal((await fetch(`${url}/health`)).status, 200, url);
  });

  test("a killed service is restarted by the supervisor and becomes healthy again", async () => {
    const first = stack.pid("keys")!;
    assert.ok(stack.kill("keys", "SIGKILL"));
    await until(() => (stack.pid("keys") && stack.pid("keys") !== first ? true : undefined), 10_000, "keys restarted");
    await stack.waitHealthy("keys", 30_000);
    assert.equal(stack.crashes("keys"), 1);
    assert.match(stack.logs(), /runner \| keys exited unexpectedly \(signal SIGKILL\)/);
  });

  test("stopService stops a service for good; startService brings it back", async () => {
    await stack.stopService("keys");
    await sleep(500);
    assert.equal(stack.pid("keys"), undefined);
    await assert.rejects(stack.waitHealthy("keys", 1000), /keys is not running/);
    await stack.startService("keys");
    await stack.waitHealthy("keys", 30_000);
    assert.ok(stack.pid("keys"));
  });
});

describe("replicas of a service", {
  skip: hasWorkspace ? false : "services/workspace/src/main.ts does not exist yet",
}, () => {
  test("two replicas each run and answer at their own address; the service's *_ADDR lists both; stop() stops both", async () => {
    const stack = await startStack({
      port: 0,
      services: ["workspace"],
      replicas: { workspace: 2 },
      gateways: 0,
      quiet: true,
    });
    let pids: number[] = [];
    try {
      assert.deepEqual(
        stack.names().filter((n) => n.startsWith("workspace")),
        ["workspace", "workspace-2"],
      );
      pids = ["workspace", "workspace-2"].map((n) => stack.pid(n)!);
      assert.ok(pids.every((p) => typeof p === "number") && pids[0] !== pids[1], "two processes");

      const addrs = stack.env.WORKSPACE_ADDR.split(",");
      assert.equal(addrs.length, 2, stack.env.WORKSPACE_ADDR);
      assert.ok(addrs.every((a) => /^127\.0\.0\.1:\d+$/.test(a)) && addrs[0] !== addrs[1], stack.env.WORKSPACE_ADDR);
      for (const addr of addrs) {
        const health = new HealthClient(addr);
        try {
          assert.equal(await health.check(5_000), "SERVING", addr);
        } finally {
          health.close();
        }
      }
      assert.match(stack.env.KEYS_ADDR, /^127\.0\.0\.1:\d+$/, "a service without replicas keeps one address");
    } finally {
      await stack.stop();
    }
    for (const pid of pids) assert.equal(groupAlive(pid), false, `process group ${pid} is gone`);
  });

  test("a replica count for a service the stack does not start, or below 1, is refused", async () => {
    await assert.rejects(
      startStack({ port: 0, services: [], replicas: { workspace: 2 }, gateways: 0, quiet: true }),
      /replicas: 'workspace' is not a service this stack starts/,
    );
    await assert.rejects(
      startStack({ port: 0, services: ["workspace"], replicas: { workspace: 0 }, gateways: 0, quiet: true }),
      /replicas: 'workspace' needs a whole number ≥ 1 \(got 0\)/,
    );
  });
});
