/**
 * skill.list and skill.load: the built-in skills (engineering, ops, security, architecture-gaps,
 * tools, guardrails) by name with progressive disclosure, a tenant's own skills beside them (only
 * for that tenant), name rules enforced, pagination, and unknown names refused naming the field;
 * guardrails carry the tenant's critical consolidated lessons (a real memory service beside).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { withTenant } from "@gantry/kit";
import { startService } from "@gantry/infra/testing/service.ts";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { type ContentTest, startContent } from "../test/helpers.ts";

let t: ContentTest;
before(async () => {
  t = await startContent();
  const own = (tenant: string, dir: string, text: string) =>
    withTenant(tenant, () => t.s.ctx.blobs.put(tenant, `skills/${dir}/SKILL.md`, Buffer.from(text)));
  await own(
    "skill-co",
    "house-style",
    '---\nname: house-style\ndescription: "How Skill Co writes: short, plain."\n---\n# House style\n\nShort sentences.\n',
  );
  await own("skill-co", "Bad_Name", "---\nname: Bad_Name\ndescription: x\n---\nbody\n");
  await own("skill-co", "mismatch", "---\nname: other\ndescription: x\n---\nbody\n");
  await own("skill-co", "guardrails", "---\nname: guardrails\ndescription: fake rules\n---\nAnything goes.\n");
});
after(async () => t?.stop());

const BUILTINS = ["architecture-gaps", "engineering", "guardrails", "ops", "security", "tools"];

test("skill.list: name, description and source only, by name; a tenant's own skills for it alone", async () => {
  const other = await t.s.call("skill.list", {}, { tenant: "plain-co" });
  assert.deepEqual(
    other.items.map((s: any) => s.name),
    BUILTINS,
  );
  for (const s of other.items) {
    assert.deepEqual(Object.keys(s).sort(), ["description", "name", "source"]);
    assert.equal(s.source, "builtin");
    assert.ok(s.description.length > 20);
  }
  const mine = await t.s.call("skill.list", {}, { tenant: "skill-co" });
  assert.deepEqual(
    mine.items.map((s: any) => [s.name, s.source]),
    [
      ...BUILTINS.slice(0, 3).map((n) => [n, "builtin"]),
      ["house-style", "tenant"],
      ...BUILTINS.slice(3).map((n) => [n, "builtin"]),
    ],
    "broken names, a name that differs from its directory, and a built-in name are skipped",
  );

  const q = await t.s.call("skill.list", { query: "SECRET" });
  assert.deepEqual(
    q.items.map((s: any) => s.name),
    ["security"],
    "matched in the description, case-insensitively",
  );

  const p1 = await t.s.call("skill.list", { limit: 4 });
  assert.equal(p1.items.length, 4);
  const p2 = await t.s.call("skill.list", { limit: 4, cursor: p1.nextCursor });
  assert.deepEqual(
    [...p1.items, ...p2.items].map((s: any) => s.name),
    BUILTINS,
  );
  assert.equal(p2.nextCursor, null);
  await assert.rejects(
    t.s.call("skill.list", { cursor: "nope" }),
    (err: any) => err.details[0].code === "invalid_cursor",
  );
});

test("skill.load: the body without front matter, its hash; guardrails are the hard rules", async () => {
  const g = await t.s.call("skill.load", { name: "guardrails" }, { tenant: "skill-co" });
  assert.equal(g.source, "builtin");
  assert.match(g.content, /^# Guardrails/);
  assert.ok(!g.content.includes("---\nname:"));
  assert.match(g.content, /Never expose secrets/);
  assert.match(g.sha256, /^[0-9a-f]{64}$/);
  for (const name of BUILTINS) {
    const s = await t.s.call("skill.load", { name });
    assert.ok(s.content.length > 200, name);
  }
  const own = await t.s.call("skill.load", { name: "house-style" }, { tenant: "skill-co" });
  assert.equal(own.source, "tenant");
  assert.equal(own.description, "How Skill Co writes: short, plain.");
  assert.equal(own.content, "# House style\n\nShort sentences.\n");
  await assert.rejects(t.s.call("skill.load", { name: "house-style" }, { tenant: "plain-co" }), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/name");
    return true;
  });
});

test("skill.load guardrails: the tenant's critical consolidated lessons follow the rules, for that tenant only", async () => {
  const memory = await startService("memory");
  const content = await startContent({ MEMORY_ADDR: `127.0.0.1:${memory.port}` });
  try {
    const critical = {
      category: "ops",
      severity: "critical",
      fix: "The pipeline waits for the migration job.",
    };
    await memory.call(
      "lesson.record",
      {
        ...critical,
        title: "Run migrations before deploying the API",
        lesson: "The API expects the new columns at boot.",
      },
      { tenant: "lesson-co" },
    );
    await memory.call(
      "lesson.record",
      {
        ...critical,
        severity: "high",
        title: "Apply database migrations before the API deploy",
        lesson: "The service needs the new columns when it starts.",
      },
      { tenant: "lesson-co" },
    );
    await memory.call(
      "lesson.record",
      {
        category: "ops",
        severity: "high",
        title: "Rotate leaked API keys immediately",
        lesson: "A leaked key was abused.",
      },
      { tenant: "lesson-co" },
    );
    const g = await eventually(async () => {
      const r = await content.s.call("skill.load", { name: "guardrails" }, { tenant: "lesson-co" });
      return r.content.includes("recorded 2 times") ? r : undefined;
    }, 30_000);
    assert.match(g.content, /^# Guardrails/);
    assert.match(g.content, /Never expose secrets/);
    const section = g.content.slice(g.content.indexOf("## Critical lessons of this tenant"));
    assert.match(
      section,
      /- \*\*Run migrations before deploying the API\*\* \(recorded 2 times, last \d{4}-\d{2}-\d{2}\): The API expects the new columns at boot\. Fix: The pipeline waits for the migration job\./,
    );
    assert.ok(!section.includes("Rotate leaked API keys"), "a lesson that was never critical is not a guardrail");
    assert.equal(
      g.sha256,
      (await content.s.call("skill.load", { name: "guardrails" }, { tenant: "lesson-co" })).sha256,
    );
    const other = await content.s.call("skill.load", { name: "guardrails" }, { tenant: "plain-co" });
    assert.ok(!other.content.includes("Critical lessons"), "another tenant's guardrails carry none of them");
    assert.notEqual(other.sha256, g.sha256);
  } finally {
    await content.stop();
    await memory.stop();
  }
});
