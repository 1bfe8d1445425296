/**
 * The vertical manifest lint: every shipped manifest is clean, and each rule fires on a broken copy
 * with the right path and code.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_VERTICALS_DIR } from "../config.ts";
import { blocking, lintManifest } from "./lint.ts";
import { planSimulation } from "../sim/plan.ts";

const ids = readdirSync(DEFAULT_VERTICALS_DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5));
const load = (id: string) => JSON.parse(readFileSync(join(DEFAULT_VERTICALS_DIR, `${id}.json`), "utf8"));

test("at least three verticals ship, each lint-clean and with every section populated", () => {
  assert.ok(ids.length >= 3, ids.join(","));
  for (const id of ids) {
    const m = load(id);
    assert.deepEqual(lintManifest(m, id), [], id);
    for (const s of ["nouns", "screens", "captures", "signals", "actions"])
      assert.ok(m.surface[s].length > 0, `${id} ${s}`);
    assert.ok(
      m.surface.actions.some((a: { host?: unknown }) => a.host),
      `${id} has a guarded host action`,
    );
    assert.ok(
      m.surface.actions.some((a: { ability?: unknown }) => a.ability),
      `${id} has an ability action`,
    );
    assert.ok(m.provisioning.keys.length > 0);
    for (const r of ["contact", "lead", "task"])
      assert.ok(
        m.surface.nouns.some((n: { record: string }) => n.record === r),
        `${id} has a ${r} noun`,
      );
  }
});

type Mutation = [string, (m: any) => void, string, string];

const cases: Mutation[] = [
  ["unknown top-level field", (m) => (m.extra = 1), "/extra", "unknown_field"],
  ["id not matching the file", (m) => (m.id = "other"), "/id", "id_mismatch"],
  ["bad version", (m) => (m.version = "v1"), "/version", "pattern"],
  ["noun record kind", (m) => (m.surface.nouns[0].record = "person"), "/surface/nouns/0/record", "enum"],
  ["duplicate noun id", (m) => (m.surface.nouns[1].id = m.surface.nouns[0].id), "/surface/nouns/1/id", "duplicate_id"],
  ["field type", (m) => (m.surface.nouns[0].fields[0].type = "blob"), "/surface/nouns/0/fields/0/type", "enum"],
  [
    "enum without options",
    (m) => delete m.surface.nouns[1].fields[4].options,
    "/surface/nouns/1/fields/4/options",
    "type",
  ],
  [
    "field mapping onto no column",
    (m) => (m.surface.nouns[0].fields[0].maps = "title"),
    "/surface/nouns/0/fields/0/maps",
    "unknown_column",
  ],
  [
    "unknown node type",
    (m) => (m.surface.screens[0].root.type = "carousel"),
    "/surface/screens/0/root/type",
    "unknown_node_type",
  ],
  [
    "node prop of another type",
    (m) => (m.surface.screens[0].root.children[0].columns = []),
    "/surface/screens/0/root/children/0/columns",
    "unknown_field",
  ],
  [
    "write ability as a binding source",
    (m) => (m.surface.screens[1].root.children[1].source.ability = "contact.update"),
    "/surface/screens/1/root/children/1/source/ability",
    "not_a_read",
  ],
  [
    "binding to an ability of another record",
    (m) => (m.surface.screens[1].root.children[1].source.ability = "lead.list"),
    "/surface/screens/1/root/children/1/source/ability",
    "noun_mismatch",
  ],
  [
    "binding input the ability lacks",
    (m) => (m.surface.screens[0].root.children[0].source.input = { color: "red" }),
    "/surface/screens/0/root/children/0/source/input/color",
    "unknown_input",
  ],
  [
    "field ref of another noun",
    (m) => (m.surface.screens[0].root.children[2].item.title = { field: "patient.name" }),
    "/surface/screens/0/root/children/2/item/title/field",
    "wrong_noun",
  ],
  [
    "field ref to a missing field",
    (m) => (m.surface.screens[2].root.groupBy = { field: "referral.colour" }),
    "/surface/screens/2/root/groupBy/field",
    "unknown_field_ref",
  ],
  [
    "button to a missing action",
    (m) => (m.surface.screens[0].root.children[3].action = "nope"),
    "/surface/screens/0/root/children/3/action",
    "unknown_action",
  ],
  [
    "form to a missing capture",
    (m) => (m.surface.screens[1].root.children[0].capture = "nope"),
    "/surface/screens/1/root/children/0/capture",
    "unknown_capture",
  ],
  ["capture type", (m) => (m.surface.captures[0].type = "hologram"), "/surface/captures/0/type", "enum"],
  [
    "capture field not on the noun",
    (m) => m.surface.captures[0].fields.push("shoeSize"),
    "/surface/captures/0/fields/6",
    "unknown_field_ref",
  ],
  ["signal with a wildcard", (m) => (m.surface.signals[0].event = "clinic.>"), "/surface/signals/0/event", "pattern"],
  [
    "action with both ability and host",
    (m) => (m.surface.actions[0].host = { method: "POST", path: "/x", guard: { confirm: true } }),
    "/surface/actions/0",
    "action_kind",
  ],
  [
    "action calling a non-ability",
    (m) => (m.surface.actions[0].ability = "contact.delete"),
    "/surface/actions/0/ability",
    "unknown_ability",
  ],
  [
    "host endpoint off-host",
    (m) => (m.surface.actions[6].host.path = "//evil.example/x"),
    "/surface/actions/6/host/path",
    "host_path",
  ],
  [
    "unguarded host endpoint",
    (m) => (m.surface.actions[6].host.guard = {}),
    "/surface/actions/6/host/guard",
    "unguarded",
  ],
  [
    "key template scope matching nothing",
    (m) => (m.provisioning.keys[0].scopes = ["nothing.*"]),
    "/provisioning/keys/0/scopes/0",
    "scope_empty",
  ],
  [
    "raw key in a manifest",
    (m) => (m.surface.actions[0].label = "use gk_0123456789ABCDEFGHIJabcdefghij012345"),
    "/surface/actions/0/label",
    "secret",
  ],
  ["field named secret", (m) => (m.provisioning.secret = "x"), "/provisioning/secret", "secret"],
  ["tenant field", (m) => (m.surface.nouns[0].tenant = "acme"), "/surface/nouns/0/tenant", "tenant_data"],
  ["real email", (m) => (m.summary = "Ask dr.who@realclinic.co.uk"), "/summary", "tenant_data"],
  ["phone number", (m) => (m.summary = "Call +44 20 7946 0958"), "/summary", "tenant_data"],
  ["sim vocab for an unknown noun", (m) => (m.sim.ghost = {}), "/sim/ghost", "unknown_noun"],
];

describe("lint findings by path", () => {
  for (const [name, mutate, path, code] of cases) {
    test(name, () => {
      const m = load("clinic");
      mutate(m);
      const findings = lintManifest(m, "clinic");
      assert.ok(
        findings.some((f) => f.path === path && f.code === code),
        `${path} ${code} not in ${JSON.stringify(findings)}`,
      );
      assert.ok(findings.every((f) => f.message.startsWith(`${f.path || "/"}: `)));
    });
  }

  test("not an object at all", () => {
    assert.deepEqual(
      lintManifest([1], "x").map((f) => f.code),
      ["type"],
    );
  });

  test("surface ignores provisioning mistakes but never secrets", () => {
    const m = load("clinic");
    m.provisioning.keys[0].scopes = ["nothing.*"];
    assert.deepEqual(blocking(lintManifest(m, "clinic"), "surface"), []);
    m.provisioning.keys[0].token = "abc";
    assert.deepEqual(
      blocking(lintManifest(m, "clinic"), "surface").map((f) => f.code),
      ["secret"],
    );
  });
});

describe("simulation plan", () => {
  test("same seed → same plan; another seed → another plan; sizes", () => {
    const m = load("trades");
    assert.deepEqual(planSimulation(m, 42, "small"), planSimulation(m, 42, "small"));
    assert.notDeepEqual(planSimulation(m, 42, "small"), planSimulation(m, 43, "small"));
    const p = planSimulation(m, 1, "medium");
    assert.deepEqual([p.contacts.length, p.leads.length, p.tasks.length], [200, 100, 160]);
    assert.ok(p.contacts.every((c) => /@example\.com$/.test(c.email) && /^\+120255501\d\d$/.test(c.phone)));
    assert.ok(p.leads.every((l) => l.path[0] === "new" && l.value?.currency === "USD"));
    assert.ok(p.tasks.every((t) => t.path[0] === "open"));
  });
});
