/**
 * vertical.list, vertical.manifest_get and sim.generate / sim.list through the gateway. The service
 * reads manifests from a temporary VERTICALS_DIR holding copies of the shipped ones, so tests can
 * break a manifest on disk and see the very next serve refuse it with findings by path.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@gantry/kit";
import { fails, ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "./helpers.ts";

const SHIPPED = join(repoRoot(), "services/workspace/verticals");
let dir: string;
let t: TestStack;
let k: Keys;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "gantry-verticals-"));
  for (const f of readdirSync(SHIPPED).filter((f) => f.endsWith(".json"))) copyFileSync(join(SHIPPED, f), join(dir, f));
  t = await startWorkspaceStack({ VERTICALS_DIR: dir });
  k = await tenantKeys(t);
});
after(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function shipped(id: string): any {
  return JSON.parse(readFileSync(join(SHIPPED, `${id}.json`), "utf8"));
}

describe("vertical.list / vertical.manifest_get", () => {
  test("lists the three shipped verticals, all lint-clean", async () => {
    const page = await ok(t, "vertical.list", {}, k.acme);
    assert.deepEqual(
      page.items.map((v: { id: string }) => v.id),
      ["clinic", "salon", "trades"],
    );
    assert.ok(page.items.every((v: { status: string; findings: number }) => v.status === "ok" && v.findings === 0));
    assert.deepEqual(page.items[0].nouns, ["patient", "appointment", "referral", "visitNote"]);
    assert.equal(page.nextCursor, null);
    const p1 = await ok(t, "vertical.list", { limit: 2 }, k.acme);
    const p2 = await ok(t, "vertical.list", { limit: 2, cursor: p1.nextCursor }, k.acme);
    assert.deepEqual(
      [...p1.items, ...p2.items].map((v: { id: string }) => v.id),
      ["clinic", "salon", "trades"],
    );
  });

  test("surface (default) leaves provisioning out; all includes it", async () => {
    const s = await ok(t, "vertical.manifest_get", { id: "clinic" }, k.acme);
    assert.equal(s.section, "surface");
    assert.deepEqual(Object.keys(s.surface).sort(), ["actions", "captures", "nouns", "screens", "signals"]);
    assert.equal(s.provisioning, undefined);
    assert.equal(s.sim, undefined);
    const all = await ok(t, "vertical.manifest_get", { id: "trades", section: "all" }, k.acme);
    assert.equal(all.id, "trades");
    assert.ok(Array.isArray(all.provisioning.keys));
    assert.deepEqual(all.surface, shipped("trades").surface);
  });

  test("any authenticated key may read a manifest, even one scoped to something else; unknown id is 404", async () => {
    const narrow = await t.insertKey({ tenant: "zeta", scopes: ["contact.get"] });
    await ok(t, "vertical.manifest_get", { id: "salon" }, narrow.key);
    await fails(t, "vertical.manifest_get", { id: "no-such-vertical" }, k.acme, 404);
    await fails(t, "vertical.manifest_get", { id: "../etc/passwd" }, k.acme, 400);
    await fails(t, "vertical.manifest_get", { id: "clinic", section: "provisioning" }, k.acme, 400);
  });

  test("a manifest broken on disk is refused on the next serve, with findings by path", async () => {
    const m = shipped("salon");
    m.id = "broken";
    m.surface.screens[0].root.children[1].type = "carousel";
    m.surface.screens[1].root.children[1].source.ability = "contact.create";
    m.surface.actions[0].ability = "contact.explode";
    m.surface.actions.push({
      id: "leaky",
      label: "Leaky",
      host: { method: "POST", path: "https://evil.example/x", guard: {} },
    });
    m.surface.signals[0].event = "salon.*";
    m.surface.nouns[0].fields[1].maps = "metadata";
    m.provisioning.keys[0].apiKey = "gk_abcdefghijklmnopqrstuvwxyz0123456789";
    m.surface.nouns[0].description = "Call Ada on +44 20 7946 0958 or ada@salon-owner.com";
    writeFileSync(join(dir, "broken.json"), JSON.stringify(m));
    const e = await fails(t, "vertical.manifest_get", { id: "broken" }, k.acme, 409);
    assert.equal(e.code, "conflict");
    const byPath = Object.fromEntries(e.details.map((d: { path: string; code: string }) => [d.path, d.code]));
    assert.equal(byPath["/manifest/surface/screens/0/root/children/1/type"], "unknown_node_type");
    assert.equal(byPath["/manifest/surface/screens/1/root/children/1/source/ability"], "not_a_read");
    assert.equal(byPath["/manifest/surface/actions/0/ability"], "unknown_ability");
    assert.equal(byPath["/manifest/surface/actions/5/host/path"], "host_path");
    assert.equal(byPath["/manifest/surface/actions/5/host/guard"], "unguarded");
    assert.equal(byPath["/manifest/surface/signals/0/event"], "pattern");
    assert.equal(byPath["/manifest/surface/nouns/0/fields/1/maps"], "unknown_column");
    assert.equal(byPath["/manifest/surface/nouns/0/description"], "tenant_data");
    // Provisioning findings do not block the surface, except secrets and tenant data (anywhere).
    assert.ok(
      e.details.some(
        (d: { path: string; code: string }) => d.path === "/manifest/provisioning/keys/0/apiKey" && d.code === "secret",
      ),
    );
    for (const d of e.details) assert.match(d.message, /^\/[^:]*: /);
    const list = await ok(t, "vertical.list", {}, k.acme);
    const broken = list.items.find((v: { id: string }) => v.id === "broken");
    assert.equal(broken.status, "invalid");
    assert.ok(broken.findings >= 9);
    // Fixing the file fixes the next serve.
    writeFileSync(join(dir, "broken.json"), JSON.stringify({ ...shipped("salon"), id: "broken" }));
    await ok(t, "vertical.manifest_get", { id: "broken" }, k.acme);
    rmSync(join(dir, "broken.json"));
  });

  test("a provisioning-only problem refuses section all but still serves the surface", async () => {
    const m = shipped("clinic");
    m.id = "half";
    m.provisioning.keys[0].scopes = ["nothing.*"];
    writeFileSync(join(dir, "half.json"), JSON.stringify(m));
    await ok(t, "vertical.manifest_get", { id: "half" }, k.acme);
    const e = await fails(t, "vertical.manifest_get", { id: "half", section: "all" }, k.acme, 409);
    assert.deepEqual(
      e.details.map((d: { path: string; code: string }) => `${d.path} ${d.code}`),
      ["/manifest/provisioning/keys/0/scopes/0 scope_empty"],
    );
    rmSync(join(dir, "half.json"));
  });

  test("invalid JSON and a mismatched id are findings too", async () => {
    writeFileSync(join(dir, "garbled.json"), "{ not json");
    const a = await fails(t, "vertical.manifest_get", { id: "garbled" }, k.acme, 409);
    assert.equal(a.details[0].code, "invalid_json");
    writeFileSync(join(dir, "renamed.json"), JSON.stringify(shipped("trades")));
    const b = await fails(t, "vertical.manifest_get", { id: "renamed" }, k.acme, 409);
    assert.deepEqual(
      b.details.map((d: { path: string }) => d.path),
      ["/manifest/id"],
    );
    rmSync(join(dir, "garbled.json"));
    rmSync(join(dir, "renamed.json"));
  });
});

describe("sim.generate / sim.list", () => {
  test("writes deterministic records into <tenant>/sim-<id>, readable through a sub-tenant key", async () => {
    const a = await ok(t, "sim.generate", { vertical: "clinic", seed: 42 }, k.acmeParent);
    assert.match(a.simId, /^sim_/);
    assert.match(a.tenant, /^acme\/sim-[0-9a-z]{26}$/);
    assert.equal(a.subTenant, a.tenant.slice("acme/".length));
    assert.deepEqual(a.counts, { contacts: 20, leads: 10, tasks: 16 });
    assert.equal(a.seed, 42);
    assert.equal(a.size, "small");
    const b = await ok(t, "sim.generate", { vertical: "clinic", seed: 42 }, k.acmeParent);
    assert.notEqual(a.tenant, b.tenant);

    const read = async (sim: { subTenant: string }, ability: string) =>
      (await ok(t, ability, { limit: 100 }, k.acmeParent, { tenantId: sim.subTenant })).items;
    const strip = (xs: Array<Record<string, unknown>>, fields: string[]) =>
      xs.map((x) => Object.fromEntries(fields.map((f) => [f, x[f]])));
    const ca = await read(a, "contact.list");
    const cb = await read(b, "contact.list");
    assert.equal(ca.length, 20);
    assert.deepEqual(
      strip(ca, ["name", "email", "phone", "company", "metadata"]),
      strip(cb, ["name", "email", "phone", "company", "metadata"]),
    );
    assert.ok(
      ca.every(
        (c: { email: string; metadata: { noun: string } }) =>
          c.email.endsWith("@example.com") && c.metadata.noun === "patient",
      ),
    );
    const la = await read(a, "lead.list");
    assert.deepEqual(
      strip(la, ["name", "status", "source", "value"]),
      strip(await read(b, "lead.list"), ["name", "status", "source", "value"]),
    );
    assert.ok(la.every((l: { value: { currency: string } }) => l.value.currency === "GBP"));
    const ta = await read(a, "task.list");
    assert.deepEqual(
      strip(ta, ["title", "status", "priority", "assignedTo"]),
      strip(await read(b, "task.list"), ["title", "status", "priority", "assignedTo"]),
    );
    assert.equal(ta.length, 16);
    // Statuses come with coherent histories.
    const won = la.find((l: { status: string }) => l.status !== "new");
    if (won) {
      const full = await ok(t, "lead.get", { id: won.id }, k.acmeParent, { tenantId: a.subTenant });
      assert.equal(full.history[0].to, "new");
      assert.equal(full.history[full.history.length - 1].to, won.status);
    }
    // Nothing leaked into the real tenant.
    const { rows } = await t.db.query(
      `SELECT count(*)::int AS n FROM workspace.contacts WHERE tenant = 'acme' AND metadata ? 'sim'`,
    );
    assert.equal(rows[0].n, 0);
    // Another tenant naming the same sandbox gets its own (empty) beta/sim-… tenant.
    const betaParent = await t.insertKey({ tenant: "beta", scopes: ["*"], subTenants: true });
    assert.deepEqual((await ok(t, "contact.list", {}, betaParent.key, { tenantId: a.subTenant })).items, []);
    assert.deepEqual(
      (await ok(t, "contact.list", {}, k.acme)).items.filter((c: { metadata: { sim?: boolean } }) => c.metadata.sim),
      [],
    );
  });

  test("a different seed gives different data; medium is larger; salon data is shaped by its nouns", async () => {
    const a = await ok(t, "sim.generate", { vertical: "salon", seed: 1, size: "medium" }, k.acmeParent);
    assert.deepEqual(a.counts, { contacts: 200, leads: 100, tasks: 160 });
    const b = await ok(t, "sim.generate", { vertical: "salon", seed: 2 }, k.acmeParent);
    const na = (await ok(t, "contact.list", { limit: 20 }, k.acmeParent, { tenantId: a.subTenant })).items.map(
      (c: { name: string }) => c.name,
    );
    const nb = (await ok(t, "contact.list", { limit: 20 }, k.acmeParent, { tenantId: b.subTenant })).items.map(
      (c: { name: string }) => c.name,
    );
    assert.notDeepEqual(na, nb);
    const tasks = (await ok(t, "task.list", { limit: 50 }, k.acmeParent, { tenantId: b.subTenant })).items;
    const titles = shipped("salon").sim.booking.titles as string[];
    assert.ok(
      tasks.every(
        (x: { title: string; vertical: string }) => titles.some((s) => x.title.startsWith(s)) && x.vertical === "salon",
      ),
    );
  });

  test("sim.list lists the caller's simulations only, filterable by vertical; seed drawn when omitted", async () => {
    const drawn = await ok(t, "sim.generate", { vertical: "trades" }, k.beta);
    assert.ok(Number.isInteger(drawn.seed));
    const mine = await ok(t, "sim.list", {}, k.beta);
    assert.deepEqual(
      mine.items.map((s: { simId: string }) => s.simId),
      [drawn.simId],
    );
    assert.equal(mine.items[0].tenant, drawn.tenant);
    const acme = await ok(t, "sim.list", { vertical: "clinic" }, k.acmeParent);
    assert.ok(
      acme.items.length >= 2 &&
        acme.items.every(
          (s: { vertical: string; tenant: string }) => s.vertical === "clinic" && s.tenant.startsWith("acme/sim-"),
        ),
    );
    assert.deepEqual((await ok(t, "sim.list", {}, k.shop1)).items, []);
  });

  test("idempotent sim.generate; unknown or lint-failing vertical refused", async () => {
    const a = await ok(t, "sim.generate", { vertical: "trades", seed: 7, idempotencyKey: "sim-7" }, k.acme);
    const b = await ok(t, "sim.generate", { vertical: "trades", seed: 7, idempotencyKey: "sim-7" }, k.acme);
    assert.equal(a.simId, b.simId);
    await fails(t, "sim.generate", { vertical: "trades", seed: 8, idempotencyKey: "sim-7" }, k.acme, 409);
    await fails(t, "sim.generate", { vertical: "nope" }, k.acme, 404);
    const m = shipped("clinic");
    m.id = "badsim";
    m.surface.nouns[0].record = "person";
    writeFileSync(join(dir, "badsim.json"), JSON.stringify(m));
    const e = await fails(t, "sim.generate", { vertical: "badsim" }, k.acme, 409);
    assert.ok(e.details.some((d: { path: string }) => d.path === "/manifest/surface/nouns/0/record"));
    rmSync(join(dir, "badsim.json"));
  });
});
