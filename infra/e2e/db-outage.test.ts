/**
 * A database outage under load is an honest 503, never a 500: with Postgres stopped while clients
 * keep reading and creating contacts, every answer is either 200 or 503 `unavailable` with
 * `retryAfterMs` and `Retry-After`, and calls succeed again once Postgres is back. (The kit's one
 * database-error translation, kit/src/data/db-errors.ts, is what makes this so for every service.)
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestStack, type TestStack } from "../testing/stack.ts";

let t: TestStack;
let key: string;
before(async () => {
  t = await startTestStack({ services: ["keys", "workspace"], healthTimeoutMs: 120_000 });
  key = (await t.insertKey({ tenant: "outage", scopes: ["contact.*"], rateLimit: 1_000_000, rateWindowSeconds: 60 }))
    .key;
});
after(async () => t?.stop());

interface Answer {
  phase: "before" | "down" | "after";
  status: number;
  body: { code?: string; retryAfterMs?: number; error?: string };
  retryAfter?: string;
}

test("Postgres stopped under load: only 200s and 503s, then 200s again", async () => {
  const first = await t.call("contact.create", { input: { name: "Before the outage" } }, key);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const id = first.body.result.id as string;

  const answers: Answer[] = [];
  let phase: Answer["phase"] = "before";
  let running = true;
  const worker = async (n: number) => {
    for (let i = 0; running; i++) {
      const res =
        (n + i) % 3 === 0
          ? await t.call("contact.create", { input: { name: `Load ${n}-${i}` } }, key)
          : await t.call("contact.get", { input: { id } }, key);
      answers.push({ phase, status: res.status, body: res.body, retryAfter: res.headers["retry-after"] });
    }
  };
  const workers = Array.from({ length: 6 }, (_, n) => worker(n));

  await sleep(1_000);
  phase = "down";
  await t.stack.stopService("postgres");
  await sleep(6_000);
  await t.stack.startService("postgres");
  await t.stack.waitHealthy("postgres", 60_000);
  phase = "after";
  // Pools reconnect on their own; give them a moment, then require success.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    await sleep(500);
    const recent = answers.filter((a) => a.phase === "after").slice(-12);
    if (recent.length >= 12 && recent.every((a) => a.status === 200)) break;
  }
  running = false;
  await Promise.all(workers);

  const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 503);
  assert.deepEqual(
    unexpected.slice(0, 5).map((a) => ({ status: a.status, body: a.body })),
    [],
    `${unexpected.length} of ${answers.length} answers were neither 200 nor 503`,
  );
  const unavailable = answers.filter((a) => a.status === 503);
  assert.ok(unavailable.length > 0, "the outage was noticed");
  for (const a of unavailable) {
    assert.equal(a.body.code, "unavailable");
    assert.ok((a.body.retryAfterMs ?? 0) > 0, "503 carries retryAfterMs");
    assert.match(a.retryAfter ?? "", /^\d+$/, "503 carries Retry-After");
  }
  assert.ok(answers.some((a) => a.phase === "before" && a.status === 200));
  const last = answers.filter((a) => a.phase === "after").slice(-12);
  assert.ok(last.length === 12 && last.every((a) => a.status === 200), "calls succeed again after Postgres is back");
});
