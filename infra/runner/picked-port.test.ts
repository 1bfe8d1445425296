/**
 * A dependency that loses its picked port before binding it (another process took it in between,
 * as when several stacks start on one machine) is started again on another port, with the real
 * nats-server and Postgres; a failure of any other kind still fails at once. The port is "lost" by
 * handing out one a listener of this test holds: the race made certain.
 */
import { after, afterEach, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { findNatsServer } from "./binaries.ts";
import { startOnPickedPort } from "./picked-port.ts";
import { pgReady, preparePostgres } from "./postgres.ts";
import { freePort } from "./ports.ts";
import { LogSink, ManagedProcess, type ProcessSpec, Watchdog } from "./supervisor.ts";

let holder: net.Server;
let taken = 0;
let dir: string;
const watchdog = new Watchdog();
let procs: ManagedProcess[] = [];
let sink: LogSink;

before(async () => {
  holder = net.createServer((socket) => socket.end("not yours\r\n"));
  await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
  taken = (holder.address() as AddressInfo).port;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "picked-port-"));
  // Postgres runs as the `postgres` user when we are root: it must pass through the directory.
  fs.chmodSync(dir, 0o711);
});
afterEach(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  procs = [];
});
after(() => {
  holder.close();
  watchdog.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The taken port first, then free ones; records what it handed out. */
function picker() {
  const picked: number[] = [];
  return {
    picked,
    pick: async () => {
      const port = picked.length === 0 ? taken : await freePort();
      picked.push(port);
      return port;
    },
  };
}

function started() {
  sink = new LogSink();
  const add = (spec: ProcessSpec) => {
    const proc = new ManagedProcess(spec, sink, watchdog);
    procs.push(proc);
    proc.start();
    return proc;
  };
  return { add, sink, wait: { timeoutMs: 60_000, failAfterExits: 1 } };
}

/** The first line a server sends on a new connection. */
function greeting(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("data", (d) => {
      resolve(d.toString().split("\r\n")[0] ?? "");
      socket.destroy();
    });
    socket.once("error", reject);
  });
}

test("nats-server that lost its port to another listener starts on the next one", async () => {
  const bin = await findNatsServer();
  const { picked, pick } = picker();
  const { port, proc } = await startOnPickedPort({
    name: "nats",
    pick,
    spec: (p) => ({ name: "nats", command: bin, args: ["-a", "127.0.0.1", "-p", String(p)] }),
    readyLine: "Server is ready",
    ...started(),
  });
  assert.equal(picked.length, 2);
  assert.equal(port, picked[1]);
  assert.notEqual(port, taken);
  // The listener that held the port also accepts connections: only NATS's own line made it ready.
  assert.match(await greeting(port), /^INFO \{/);
  assert.equal(procs.length, 2);
  assert.equal(procs[0]!.state, "stopped", "the loser is stopped, not left restarting");
  assert.equal(proc, procs[1]);
  assert.ok(sink.text().includes(`nats: port ${taken} was taken before it could bind it; trying another`));
});

test("Postgres that lost its port starts on the next one and answers SQL there", async () => {
  const { picked, pick } = picker();
  let adminUrl = "";
  const { port } = await startOnPickedPort({
    name: "postgres",
    pick,
    spec: async (p) => {
      const prepared = await preparePostgres({
        dir: path.join(dir, "postgres"),
        port: p,
        durable: false,
        password: "picked-port-test",
        log: () => {},
      });
      adminUrl = prepared.adminUrl;
      return prepared.spec;
    },
    readyLine: "database system is ready to accept connections",
    ...started(),
  });
  assert.deepEqual(picked, [taken, port]);
  assert.ok(await pgReady(adminUrl), "Postgres answers on the second port");
});

test("a start that fails for another reason fails at once, on the first port", async () => {
  const bin = await findNatsServer();
  let picks = 0;
  await assert.rejects(
    startOnPickedPort({
      name: "nats",
      pick: () => {
        picks++;
        return freePort();
      },
      spec: (p) => ({ name: "nats", command: bin, args: ["--no-such-flag", "-p", String(p)] }),
      readyLine: "Server is ready",
      ...started(),
    }),
    /nats keeps crashing/,
  );
  assert.equal(picks, 1);
});
