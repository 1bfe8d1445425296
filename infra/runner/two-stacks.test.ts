/**
 * Two stacks started at the same moment on one machine (issue 32 item 9), each by its own runner
 * process as two `npm start` would be, both asking for the usual service ports (keys 50051): each
 * service binds first and its runner hands on only the address it bound, so each gateway talks to
 * its own keys service. Before, both runners found 50051 free, the loser's keys crash-looped on
 * EADDRINUSE and its gateway, told 50051, answered 401 to its own admin key.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "node:test";
import { generateKey } from "@gantry/kit";

const STACK_MODULE = pathToFileURL(fileURLToPath(new URL("./stack.ts", import.meta.url))).href;

interface Started {
  url: string;
  keysAddr: string;
  adminKey: string;
  child: ChildProcess;
}

/** A runner process: starts a stack preferring the usual service ports, prints where it is, stops on SIGTERM. */
function startRunner(adminKey: string): { child: ChildProcess; ready: Promise<Started> } {
  const code = `
    const { startStack } = await import(${JSON.stringify(STACK_MODULE)});
    const s = await startStack({
      port: 0, services: ["keys"], preferServicePorts: true, quiet: true, healthTimeoutMs: 90000,
      env: { GANTRY_ADMIN_KEY: ${JSON.stringify(adminKey)}, LOG_LEVEL: "warn" },
    });
    process.on("SIGTERM", () => s.stop().then(() => process.exit(0)));
    setInterval(() => {}, 1000); // the stack's processes do not keep the runner alive by themselves
    console.log(JSON.stringify({ url: s.baseUrl, keysAddr: s.env.KEYS_ADDR }));
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const ready = new Promise<Started>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith('{"url"'));
      if (line) resolve({ ...(JSON.parse(line) as { url: string; keysAddr: string }), adminKey, child });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`the runner exited (${code}) before its stack was up:\n${out}`)));
  });
  return { child, ready };
}

const about = (url: string, key: string) =>
  fetch(`${url}/v1/abilities/gantry.about`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ input: {} }),
  });

test("two stacks started at once each get their own services; each admin key works on its own gateway only", {
  timeout: 240_000,
}, async () => {
  const runners = [startRunner(generateKey()), startRunner(generateKey())];
  try {
    const [a, b] = await Promise.all(runners.map((r) => r.ready));
    assert.notEqual(a.keysAddr, b.keysAddr, "each stack's keys service has an address of its own");
    for (const [own, other] of [
      [a, b],
      [b, a],
    ]) {
      const mine = await about(own.url, own.adminKey);
      const body = (await mine.json()) as { result?: { tenant: string } };
      assert.equal(mine.status, 200, `its own admin key on its own gateway: ${JSON.stringify(body)}`);
      assert.equal(body.result?.tenant, "platform");
      const foreign = await about(own.url, other.adminKey);
      assert.equal(foreign.status, 401, "the other stack's admin key is unknown here");
      await foreign.arrayBuffer();
      const health = (await (await fetch(`${own.url}/health`)).json()) as { services: Record<string, string> };
      assert.equal(health.services.keys, "SERVING");
    }
  } finally {
    await Promise.all(
      runners.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill("SIGKILL"), 20_000);
            child.once("exit", () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill("SIGTERM");
          }),
      ),
    );
  }
});
