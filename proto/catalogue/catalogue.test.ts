/**
 * Catalogue tests: the ids are exactly the spec's 79, every schema compiles under strict Ajv 2020
 * and is closed, bounded and described, every example validates, the spec's fields, required flags,
 * enums and defaults are where the spec puts them, owners match the BRIEF, scopes match as
 * documented, and docs/abilities.md is what render-docs.ts produces.
 *
 * Run: node --test proto/catalogue/
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import {
  abilitiesOfService,
  abilityById,
  abilityIds,
  areas,
  catalogue,
  expandScopes,
  isWellFormedScope,
  matchesScope,
} from "./index.ts";
import { decisions } from "./decisions.ts";
import { AREA_NAMES } from "./areas.ts";
import { renderDocs } from "./render-docs.ts";
import { walkSchema as walk } from "./schema-walk.ts";
import type { JsonSchema, ServiceName } from "./types.ts";

// ajv-formats is CommonJS: under Node's ESM loader the default import is `module.exports` (the
// plugin function, which also carries `.default`); TypeScript's view of it is the module object.
// Accept both shapes.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  (addFormatsModule as unknown as FormatsPlugin);

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const vendoredSpecPath = `${repoRoot}docs/spec/ability-api.md`;
const sharedSpecPath = `${repoRoot}../shared/spec/ability-api.md`;

function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, useDefaults: true });
  addFormats(ajv);
  return ajv;
}

const ajv = newAjv();
const validators = new Map(catalogue.map((ability) => [ability.id, ajv.compile(ability.input)]));

/** Validates a copy (useDefaults mutates) and returns `{ok, data, errors}`. */
function check(id: string, input: unknown) {
  const validate = validators.get(id);
  assert.ok(validate, `no validator for ${id}`);
  const data = structuredClone(input);
  const ok = validate(data);
  return { ok, data: data as Record<string, unknown>, errors: validate.errors };
}

function accepts(id: string, input: unknown): Record<string, unknown> {
  const result = check(id, input);
  assert.equal(result.ok, true, `${id} should accept ${JSON.stringify(input)}: ${JSON.stringify(result.errors)}`);
  return result.data;
}

function rejects(id: string, input: unknown): void {
  const result = check(id, input);
  assert.equal(result.ok, false, `${id} should reject ${JSON.stringify(input)}`);
}

/**
 * The 79 ids from the spec's "Allowed ability ids:" line. The shared spec comes from a template that
 * wrote `{base_url}` for `gantry.about`; the vendored copy (docs/spec) says `gantry.about`; both read the same.
 */
function specIds(markdown: string): string[] {
  const line = markdown.split("\n").find((l) => l.startsWith("Allowed ability ids:"));
  assert.ok(line, "spec has an 'Allowed ability ids:' line");
  return line
    .slice("Allowed ability ids:".length)
    .split(",")
    .map((id) => id.trim().replace(/\.$/, ""))
    .map((id) => (id === "{base_url}" ? "gantry.about" : id))
    .sort();
}

/** Top-level property schemas of an input (all variants for a `oneOf`). */
function variantsOf(schema: JsonSchema): JsonSchema[] {
  return Array.isArray(schema.oneOf) ? (schema.oneOf as JsonSchema[]) : [schema];
}

function props(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties ?? {}) as Record<string, JsonSchema>;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ── 1. ids ───────────────────────────────────────────────────────────────────────────────────

test("catalogue ids are exactly the 79 ids of the spec (vendored copy)", () => {
  const ids = specIds(readFileSync(vendoredSpecPath, "utf8"));
  assert.equal(ids.length, 79);
  assert.equal(new Set(ids).size, 79);
  assert.deepEqual([...abilityIds], ids);
  assert.equal(catalogue.length, 79);
  assert.equal(abilityById.size, 79);
});

test("vendored spec lists the same ids as the shared spec, when the shared copy is present", (t) => {
  if (!existsSync(sharedSpecPath)) {
    t.skip(`no ${sharedSpecPath}`);
    return;
  }
  assert.deepEqual(specIds(readFileSync(vendoredSpecPath, "utf8")), specIds(readFileSync(sharedSpecPath, "utf8")));
});

test("catalogue is sorted by id and areas are the ids' first segments, as the spec lists them", () => {
  const sorted = [...abilityIds].sort();
  assert.deepEqual([...abilityIds], sorted);
  for (const ability of catalogue) assert.equal(ability.area, ability.id.split(".")[0], ability.id);
  assert.deepEqual([...areas], [...new Set(catalogue.map((a) => a.id.split(".")[0]))].sort());
  assert.deepEqual([...areas], [...AREA_NAMES].sort());
  // Spec §1.4 lists the areas (the shared template wrote "the service" for gantry; the vendored copy says gantry).
  const spec = readFileSync(vendoredSpecPath, "utf8");
  const line = spec.split("\n").find((l) => l.includes("Ability areas (each ability id is"));
  assert.ok(line);
  const listed = line
    .slice(line.indexOf("):") + 2, line.indexOf(". A further area"))
    .split(",")
    .map((s) => s.trim())
    .map((s) => (s === "the service" ? "gantry" : s))
    .sort();
  assert.deepEqual([...areas], listed);
  assert.equal(areas.length, 28);
});

// ── 2. schemas ───────────────────────────────────────────────────────────────────────────────

test("every schema compiles under strict Ajv 2020 and its example validates", () => {
  for (const ability of catalogue) {
    assert.doesNotThrow(() => newAjv().compile(ability.input), ability.id);
    const before = JSON.stringify(ability.example);
    accepts(ability.id, ability.example);
    assert.equal(
      JSON.stringify(ability.example),
      before,
      `${ability.id}: validating must not mutate the catalogue example`,
    );
  }
});

test("every input is a closed object (or a oneOf of closed objects) without `context`", () => {
  for (const ability of catalogue) {
    const input = ability.input;
    assert.equal(input.type, "object", ability.id);
    if (Array.isArray(input.oneOf)) {
      assert.ok(input.oneOf.length >= 2, ability.id);
      assert.equal(input.properties, undefined, `${ability.id}: a union keeps its fields in the variants`);
    } else {
      assert.equal(input.additionalProperties, false, ability.id);
    }
    for (const variant of variantsOf(input)) {
      assert.equal(variant.type, "object", ability.id);
      assert.equal(variant.additionalProperties, false, ability.id);
      assert.ok(Array.isArray(variant.required), `${ability.id}: required list`);
      // `context` is the request envelope's CallContext, never input. lesson.record is the one
      // exception the spec makes: its `context` is a lesson field (a string: the situation).
      if (ability.id === "lesson.record") assert.equal(props(variant).context?.type, "string");
      else assert.ok(!("context" in props(variant)), `${ability.id}: context belongs to the envelope`);
    }
  }
});

test("every field is described, every object with fields is closed, strings/arrays/numbers are bounded", () => {
  const problems: string[] = [];
  for (const ability of catalogue) {
    walk(ability.input, ability.id, (node, path) => {
      if (node.type === "object" && isObject(node.properties)) {
        if (node.additionalProperties !== false) problems.push(`${path}: object with fields is not closed`);
        for (const [name, sub] of Object.entries(node.properties)) {
          if (isObject(sub) && typeof sub.description !== "string") problems.push(`${path}/${name}: no description`);
        }
      }
      if (
        node.type === "string" &&
        node.enum === undefined &&
        node.const === undefined &&
        node.maxLength === undefined
      ) {
        problems.push(`${path}: unbounded string`);
      }
      if (
        node.type === "string" &&
        typeof node.minLength === "number" &&
        node.minLength < 1 &&
        !/empty/i.test(String(node.description))
      ) {
        problems.push(`${path}: string may be empty without saying so`);
      }
      if (node.type === "array" && node.maxItems === undefined) problems.push(`${path}: array without maxItems`);
      if (
        (node.type === "number" || node.type === "integer") &&
        ((node.maximum === undefined && node.exclusiveMaximum === undefined) ||
          (node.minimum === undefined && node.exclusiveMinimum === undefined))
      ) {
        // free-form numbers inside metadata/filters are allowed; field-level numbers are not
        if (
          typeof node.description === "string" &&
          node.description.length > 0 &&
          !path.includes("patternProperties") &&
          !path.includes("$gt") &&
          !path.includes("$lt")
        ) {
          problems.push(`${path}: number without a range`);
        }
      }
      if (
        node.type === "object" &&
        !isObject(node.properties) &&
        !Array.isArray(node.oneOf) &&
        !Array.isArray(node.allOf) &&
        node.maxProperties === undefined &&
        !isObject(node.patternProperties) &&
        path !== ability.id
      ) {
        problems.push(`${path}: free object without maxProperties`);
      }
    });
  }
  assert.deepEqual(problems, []);
});

test("every ability has a one-line summary and a known owner", () => {
  const services = new Set<ServiceName>([
    "gateway",
    "keys",
    "connections",
    "payments",
    "memory",
    "content",
    "trust",
    "workspace",
    "web",
  ]);
  for (const ability of catalogue) {
    assert.ok(ability.summary.length > 10 && !ability.summary.includes("\n"), ability.id);
    assert.ok(services.has(ability.service), ability.id);
    assert.ok(ability.inputSource === "spec" || ability.inputSource === "ours", ability.id);
  }
});

test("list abilities paginate with limit 1..100 (default 20) and cursor", () => {
  const lists = catalogue.filter(
    (a) =>
      /\.list$/.test(a.id) ||
      a.id === "integration.app.connections" ||
      a.id === "integration.app.toolkits" ||
      a.id === "integration.app.tools",
  );
  assert.ok(lists.length >= 15);
  for (const ability of lists) {
    if (ability.id === "guide.list") continue; // spec §4.3 fixes its fields (a manifest read, not a paged store)
    const p = props(ability.input);
    assert.deepEqual(
      { type: p.limit?.type, minimum: p.limit?.minimum, maximum: p.limit?.maximum, default: p.limit?.default },
      { type: "integer", minimum: 1, maximum: 100, default: 20 },
      ability.id,
    );
    assert.equal(p.cursor?.type, "string", ability.id);
  }
});

// ── 3. the spec's fields ─────────────────────────────────────────────────────────────────────

/** Field tables of spec §4.3: `{ability: {field: required}}` for tables with a Field column. */
function specFieldTables(markdown: string): Map<string, Map<string, boolean>> {
  const tables = new Map<string, Map<string, boolean>>();
  let current: string | undefined;
  let inFieldTable = false;
  for (const line of markdown.split("\n")) {
    const heading = /^#### ([a-z_.]+)\s*$/.exec(line);
    if (heading) {
      current = heading[1];
      inFieldTable = false;
      continue;
    }
    if (line.startsWith("### ") || line.startsWith("## ")) current = undefined;
    if (!current || !line.startsWith("|")) {
      inFieldTable = false;
      continue;
    }
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === "Field" && cells[2] === "Required") {
      inFieldTable = true;
      continue;
    }
    if (!inFieldTable || /^-+$/.test(cells[0] ?? "")) continue;
    const fields = tables.get(current) ?? new Map<string, boolean>();
    fields.set(cells[0]!, cells[2] === "yes");
    tables.set(current, fields);
  }
  return tables;
}

/** Fields we add to a spec table, with the reason (documented in decisions.ts). */
/**
 * Optional fields we add to a spec table, each for a reason a user would give: pagination on a list,
 * an idempotency key where a retry could send an email twice.
 */
const SPEC_EXTENSIONS: Record<string, string[]> = {
  "key.list": ["limit", "cursor", "includeEvents"],
  "message.send_markdown": ["idempotencyKey"],
  // Issue 32 item 7: only the memories of a vertical (the context.verticalId they were saved with).
  "memory.search": ["vertical"],
};

test("spec §4.3 field tables: exactly those top-level fields with those required flags", () => {
  const tables = specFieldTables(readFileSync(vendoredSpecPath, "utf8"));
  assert.ok(tables.size >= 9, `parsed ${tables.size} tables`);
  for (const [id, fields] of tables) {
    const ability = abilityById.get(id);
    assert.ok(ability, id);
    assert.equal(ability.inputSource, "spec", id);
    const topLevel = [...fields].filter(([name]) => !name.includes("."));
    const p = props(ability.input);
    const expected = [...topLevel.map(([name]) => name), ...(SPEC_EXTENSIONS[id] ?? [])].sort();
    assert.deepEqual(Object.keys(p).sort(), expected, id);
    const required = new Set(ability.input.required as string[]);
    for (const [name, isRequired] of topLevel) assert.equal(required.has(name), isRequired, `${id}.${name} required`);
    for (const [name, isRequired] of fields) {
      if (!name.includes(".")) continue;
      const [parent, child] = name.split(".") as [string, string];
      const nested = p[parent];
      assert.ok(nested && isObject(nested.properties) && child in nested.properties, `${id}: ${name}`);
      assert.equal((nested.required as string[]).includes(child), isRequired, `${id}: ${name} required`);
    }
  }
});

test("spec §4.3 inline shapes: fields and required flags", () => {
  const expected: Record<string, { required: string[]; optional: string[] }> = {
    "connection.get": { required: ["service"], optional: [] },
    "connection.revoke": { required: ["service"], optional: [] },
    "contact.create": { required: ["name"], optional: ["phone", "email", "company", "metadata", "idempotencyKey"] },
    "decision.record": { required: ["title", "why"], optional: ["supersedes"] },
    // `method` (ours): `extractive` (default, the spec's behaviour) or `model` when one is configured.
    "document.summarize": { required: ["text"], optional: ["length", "method"] },
    "event.emit": { required: ["event"], optional: ["payload"] },
    "guide.list": { required: ["product"], optional: ["locale", "publicUrl"] },
    "integration.execute": { required: ["connectionId", "toolId", "arguments"], optional: ["idempotencyKey"] },
    "key.inspect": { required: [], optional: [] },
    "key.revoke": { required: ["id"], optional: ["reason", "confirmSelf"] },
    "memory.recall": { required: ["query"], optional: ["collection", "k", "vertical"] },
    "plan.create": { required: ["goal"], optional: ["constraints", "vertical", "type"] },
    "skill.load": { required: ["name"], optional: [] },
    "task.create": {
      required: ["title"],
      optional: ["assignedTo", "dueInHours", "priority", "vertical", "idempotencyKey"],
    },
    "trust.preflight": { required: ["task"], optional: ["actions", "claims"] },
    "trust.publish": { required: ["claims"], optional: [] },
  };
  for (const [id, shape] of Object.entries(expected)) {
    const ability = abilityById.get(id)!;
    assert.equal(ability.inputSource, "spec", id);
    assert.deepEqual(Object.keys(props(ability.input)).sort(), [...shape.required, ...shape.optional].sort(), id);
    assert.deepEqual([...(ability.input.required as string[])].sort(), [...shape.required].sort(), id);
  }
  // nested shapes
  const preflight = props(abilityById.get("trust.preflight")!.input);
  assert.deepEqual((preflight.actions!.items as JsonSchema).required, ["ability", "input"]);
  assert.deepEqual((preflight.claims!.items as JsonSchema).required, ["text", "receiptIds"]);
  const publish = props(abilityById.get("trust.publish")!.input);
  assert.deepEqual((publish.claims!.items as JsonSchema).required, ["text", "status"]);
  assert.deepEqual(Object.keys(props(publish.claims!.items as JsonSchema)).sort(), ["receiptIds", "status", "text"]);
});

test("spec unions: connection.authorize has start/complete/revoke/share, integration.search and research.verify two variants", () => {
  const authorize = variantsOf(abilityById.get("connection.authorize")!.input);
  assert.deepEqual(
    authorize.map((v) => Object.keys(props(v)).sort()),
    [
      ["action", "returnUrl", "service"],
      ["action", "connectionId", "sessionUri", "state"],
      ["action", "connectionId", "shareId"],
      ["action", "connectionId", "expiresAt", "principalId", "toolIds"],
    ],
  );
  assert.deepEqual(
    authorize.map((v) => v.required),
    [
      ["service"],
      ["action", "connectionId", "state", "sessionUri"],
      ["action", "connectionId"],
      ["action", "connectionId", "principalId", "toolIds"],
    ],
  );
  accepts("connection.authorize", { service: "payments" });
  accepts("connection.authorize", { action: "start", service: "payments", returnUrl: "https://a.example/back" });
  accepts("connection.authorize", {
    action: "complete",
    connectionId: "con_1",
    state: "s",
    sessionUri: "https://p.example/s/1",
  });
  accepts("connection.authorize", { action: "revoke", connectionId: "con_1" });
  accepts("connection.authorize", { action: "revoke", connectionId: "con_1", shareId: "shr_1" });
  accepts("connection.authorize", {
    action: "share",
    connectionId: "con_1",
    principalId: "agent_7",
    toolIds: ["github.create_issue@1"],
    expiresAt: "2026-07-01T00:00:00Z",
  });
  rejects("connection.authorize", { action: "revoke" });
  rejects("connection.authorize", { action: "revoke", connectionId: "con_1", service: "payments" });
  rejects("connection.authorize", { action: "share", connectionId: "con_1", principalId: "p", toolIds: [] });
  rejects("connection.authorize", { action: "delete", connectionId: "con_1" });
  rejects("connection.authorize", {
    action: "share",
    connectionId: "con_1",
    principalId: "p",
    toolIds: ["t"],
    expiresAt: "tomorrow",
  });

  assert.equal(variantsOf(abilityById.get("integration.search")!.input).length, 2);
  accepts("integration.search", { action: "connections" });
  accepts("integration.search", { connectionId: "con_1" });
  accepts("integration.search", { action: "tools", connectionId: "con_1", query: "issue" });
  rejects("integration.search", {});
  rejects("integration.search", { action: "connections", connectionId: "con_1" });

  assert.equal(variantsOf(abilityById.get("research.verify")!.input).length, 2);
  accepts("research.verify", { query: "Is the VAT rate 7.5%?" });
  accepts("research.verify", { action: "capture", urls: ["https://www.firs.gov.ng/vat"] });
  rejects("research.verify", { action: "capture", query: "x" });
  rejects("research.verify", { action: "capture", urls: ["ftp://x.example/a"] });
  rejects("research.verify", {});
});

test("spot checks that fail if the spec's fields were wrong", () => {
  // key.rotate overlapHours 0..336, default 24 (§3, §8)
  const overlap = props(abilityById.get("key.rotate")!.input).overlapHours!;
  assert.deepEqual([overlap.minimum, overlap.maximum, overlap.default], [0, 336, 24]);
  assert.equal(accepts("key.rotate", { id: "key_abc" }).overlapHours, 24);
  accepts("key.rotate", { id: "key_abc", overlapHours: 0 });
  accepts("key.rotate", { id: "key_abc", overlapHours: 336 });
  rejects("key.rotate", { id: "key_abc", overlapHours: 337 });
  rejects("key.rotate", { id: "key_abc", overlapHours: -1 });
  rejects("key.rotate", { overlapHours: 1 });
  rejects("key.rotate", { id: "abc" });

  // memory.search: query required, limit default 5 (§8)
  rejects("memory.search", { collection: "notes" });
  assert.equal(accepts("memory.search", { query: "biscuit" }).limit, 5);
  accepts("memory.search", {
    query: "x",
    filter: { kind: "vet", age: { $gte: 2 }, $or: [{ pet: "biscuit" }, { pet: { $in: ["rex", "tom"] } }] },
  });
  rejects("memory.search", { query: "x", filter: { kind: { $regex: "v.*" } } });
  rejects("memory.search", { query: "x", limit: 101 });

  // memory.recall k default 5 (§8)
  assert.equal(accepts("memory.recall", { query: "biscuit" }).k, 5);

  // lesson.record enums (§4.3)
  const lesson = { title: "t", category: "ops", lesson: "l" };
  accepts("lesson.record", lesson);
  rejects("lesson.record", { ...lesson, category: "misc" });
  rejects("lesson.record", { ...lesson, severity: "blocker" });
  for (const category of ["engineering", "ops", "business", "architecture", "security"])
    accepts("lesson.record", { ...lesson, category });
  for (const severity of ["critical", "high", "medium", "low"]) accepts("lesson.record", { ...lesson, severity });
  rejects("lesson.record", { title: "t", category: "ops" });

  // payment.initiate: provider_b requires customerEmail; provider_a is the default
  assert.equal(accepts("payment.initiate", { amount: 10, currency: "USD" }).provider, "provider_a");
  rejects("payment.initiate", { amount: 10, currency: "USD", provider: "provider_b" });
  accepts("payment.initiate", { amount: 10, currency: "USD", provider: "provider_b", customerEmail: "a@b.example" });
  rejects("payment.initiate", { amount: 10, currency: "USD", provider: "stripe" });
  rejects("payment.initiate", { amount: 0, currency: "USD" });
  rejects("payment.initiate", { amount: 10, currency: "usd" });

  // email.render templates (§4.3)
  const render = (template: string) => ({
    spec: { template, subject: "Hi", props: { heading: "Hello", body: "Text" } },
  });
  accepts("email.render", render("notice"));
  rejects("email.render", render("newsletter"));
  rejects("email.render", { spec: { template: "notice", subject: "Hi" } });
  rejects("email.render", render("invoice")); // invoice props differ from notice props
  rejects("email.render", {
    spec: { template: "notice", subject: "Hi", props: { heading: "H", body: "B", actionLabel: "Go" } },
  });

  // trust.publish claim statuses (§2.5)
  accepts("trust.publish", { claims: [{ text: "x", status: "observed" }] });
  accepts("trust.publish", {
    claims: [
      { text: "x", status: "inference" },
      { text: "y", status: "unverified", receiptIds: ["req_1"] },
    ],
  });
  rejects("trust.publish", { claims: [{ text: "x", status: "verified" }] });
  rejects("trust.publish", { claims: [] });

  // guide.publish required fields and defaults (§4.3, §8)
  const guide = abilityById.get("guide.publish")!.input;
  assert.deepEqual([...(guide.required as string[])].sort(), ["area", "markdown", "product", "slug", "title"]);
  const minimal = {
    product: "clinic-desk",
    slug: "connect-payments",
    title: "T",
    area: "Billing",
    markdown: "1. Do it",
  };
  const withDefaults = accepts("guide.publish", minimal);
  assert.equal(withDefaults.locale, "en");
  assert.equal(withDefaults.deploy, true);
  for (const field of Object.keys(minimal)) {
    const partial: Record<string, unknown> = { ...minimal };
    delete partial[field];
    rejects("guide.publish", partial);
  }
  rejects("guide.publish", { ...minimal, slug: "Connect Payments" });

  // other §8 defaults
  assert.equal(accepts("document.summarize", { text: "abc" }).length, "medium");
  rejects("document.summarize", { text: "abc", length: "tiny" });
  assert.equal(accepts("key.list", {}).includeRevoked, false);
  assert.equal(accepts("vertical.manifest_get", { id: "clinic" }).section, "surface");
  rejects("vertical.manifest_get", { id: "clinic", section: "provisioning" });

  // task priority enum (§2.5), default medium (issue 5)
  assert.equal(accepts("task.create", { title: "Call" }).priority, "medium");
  rejects("task.create", { title: "Call", priority: "critical" });

  // message.send_markdown: to is string or string[]; brand default #1e3a5f
  assert.equal(accepts("message.send_markdown", { to: "a@b.example", subject: "s", markdown: "m" }).brand, "#1e3a5f");
  accepts("message.send_markdown", {
    to: ["a@b.example", "c@d.example"],
    subject: "s",
    markdown: "m",
    from: "Ada <ada@b.example>",
  });
  rejects("message.send_markdown", { to: [], subject: "s", markdown: "m" });

  // key.revoke / decision.record formats
  rejects("key.revoke", { id: "key_1", confirmSelf: "yes" });
  rejects("decision.record", { title: "t", why: "w", supersedes: "4" });
  rejects("decision.record", { title: "two\nlines", why: "w" });

  // key.inspect and gantry.about take an empty object, nothing else
  accepts("key.inspect", {});
  rejects("key.inspect", { verbose: true });
  rejects("gantry.about", { x: 1 });
});

test("our shapes follow the issues", () => {
  // issue 3
  accepts("key.issue", { name: "n", scopes: ["*"] });
  rejects("key.issue", { name: "n", scopes: [] });
  rejects("key.issue", { name: "n", scopes: ["contact*"] });
  rejects("key.issue", { name: "n", scopes: ["contact.get"], rateLimit: { limit: 10 } });
  // issue 5
  rejects("contact.update", { id: "ct_1" });
  accepts("contact.update", { id: "ct_1", email: null });
  rejects("lead.update_status", { id: "ld_1", status: "new" });
  rejects("workspace.doc.patch", { id: "d", baseVersion: 1, content: "x", ops: [{ op: "append", text: "y" }] });
  rejects("workspace.doc.patch", { id: "d", content: "x" });
  accepts("workspace.doc.patch", { id: "d", baseVersion: 2, content: "" });
  rejects("event.emit", { event: "booking.*" });
  rejects("event.emit", { event: "booking..confirmed" });
  rejects("workflow.trigger", { workflow: "a.b" });
  // issue 6
  accepts("capability.discover", { area: "payout" });
  rejects("capability.discover", { area: "meta" });
  // issue 7
  accepts("memory.forget", { id: "m_1" });
  rejects("memory.forget", { filter: {} });
  rejects("memory.forget", { id: "m_1", filter: { kind: "vet" } });
  assert.equal(accepts("decision.list", {}).includeSuperseded, false);
  // money and idempotency conventions
  rejects("payout.send", { recipientId: "r", amount: 5, currency: "NGN" });
  rejects("lead.create", { name: "n", value: { amount: -1, currency: "USD" } });
  rejects("message.send", { channel: "email", to: "a@b.example", subject: "s" });
  accepts("message.send", { channel: "sms", to: "+2348031234567", text: "hi" });
  rejects("message.send", { channel: "sms", to: "08031234567", text: "hi" });
  rejects("qa.checklist.create", { title: "t" });
});

// ── 4. owners and scopes ─────────────────────────────────────────────────────────────────────

const BRIEF_OWNERS: Record<ServiceName, string[]> = {
  keys: ["key.inspect", "key.issue", "key.list", "key.revoke", "key.rotate"],
  connections: [
    "connection.authorize",
    "connection.get",
    "connection.list",
    "connection.revoke",
    "integration.app.connect",
    "integration.app.connections",
    "integration.app.execute",
    "integration.app.toolkits",
    "integration.app.tools",
    "integration.execute",
    "integration.search",
  ],
  payments: [
    "payment.initiate",
    "payment.list",
    "payment.status",
    "payout.balance",
    "payout.batch",
    "payout.list",
    "payout.send",
    "payout.status",
    "payout.verify_account",
  ],
  memory: [
    "memory.save",
    "memory.search",
    "memory.recall",
    "memory.forget",
    "decision.record",
    "decision.list",
    "lesson.record",
  ],
  content: [
    "document.generate",
    "document.summarize",
    "email.render",
    "message.send",
    "message.send_markdown",
    "guide.publish",
    "guide.list",
    "skill.list",
    "skill.load",
  ],
  trust: [
    "trust.preflight",
    "trust.publish",
    "trust.status",
    "plan.create",
    "plan.execute",
    "plan.learn",
    "plan.verify",
    "qa.checklist.create",
  ],
  workspace: [
    "contact.create",
    "contact.get",
    "contact.list",
    "contact.update",
    "lead.create",
    "lead.get",
    "lead.list",
    "lead.update_status",
    "task.create",
    "task.get",
    "task.list",
    "task.update_status",
    "workspace.doc.close",
    "workspace.doc.comment",
    "workspace.doc.create",
    "workspace.doc.list",
    "workspace.doc.patch",
    "workspace.doc.read",
    "event.emit",
    "workflow.trigger",
    "vertical.list",
    "vertical.manifest_get",
    "sim.generate",
    "sim.list",
  ],
  web: ["web.browse", "web.research", "research.verify", "qa.browser_check"],
  gateway: ["capability.discover", "gantry.about"],
};

test("owner services match the BRIEF table", () => {
  let total = 0;
  for (const [service, ids] of Object.entries(BRIEF_OWNERS) as [ServiceName, string[]][]) {
    assert.deepEqual(
      abilitiesOfService(service).map((a) => a.id),
      [...ids].sort(),
      service,
    );
    total += ids.length;
  }
  assert.equal(total, 79);
  assert.equal(abilityById.get("qa.browser_check")!.service, "web");
  assert.equal(abilityById.get("qa.checklist.create")!.service, "trust");
  assert.equal(abilityById.get("decision.record")!.service, "memory");
  assert.equal(abilityById.get("gantry.about")!.service, "gateway");
});

test("matchesScope: `*`, exact ids and `<prefix>.*`", () => {
  assert.equal(matchesScope("*", "payout.send"), true);
  assert.equal(matchesScope("workspace.*", "workspace.doc.read"), true);
  assert.equal(matchesScope("workspace.doc.*", "workspace.doc.read"), true);
  assert.equal(matchesScope("contact.*", "contact.get"), true);
  assert.equal(matchesScope("contact.*", "contacts.get"), false);
  assert.equal(matchesScope("contact.*", "contact"), false);
  assert.equal(matchesScope("integration.app.*", "integration.app.tools"), true);
  assert.equal(matchesScope("integration.app.*", "integration.execute"), false);
  assert.equal(matchesScope("key.list", "key.list"), true);
  assert.equal(matchesScope("key.list", "key.lists"), false);
  assert.equal(matchesScope("key", "key.list"), false);
  assert.equal(matchesScope(".*", "key.list"), false);
  assert.equal(matchesScope("key*", "key.list"), false);
  assert.equal(matchesScope("*.list", "key.list"), false);
  assert.deepEqual(expandScopes(["contact.*"]), ["contact.create", "contact.get", "contact.list", "contact.update"]);
  assert.deepEqual(expandScopes(["workspace.*", "workspace.doc.read"]), [
    "workspace.doc.close",
    "workspace.doc.comment",
    "workspace.doc.create",
    "workspace.doc.list",
    "workspace.doc.patch",
    "workspace.doc.read",
  ]);
  assert.deepEqual(expandScopes(["*"]), [...abilityIds]);
  assert.deepEqual(expandScopes(["nope.*", "nope.get"]), []);
  assert.equal(isWellFormedScope("workspace.*"), true);
  assert.equal(isWellFormedScope("*"), true);
  assert.equal(isWellFormedScope("key*"), false);
  assert.equal(isWellFormedScope("*.list"), false);
});

// ── 5. decisions and docs ────────────────────────────────────────────────────────────────────

test("every ability whose shape is ours has a documented decision; every decision names an ability", () => {
  for (const ability of catalogue) {
    if (ability.inputSource === "ours") assert.ok(decisions[ability.id], `${ability.id}: decision missing`);
  }
  for (const id of Object.keys(decisions)) assert.ok(abilityById.has(id), `decision for unknown ability ${id}`);
});

test("docs/abilities.md is up to date with the catalogue (regenerate with render-docs.ts)", () => {
  const committed = readFileSync(`${repoRoot}docs/abilities.md`, "utf8");
  assert.equal(committed, renderDocs(), "run: node proto/catalogue/render-docs.ts > docs/abilities.md");
  for (const ability of catalogue) assert.ok(committed.includes(`### ${ability.id}\n`), ability.id);
});

test("every ability states its result: the output schema compiles under strict Ajv, objects are closed, fields described", () => {
  const problems: string[] = [];
  const strict = newAjv();
  for (const ability of catalogue) {
    if (!isObject(ability.output)) {
      problems.push(`${ability.id}: no output schema`);
      continue;
    }
    try {
      strict.compile(ability.output);
    } catch (err) {
      problems.push(`${ability.id}: output does not compile: ${(err as Error).message}`);
    }
    const top = ability.output;
    const variants = Array.isArray(top.oneOf) ? top.oneOf.filter(isObject) : [top];
    for (const v of variants) if (v.type !== "object") problems.push(`${ability.id}: result is not an object`);
    walk(ability.output, `${ability.id}#output`, (node, path) => {
      if (node.type === "object" && isObject(node.properties)) {
        if (node.additionalProperties !== false) problems.push(`${path}: result object with fields is not closed`);
        for (const [name, sub] of Object.entries(node.properties)) {
          if (isObject(sub) && typeof sub.description !== "string") problems.push(`${path}/${name}: no description`);
        }
      }
    });
  }
  assert.deepEqual(problems, []);
});
