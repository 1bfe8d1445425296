/**
 * Plans and checklists through the whole stack (gateway + keys + trust + memory + workspace): a plan
 * drawn from the template, the tenant's decisions (memory decision.list over gRPC) and the lessons
 * of earlier plans; executed phase by phase, each phase verified against receipts of calls made
 * under a run (hash-matched: a receipt of another ability, another tenant or a failed call does not
 * pass); closed by plan.learn, whose lessons reach the memory service and shape the next plan and
 * the next QA checklist.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
let alice: string;
let beta: string;

before(async () => {
  t = await startTestStack({
    services: ["keys", "trust", "memory", "workspace"],
    healthTimeoutMs: 120_000,
    env: { EMBEDDER: "lexical" },
  });
  [alice, beta] = (
    await Promise.all([t.insertKey({ tenant: "acme", name: "alice" }), t.insertKey({ tenant: "beta", name: "beta" })])
  ).map((k) => k.key);
});
after(async () => {
  await t?.stop();
});

async function ok(ability: string, input: unknown, key = alice, context?: unknown): Promise<any> {
  const res = await t.call(ability, { input, ...(context ? { context } : {}) }, key);
  assert.equal(res.status, 200, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

/** Runs `ability` with `input` under a fresh run holding its permit; returns the receipt id (request id). */
async function underRun(ability: string, input: Record<string, unknown>, key = alice): Promise<string> {
  const run = await ok("trust.preflight", { task: `do ${ability}`, actions: [{ ability, input }] }, key);
  const res = await t.call(ability, { input, context: { runId: run.id } }, key);
  return res.headers["x-request-id"];
}

test("a plan is created, executed phase by phase and verified with receipts", async () => {
  const decision = await ok("decision.record", {
    title: "Customer data migration happens only on weekends",
    why: "Weekday traffic is too high for a customer data migration.",
  });
  const input = { goal: "Migrate customer data to the new CRM", constraints: ["No downtime"] };
  const plan = await ok("plan.create", input);
  assert.equal(plan.method, "deterministic");
  assert.equal(plan.status, "planned");
  assert.deepEqual(
    plan.phases.map((p: any) => [p.id, p.status, p.dependsOn]),
    [
      ["p1-scope", "ready", []],
      ["p2-build", "blocked", ["p1-scope"]],
      ["p3-verify", "blocked", ["p2-build"]],
      ["p4-close", "blocked", ["p3-verify"]],
    ],
  );
  assert.deepEqual(plan.sources.decisions, [decision.id]);
  const first = plan.phases[0];
  assert.ok(first.checks.some((c: any) => c.text.startsWith(`Respects ${decision.id}`)));
  const last = plan.phases[3];
  assert.ok(last.checks.some((c: any) => c.source === "goal" && c.text.includes("Migrate customer data")));
  assert.ok(last.checks.some((c: any) => c.source === "constraint" && c.text.includes("No downtime")));
  // Deterministic: the same input gives the same phases.
  const again = await ok("plan.create", input);
  assert.deepEqual(again.phases, plan.phases);

  // A blocked phase cannot start.
  const blocked = await t.call("plan.execute", { input: { planId: plan.id, phaseId: "p2-build" } }, alice);
  assert.equal(blocked.status, 409);
  assert.match(blocked.body.error, /waits for p1-scope/);

  const started = await ok("plan.execute", { planId: plan.id });
  assert.deepEqual(started.started, ["p1-scope"]);
  assert.equal(started.plan.status, "in_progress");
  assert.equal(started.plan.phases[0].status, "in_progress");

  // Evidence: a receipt of another tenant, a request id that is no receipt, a receipt of an
  // ability the phase does not expect, and a failed call of the one it does.
  const foreign = await underRun("task.create", { title: "beta's task" }, beta);
  const contact = await underRun("contact.create", { name: "Not a task" });
  // The same idempotencyKey with another title: the task service refuses it (409) under the run.
  await ok("task.create", { title: "first", idempotencyKey: "clash" });
  const failed = await underRun("task.create", { title: "second", idempotencyKey: "clash" });
  const bad = await ok("plan.verify", {
    planId: plan.id,
    phaseId: "p1-scope",
    receiptIds: [foreign, contact, failed, "req_01JAAAAAAAAAAAAAAAAAAAAAAA"],
  });
  assert.equal(bad.passed, false);
  assert.deepEqual(
    bad.receipts.map((r: any) => r.accepted),
    [false, false, true, false],
  );
  assert.match(bad.receipts[0].reason, /unknown/);
  assert.match(bad.receipts[1].reason, /contact\.create.*match no action/);
  const taskCheck = bad.checks.find((c: any) => c.text.startsWith("A task.create call"));
  assert.equal(taskCheck.status, "failed");
  assert.match(taskCheck.reason, /failed \(HTTP 409\)/);
  assert.equal(bad.plan.phases[0].status, "failed");

  // A succeeded task.create under a run verifies the phase and unblocks the next.
  const task = await underRun("task.create", { title: "Write the success criteria" });
  const good = await ok("plan.verify", { planId: plan.id, phaseId: "p1-scope", receiptIds: [task] });
  assert.equal(good.passed, true, JSON.stringify(good.checks));
  assert.ok(good.checks.every((c: any) => c.status === "passed" && c.evidence.length));
  assert.equal(good.plan.phases[0].status, "verified");
  assert.ok(good.plan.phases[0].verified);
  assert.equal(good.plan.phases[1].status, "ready");

  // The remaining phases expect no particular ability: any receipt of the tenant made under a run.
  for (const phaseId of ["p2-build", "p3-verify", "p4-close"]) {
    const s = await ok("plan.execute", { planId: plan.id, phaseId, idempotencyKey: `start-${phaseId}` });
    assert.deepEqual(s.started, [phaseId]);
    const replay = await t.call(
      "plan.execute",
      { input: { planId: plan.id, phaseId, idempotencyKey: `start-${phaseId}` } },
      alice,
    );
    assert.equal(replay.status, 200);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.body.result.started, [phaseId]);
    assert.equal(replay.body.result.plan.phases.find((p: any) => p.id === phaseId).status, "in_progress");
    const receipt = await underRun("contact.create", { name: `Evidence for ${phaseId}` });
    const v = await ok("plan.verify", { planId: plan.id, phaseId, receiptIds: [receipt] });
    assert.equal(v.passed, true, JSON.stringify(v.checks));
  }
  const whole = await ok("plan.verify", { planId: plan.id });
  assert.equal(whole.passed, true);
  assert.equal(whole.plan.status, "verified");

  // Another tenant sees no plan.
  assert.equal((await t.call("plan.verify", { input: { planId: plan.id } }, beta)).status, 404);

  // plan.learn: lessons go to memory's inbox, the plan closes, and the next plan draws on them.
  const learnt = await ok("plan.learn", {
    planId: plan.id,
    outcome: "succeeded",
    notes: "Went fine.",
    lessons: [{ title: "Rehearse on a copy first", lesson: "The copy caught two bad rows.", severity: "high" }],
  });
  assert.equal(learnt.status, "closed");
  assert.match(learnt.lessons[0].id, /^les_/);
  const { rows } = await t.db.query("SELECT title FROM memory.lessons WHERE id = $1", [learnt.lessons[0].id]);
  assert.equal(rows[0]?.title, "Rehearse on a copy first");
  assert.equal((await t.call("plan.learn", { input: { planId: plan.id, outcome: "failed" } }, alice)).status, 409);

  const next = await ok("plan.create", { goal: "Migrate invoices to the new CRM" });
  assert.deepEqual(next.sources.lessons, [learnt.lessons[0].id]);
  assert.ok(next.phases[0].checks.some((c: any) => c.source === "lesson" && c.sourceRef === learnt.lessons[0].id));

  // The lesson also reaches QA checklists derived for the tenant.
  const checklist = await ok("qa.checklist.create", {
    title: "CRM release",
    scope: "New booking form with deposit payment and a confirmation email",
    idempotencyKey: "crm-release",
  });
  assert.ok(checklist.items.some((i: any) => i.source === "lesson" && i.sourceRef === learnt.lessons[0].id));
  assert.ok(checklist.items.some((i: any) => i.check.startsWith("A payment is charged exactly once")));
  const order = { critical: 0, high: 1, medium: 2, low: 3 } as Record<string, number>;
  const severities = checklist.items.map((i: any) => order[i.severity]);
  assert.deepEqual(
    severities,
    [...severities].sort((a, b) => a - b),
    "derived items come by severity",
  );
});

test("qa.checklist.create: given items first with medium as default, plan and vertical checked, idempotent", async () => {
  const plan = await ok("plan.create", { goal: "Launch online booking", vertical: "clinic", type: "launch" });
  assert.equal(plan.phases[0].id, "p1-prepare");
  const input = {
    title: "Booking release",
    items: [{ check: "A booking sends one confirmation email", severity: "high" }, { check: "The widget loads" }],
    planId: plan.id,
    idempotencyKey: "booking-1",
  };
  const c = await ok("qa.checklist.create", input);
  assert.match(c.id, /^qac_/);
  assert.equal(c.vertical, "clinic", "the plan's vertical applies");
  assert.deepEqual(
    c.items.map((i: any) => [i.id, i.severity, i.source]),
    [
      ["i1", "high", "given"],
      ["i2", "medium", "given"],
    ],
  );
  const replay = await t.call("qa.checklist.create", { input }, alice);
  assert.equal(replay.body.result.id, c.id);
  const conflict = await t.call("qa.checklist.create", { input: { ...input, title: "Other" } }, alice);
  assert.equal(conflict.status, 409);
  const derived = await ok("qa.checklist.create", {
    title: "Clinic release",
    scope: "Appointment booking page",
    vertical: "clinic",
  });
  assert.ok(derived.items.some((i: any) => i.sourceRef === "qa.clinic.v1"));
  assert.equal(derived.items[0].severity, "critical");
  const foreign = await t.call("qa.checklist.create", { input: { title: "x", scope: "y", planId: plan.id } }, beta);
  assert.equal(foreign.status, 404);
});
