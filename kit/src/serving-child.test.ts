/**
 * The one wait for a server the tests start as a child process: it returns once the child answers,
 * and stop() ends it; a child that exits first fails at once with its exit code and output; one that
 * never answers fails at the deadline and is stopped, not left running.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { untilServing } from "./serving-child.ts";

const node = (script: string) => spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });

test("a child that starts listening late is waited for, and stop() ends it", async () => {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  const child = node(
    `setTimeout(() => require("node:http").createServer((_, res) => res.end("up")).listen(${port}, "127.0.0.1"), 300);`,
  );
  try {
    let tries = 0;
    const server = await untilServing(child, {
      what: "the late server",
      timeoutMs: 10_000,
      ready: async () => {
        tries++;
        return (await fetch(`http://127.0.0.1:${port}/`)).ok;
      },
    });
    assert.ok(tries > 1, "it was not listening on the first try");
    await server.stop();
    assert.notEqual(child.exitCode ?? child.signalCode, null, "the child has exited");
  } finally {
    child.kill("SIGKILL");
  }
});

test("a child that exits before it answers fails at once, with its exit code and output", async () => {
  const t0 = Date.now();
  const child = node(`console.error("config.yaml: unknown key 'recievers'"); process.exit(2);`);
  await assert.rejects(untilServing(child, { what: "jaeger", timeoutMs: 30_000, ready: async () => false }), {
    message: /^jaeger did not start: it exited \(2\)\nconfig\.yaml: unknown key 'recievers'/,
  });
  assert.ok(Date.now() - t0 < 10_000, "did not wait for the deadline");
});

test("a child that never answers fails at the deadline with the last try's error and is stopped", async () => {
  const child = node("setInterval(() => {}, 1000);");
  await assert.rejects(
    untilServing(child, {
      what: "the silent server",
      timeoutMs: 300,
      ready: async () => {
        throw new Error("connect ECONNREFUSED");
      },
    }),
    { message: /did not answer within 300 ms \(last try: connect ECONNREFUSED\)/ },
  );
  assert.equal(child.signalCode, "SIGTERM", "stopped, not left running");
});
