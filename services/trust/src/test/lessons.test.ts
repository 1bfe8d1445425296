/**
 * Consolidated lessons through the whole stack (gateway + keys + memory + trust + content; the
 * default embedder, use-lite-512-v1): one lesson recorded three times in other words becomes one
 * critical consolidated lesson, which plan.create puts in the first phase of a plan it is relevant
 * to (and not of one it is not), and which skill.load guardrails carries.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
let acme: string;
let beta: string;

before(async () => {
  t = await startTestStack({ services: ["keys", "memory", "trust", "content"], healthTimeoutMs: 120_000 });
  [acme, beta] = (await Promise.all([t.insertKey({ tenant: "acme" }), t.insertKey({ tenant: "beta" })])).map(
    (k) => k.key,
  );
});
after(async () => {
  await t?.stop();
});

async function ok(ability: string, input: unknown, key = acme): Promise<any> {
  const res = await t.call(ability, { input }, key);
  assert.equal(res.status, 200, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

const SAID = [
  ["Run migrations before deploying the API", "The API expects the new columns at boot.", "high"],
  ["Apply database migrations before the API deploy", "The service needs the new columns when it starts.", "critical"],
  ["Deploy the schema migration first, then the API", "Booting the API against an old schema fails.", "medium"],
] as const;

test("a lesson recorded three times is one critical lesson in plan.create's plan and in skill.load guardrails", async () => {
  for (const [title, lesson, severity] of SAID) await ok("lesson.record", { title, lesson, severity, category: "ops" });
  await ok("lesson.record", {
    title: "Never send invoices on weekends",
    lesson: "Customers ignore emails sent on Saturday.",
    severity: "critical",
    category: "business",
  });
  const check = "Apply the critical lesson (recorded 3 times): Run migrations before deploying the API";
  const plan = await eventually(async () => {
    const p = await ok("plan.create", { goal: "Ship the billing API together with its database migration" });
    return p.phases[0].checks.some((c: any) => c.text === check) ? p : undefined;
  }, 30_000);
  const lessonCheck = plan.phases[0].checks.find((c: any) => c.text === check);
  assert.equal(lessonCheck.source, "lesson");
  assert.match(lessonCheck.sourceRef, /^lcn_[0-9A-Za-z]{22}$/);
  assert.deepEqual(plan.sources.lessons, [lessonCheck.sourceRef], "the invoices lesson has nothing to do with it");

  const unrelated = await ok("plan.create", { goal: "Write the quarterly newsletter for our readers" });
  assert.deepEqual(unrelated.sources.lessons, []);
  const elsewhere = await ok(
    "plan.create",
    { goal: "Ship the billing API together with its database migration" },
    beta,
  );
  assert.deepEqual(elsewhere.sources.lessons, [], "another tenant's plans do not see them");

  const guardrails = await ok("skill.load", { name: "guardrails" });
  assert.match(guardrails.content, /^# Guardrails/);
  assert.match(guardrails.content, /- \*\*Run migrations before deploying the API\*\* \(recorded 3 times, last /);
  assert.match(guardrails.content, /- \*\*Never send invoices on weekends\*\* \(recorded once, last /);
  const theirs = await ok("skill.load", { name: "guardrails" }, beta);
  assert.ok(!theirs.content.includes("Critical lessons"));
});
