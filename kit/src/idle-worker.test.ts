/**
 * The kit's idle worker with small worker modules written for each case: calls are answered in
 * order, a call's own failure is `internal` and leaves the worker serving, a worker that dies fails
 * its calls with `unavailable` and the next call starts a new one, an idle worker is ended and the
 * next call starts it again, and a worker that cannot load says why.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { IdleWorker, type IdleWorkerOptions } from "./idle-worker.ts";

const dir = mkdtempSync(join(tmpdir(), "gantry-idle-worker-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const kit = pathToFileURL(join(import.meta.dirname, "idle-worker.ts")).href;

/** A worker module whose answer to a call is `body` (a function of `req`, with `threadId` and `loads`). */
function workerModule(name: string, body: string, load = ""): URL {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { threadId as thread } from "node:worker_threads";
const threadId = \`\${process.pid}/\${thread}\`;
import { serveWorkerCalls } from ${JSON.stringify(kit)};
await serveWorkerCalls(async () => { ${load}; return async (req) => { ${body} }; });
`,
  );
  return pathToFileURL(file);
}

const echo = workerModule(
  "echo",
  `if (req.fail) throw new Error("no " + req.n);
   if (req.exit) process.exit(3);
   await new Promise((r) => setTimeout(r, req.waitMs ?? 0));
   return { result: { n: req.n, threadId } };`,
);

type Req = { n: number; fail?: boolean; exit?: boolean; waitMs?: number };
type Res = { n: number; threadId: string };

for (const isolation of ["thread", "process"] as const) {
  describe(`in a ${isolation}`, () => {
    /** Runs `fn` with an echo worker of this isolation, closed afterwards; returns the closed worker. */
    async function withEcho(fn: (w: IdleWorker<Req, Res>) => Promise<void>, extra: Partial<IdleWorkerOptions> = {}) {
      const w = new IdleWorker<Req, Res>({ url: echo, name: "echo", what: "the echo", isolation, ...extra });
      try {
        await fn(w);
      } finally {
        await w.close();
      }
      return w;
    }

    test("calls are answered one at a time, in order, by one worker", async () => {
      await withEcho(async (w) => {
        const order: number[] = [];
        const answers = await Promise.all(
          [30, 0, 10].map(async (waitMs, n) => {
            const r = await w.call({ n, waitMs });
            order.push(r.n);
            return r;
          }),
        );
        assert.deepEqual(order, [0, 1, 2]);
        assert.equal(new Set(answers.map((a) => a.threadId)).size, 1);
      });
    });

    test("a call's own failure is internal, names the worker and leaves it serving", async () => {
      await withEcho(async (w) => {
        const first = await w.call({ n: 1 });
        await assert.rejects(w.call({ n: 2, fail: true }), (err: Error & { code?: string; cause?: Error }) => {
          assert.equal(err.code, "internal");
          assert.equal(err.message, "The echo failed.");
          assert.equal(err.cause?.message, "no 2");
          return true;
        });
        assert.equal((await w.call({ n: 3 })).threadId, first.threadId);
      });
    });

    test("a worker that dies fails its calls with unavailable; the next call starts a new one", async () => {
      await withEcho(async (w) => {
        const first = await w.call({ n: 1 });
        const dying = w.call({ n: 2, exit: true });
        const queued = w.call({ n: 3 }); // waits behind it in the worker
        await assert.rejects(dying, { code: "unavailable", message: "The echo stopped; retry the call." });
        await assert.rejects(queued, { code: "unavailable" });
        assert.equal(w.running, false);
        const next = await w.call({ n: 4 });
        assert.notEqual(next.threadId, first.threadId);
      });
    });

    test("with idleMs the worker is ended once no call is in flight, and the next call starts it again", async () => {
      const closed = await withEcho(
        async (w) => {
          const first = await w.call({ n: 1, waitMs: 300 }); // longer than idleMs: in flight, not idle
          assert.equal(w.running, true);
          await eventually(async () => !w.running);
          assert.equal(w.running, false, "ended when idle");
          const again = await w.call({ n: 2 });
          assert.notEqual(again.threadId, first.threadId);
          assert.equal(w.running, true);
        },
        { idleMs: 150 },
      );
      await assert.rejects(closed.call({ n: 3 }), { code: "unavailable" }, "closed: answers instead of hanging");
    });
  });
}

test("a worker that cannot load says why, and one that never gets ready times out", async () => {
  const broken = workerModule("broken", "return { result: 1 };", `throw new Error("model.json missing")`);
  await assert.rejects(new IdleWorker({ url: broken, name: "b", what: "the model" }).ready(), {
    message: "the model could not load: model.json missing",
  });
  const silent = join(dir, "silent.mjs");
  writeFileSync(silent, "setInterval(() => {}, 1000);\n");
  const w = new IdleWorker({ url: pathToFileURL(silent), name: "s", what: "the model", loadTimeoutMs: 200 });
  await assert.rejects(w.ready(), { message: "the model did not load within 200 ms" });
  await w.close();
});

test("a worker process ends with the service that started it, even one that was killed", async () => {
  const service = join(dir, "service.mjs");
  writeFileSync(
    service,
    `import { IdleWorker } from ${JSON.stringify(kit)};
const w = new IdleWorker({ url: new URL(${JSON.stringify(echo.href)}), name: "echo", what: "the echo", isolation: "process" });
const { threadId } = await w.call({ n: 1 });
console.log(threadId.split("/")[0]);
setInterval(() => {}, 1000);
`,
  );
  const parent = spawn(process.execPath, [service], { stdio: ["ignore", "pipe", "inherit"] });
  const childPid = Number(
    await new Promise<string>((resolve) => parent.stdout.once("data", (d) => resolve(String(d)))),
  );
  assert.ok(childPid > 0 && childPid !== parent.pid);
  assert.match(readFileSync(`/proc/${childPid}/cmdline`, "utf8"), /--idle-worker=echo/, "named on its command line");
  parent.kill("SIGKILL");
  const alive = () => {
    try {
      process.kill(childPid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await eventually(async () => !alive());
  assert.equal(alive(), false, "the worker process exited when its service's channel closed");
});

test("close() returns in a process that has nothing else to do, with either isolation", async () => {
  for (const isolation of ["thread", "process"]) {
    const service = join(dir, `closing-${isolation}.mjs`);
    writeFileSync(
      service,
      `import { IdleWorker } from ${JSON.stringify(kit)};
const w = new IdleWorker({ url: new URL(${JSON.stringify(echo.href)}), name: "echo", what: "the echo", isolation: "${isolation}" });
await w.call({ n: 1 });
await w.close();
console.log("closed");
`,
    );
    const parent = spawn(process.execPath, [service], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    parent.stdout.on("data", (d) => (out += d));
    parent.stderr.on("data", (d) => (out += d));
    const code = await new Promise((resolve) => parent.once("exit", resolve));
    // Node ends a process whose top-level await can never settle with code 13.
    assert.deepEqual({ code, out: out.trim() }, { code: 0, out: "closed" }, `${isolation}: ${out}`);
  }
});
