/**
 * @module connections/toolkits
 * The toolkit registry: a toolkit (app) is a directory `toolkits/<slug>/` holding `toolkit.json` (name,
 * description, categories, auth scheme, docs, and its tools) and the provider's OpenAPI 3 document(s)
 * it names. A tool is ONE operation of such a document, pinned by version: `toolkit.tool@N` names
 * exactly the operation (document + operationId) that version N was declared with, so a document
 * that changes under a new version never changes what an old version runs. An unknown toolkit, tool
 * or version is a 404 naming the field; never a fallback to another version.
 *
 * Loaded once at start (`loadRegistry`); a bad toolkit (unreadable file, document not OpenAPI 3.x,
 * an operationId that is not in the document, duplicate versions) stops the start, naming it.
 *
 * A tool's `inputSchema` is derived from its operation: the path and query parameters, plus the
 * properties of the JSON or form request body (local `$ref`s resolved), as one object schema with
 * `additionalProperties: false`.
 *
 * toolkit.json:
 * ```json
 * { "slug": "github", "name": "GitHub", "description": "…", "categories": ["developer_tools"],
 *   "authScheme": "oauth2", "credentialFields": [], "docsUrl": "https://docs.github.com/rest",
 *   "logoUrl": null, "document": "openapi.json", "baseUrl": "https://api.github.com",
 *   "tools": [{ "name": "create_issue", "slug": "GITHUB_CREATE_ISSUE",
 *               "versions": [{ "version": 1, "operationId": "issues/create" }] }] }
 * ```
 * A version may name another `document` of the directory and set `deprecated: true`.
 *
 * How tools run (src/execute.ts) is described by the toolkit too: `auth` `{header, value}` is the one
 * header the credential goes in, `value` a template of credential fields (`Bearer {access_token}`
 * for oauth2, the default; api_key toolkits must state it, e.g. `Bearer {secret_key}`); `headers`
 * fixed headers (API version, Accept, User-Agent); `idempotencyHeader` the provider's own
 * idempotency header; `verify` `{tool, arguments}` a GET tool integration.app.connect runs to check
 * API-key credentials. `baseUrl` can be replaced per toolkit by CONNECTIONS_TOOLKIT_BASE_URLS.
 * Each tool version also records where its arguments go (path and query parameters; the rest is the
 * JSON or form body, by the operation's request body media type).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, notFound } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import type { FusedToolkits, FusedTools, FusedWithin } from "./directory-search.ts";

export const DEFAULT_TOOLKITS_DIR = fileURLToPath(new URL("../toolkits/", import.meta.url));

export type ToolkitOut = OutputOf<"integration.app.toolkits">["items"][number];
export type ToolOut = OutputOf<"integration.app.tools">["items"][number];

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const SLUG = /^[a-z0-9][a-z0-9_-]*$/;
const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;

interface ToolVersionDecl {
  version: number;
  operationId: string;
  document?: string;
  deprecated?: boolean;
}

/** How a connection's credential goes into a request: one header, its value a template of credential fields. */
export interface AuthInjection {
  header: string;
  /** `{access_token}` (oauth2) or `{<credential field>}` (api_key) are replaced by the credential. */
  value: string;
  /** Where it goes (default the header `header`); `query`: a query parameter of that name (directory toolkits). */
  in?: "header" | "query";
  /** `basic`: the filled value (`{username}:{password}`) is sent as HTTP Basic (base64). */
  encoding?: "basic";
}

interface ToolkitDecl {
  slug: string;
  name: string;
  description: string;
  categories: string[];
  authScheme: "oauth2" | "api_key";
  credentialFields?: string[];
  docsUrl?: string | null;
  logoUrl?: string | null;
  document: string;
  baseUrl: string;
  /** Default for oauth2: `Authorization: Bearer {access_token}`; api_key toolkits must state it. */
  auth?: AuthInjection;
  /** Fixed headers every request of the toolkit carries (API version, Accept, User-Agent). */
  headers?: Record<string, string>;
  /** The provider's own idempotency header: a call's idempotencyKey (hashed) is passed through it. */
  idempotencyHeader?: string;
  /** A read-only tool (and its arguments) integration.app.connect runs to check API-key credentials. */
  verify?: { tool: string; arguments?: Record<string, unknown> };
  tools: { name: string; slug: string; description?: string; versions: ToolVersionDecl[] }[];
}

export interface Tool extends ToolOut {
  /** The toolkit's API base URL (toolkit.json, or CONNECTIONS_TOOLKIT_BASE_URLS). */
  baseUrl: string;
  /** Where each path and query argument goes; every other argument is a body field. */
  parameters: { name: string; in: "path" | "query" }[];
  /** How the request body is encoded (the operation's request body media type); null: no body. */
  bodyEncoding: "json" | "form" | null;
  /** The document (file name) the version is pinned to, and its operationId. */
  document: string;
  operationId: string;
}

export interface Toolkit {
  out: ToolkitOut;
  /** The API base URL its tools run against (toolkit.json, or CONNECTIONS_TOOLKIT_BASE_URLS). */
  baseUrl: string;
  /** Null: a directory toolkit whose document declares no scheme the service can inject (nothing is sent). */
  auth: AuthInjection | null;
  headers: Record<string, string>;
  idempotencyHeader: string | null;
  verify: { tool: Tool; arguments: Record<string, unknown> } | null;
  /** Every version of every tool, by `name@N`. */
  versions: Map<string, Tool>;
  /** The latest version of each tool, by name. */
  latest: Map<string, Tool>;
}

/** What the registry asks of the directory toolkits (src/directory.ts `Directory`). */
export interface ToolkitDirectory {
  has(slug: string): boolean;
  toolkit(slug: string): Toolkit | undefined;
  listing(): ToolkitOut[];
  slugs(): string[];
  counts(): { documents: number; toolkits: number; tools: number; operationsLeftOut: number; upgraded: number };
  readonly isLoaded: boolean;
  searchTools(query: string, limit: number): { toolkit: string; name: string; score: number }[];
  searchToolkits(query: string): { slug: string; score: number }[];
  /** By meaning fused with words (src/directory-search.ts); `ranking` says which was used. */
  rankTools(query: string, limit: number): FusedTools;
  rankToolkits(query: string): FusedToolkits;
  rankWithin(slug: string, query: string, lexical: Map<string, number>): FusedWithin;
}

export interface Registry {
  /** The hand-written toolkits (toolkits/<slug>/): they win over a directory toolkit of the same slug. */
  toolkits: Map<string, Toolkit>;
  /** The directory toolkits (src/directory.ts), read lazily; null when CONNECTIONS_DIRECTORY is off. */
  directory: ToolkitDirectory | null;
}

type Json = Record<string, unknown>;

/** Resolves local `#/…` references (cycles stop at the repeated ref, left as `{}`). */
function deref(doc: Json, node: unknown, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, seen));
  if (!node || typeof node !== "object") return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === "string") {
    if (!ref.startsWith("#/")) throw new Error(`only local $ref is supported (${ref})`);
    if (seen.includes(ref)) return {};
    let target: unknown = doc;
    for (const part of ref.slice(2).split("/"))
      target = (target as Json | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (target === undefined) throw new Error(`$ref ${ref} does not resolve`);
    return deref(doc, target, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(node as Json).map(([k, v]) => [k, deref(doc, v, seen)]));
}

interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  summary: string;
  inputSchema: Json;
  parameters: Tool["parameters"];
  bodyEncoding: Tool["bodyEncoding"];
}

/** Finds an operation by operationId and derives its input schema. */
function operation(doc: Json, operationId: string): Operation | null {
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op || op.operationId !== operationId) continue;
      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const parameters: Tool["parameters"] = [];
      const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map(
        (p) => deref(doc, p) as Json,
      );
      for (const p of params) {
        if (p.in !== "path" && p.in !== "query") continue;
        const name = String(p.name);
        parameters.push({ name, in: p.in });
        properties[name] = { ...((p.schema as Json) ?? {}), ...(p.description ? { description: p.description } : {}) };
        if (p.required || p.in === "path") required.push(name);
      }
      const content = ((deref(doc, op.requestBody) as Json | undefined)?.content ?? {}) as Record<string, Json>;
      const bodyEncoding = content["application/json"]
        ? "json"
        : content["application/x-www-form-urlencoded"]
          ? "form"
          : null;
      const body = (content["application/json"] ?? content["application/x-www-form-urlencoded"])?.schema as
        | Json
        | undefined;
      if (body) {
        for (const [k, v] of Object.entries((body.properties as Json) ?? {})) properties[k] = v;
        for (const k of (body.required as string[]) ?? []) if (!required.includes(k)) required.push(k);
      }
      return {
        method,
        path,
        summary: String(op.summary ?? op.description ?? operationId),
        inputSchema: { type: "object", additionalProperties: false, properties, required },
        parameters,
        bodyEncoding: body ? bodyEncoding : null,
      };
    }
  }
  return null;
}

function readJson(file: string): Json {
  return JSON.parse(readFileSync(file, "utf8")) as Json;
}

const HEADER_NAME = /^[A-Za-z0-9-]+$/;

/** The credential fields an injection template names (`{field}`). */
export function templateFields(value: string): string[] {
  return [...value.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] as string);
}

function checkAuth(decl: ToolkitDecl): AuthInjection {
  const fields = decl.authScheme === "api_key" ? (decl.credentialFields ?? []) : ["access_token"];
  const auth =
    decl.auth ?? (decl.authScheme === "oauth2" ? { header: "Authorization", value: "Bearer {access_token}" } : null);
  if (!auth) throw new Error("an api_key toolkit must state `auth` (the header its credential goes in)");
  if (!HEADER_NAME.test(auth.header)) throw new Error(`auth.header "${auth.header}" is not a header name`);
  const used = templateFields(auth.value);
  if (used.length === 0) throw new Error("auth.value names no credential field ({field})");
  for (const f of used)
    if (!fields.includes(f)) throw new Error(`auth.value names {${f}}, not one of: ${fields.join(", ")}`);
  return auth;
}

/**
 * Loads every `<dir>/<slug>/toolkit.json`; throws ConfigError naming every problem. `baseUrls`
 * (CONNECTIONS_TOOLKIT_BASE_URLS, checked by config.ts) replaces toolkits' API base URLs.
 */
export function loadRegistry(
  dir: string = DEFAULT_TOOLKITS_DIR,
  baseUrls: ReadonlyMap<string, string> = new Map(),
  directory: ToolkitDirectory | null = null,
): Registry {
  const toolkits = new Map<string, Toolkit>();
  const problems: string[] = [];
  const entries = readdirSync(dir).filter((d) => statSync(join(dir, d)).isDirectory());
  for (const entry of entries.sort()) {
    const at = `toolkits/${entry}`;
    try {
      const decl = readJson(join(dir, entry, "toolkit.json")) as unknown as ToolkitDecl;
      if (decl.slug !== entry || !SLUG.test(decl.slug)) throw new Error(`slug must be the directory name (${entry})`);
      if (decl.authScheme !== "oauth2" && decl.authScheme !== "api_key")
        throw new Error("authScheme must be oauth2 or api_key");
      const docs = new Map<string, Json>();
      const docOf = (name: string): Json => {
        let d = docs.get(name);
        if (!d) {
          d = readJson(join(dir, entry, name));
          if (typeof d.openapi !== "string" || !d.openapi.startsWith("3."))
            throw new Error(`${name} is not an OpenAPI 3 document`);
          docs.set(name, d);
        }
        return d;
      };
      const main = docOf(decl.document);
      const versions = new Map<string, Tool>();
      const latest = new Map<string, Tool>();
      for (const t of decl.tools) {
        if (!TOOL_NAME.test(t.name)) throw new Error(`tool name ${t.name} is not [A-Za-z0-9_.-]+`);
        const sorted = [...t.versions].sort((a, b) => a.version - b.version);
        const numbers = new Set(sorted.map((v) => v.version));
        if (numbers.size !== sorted.length || sorted.some((v) => !Number.isInteger(v.version) || v.version < 1))
          throw new Error(`tool ${t.name}: versions must be distinct integers ≥ 1`);
        const top = sorted[sorted.length - 1]?.version;
        for (const v of sorted) {
          const document = v.document ?? decl.document;
          const op = operation(docOf(document), v.operationId);
          if (!op) throw new Error(`tool ${t.name}@${v.version}: no operation ${v.operationId} in ${document}`);
          const tool: Tool = {
            id: `${decl.slug}.${t.name}@${v.version}`,
            slug: t.slug,
            toolkit: decl.slug,
            name: t.name,
            description: t.description ?? op.summary,
            version: v.version,
            latest: v.version === top,
            deprecated: v.deprecated === true,
            method: op.method.toUpperCase() as Tool["method"],
            path: op.path,
            inputSchema: op.inputSchema,
            parameters: op.parameters,
            bodyEncoding: op.bodyEncoding,
            baseUrl: baseUrls.get(decl.slug) ?? decl.baseUrl,
            document,
            operationId: v.operationId,
          };
          versions.set(`${t.name}@${v.version}`, tool);
          if (tool.latest) latest.set(t.name, tool);
        }
      }
      const auth = checkAuth(decl);
      for (const [name, value] of Object.entries(decl.headers ?? {}))
        if (!HEADER_NAME.test(name) || typeof value !== "string") throw new Error(`headers.${name} is not a header`);
      if (decl.idempotencyHeader !== undefined && !HEADER_NAME.test(decl.idempotencyHeader))
        throw new Error("idempotencyHeader is not a header name");
      let verify: Toolkit["verify"] = null;
      if (decl.verify) {
        const tool = latest.get(decl.verify.tool);
        if (tool?.method !== "GET") throw new Error(`verify.tool ${decl.verify.tool} is not a GET tool of the toolkit`);
        verify = { tool, arguments: decl.verify.arguments ?? {} };
      }
      toolkits.set(decl.slug, {
        baseUrl: baseUrls.get(decl.slug) ?? decl.baseUrl,
        auth,
        headers: decl.headers ?? {},
        idempotencyHeader: decl.idempotencyHeader ?? null,
        verify,
        versions,
        latest,
        out: {
          slug: decl.slug,
          name: decl.name,
          description: decl.description,
          categories: decl.categories,
          authScheme: decl.authScheme,
          credentialFields: decl.authScheme === "api_key" ? (decl.credentialFields ?? []) : [],
          apiVersion: String((main.info as Json | undefined)?.version ?? ""),
          toolCount: latest.size,
          logoUrl: decl.logoUrl ?? null,
          docsUrl: decl.docsUrl ?? null,
        },
      });
    } catch (err) {
      problems.push(`${at}: ${(err as Error).message}`);
    }
  }
  for (const slug of baseUrls.keys())
    if (!toolkits.has(slug) && !directory?.has(slug))
      problems.push(`CONNECTIONS_TOOLKIT_BASE_URLS.${slug}: no such toolkit`);
  if (problems.length) throw new ConfigError(`connections: invalid toolkit registry\n  ${problems.join("\n  ")}`);
  return { toolkits, directory };
}

/** The toolkit by slug (hand-written first, then the directory's), or 404 naming the field. */
export function toolkitOf(registry: Registry, slug: string, path = "/input/toolkit"): Toolkit {
  const t = registry.toolkits.get(slug) ?? registry.directory?.toolkit(slug);
  if (!t)
    throw notFound("toolkit", slug, {
      path,
      message: `${path} is "${slug}", which is not a toolkit; known: ${[...registry.toolkits.keys()].join(", ")}${registry.directory ? ` and the directory's (integration.app.toolkits lists them all)` : ""}`,
    });
  return t;
}

const byNameCollator = new Intl.Collator();
const listings = new WeakMap<Registry, ToolkitOut[]>();

/**
 * Every toolkit's listing by name then slug: the hand-written ones and the directory's whose slug
 * they do not take. Sorted once per registry (thousands of names: a sort per page would cost more
 * than the page).
 */
export function toolkitListing(registry: Registry): ToolkitOut[] {
  let all = listings.get(registry);
  if (all) return all;
  const own = [...registry.toolkits.values()].map((t) => t.out);
  const directory = registry.directory?.listing().filter((t) => !registry.toolkits.has(t.slug)) ?? [];
  all = [...own, ...directory].sort((a, b) => byNameCollator.compare(a.name, b.name) || a.slug.localeCompare(b.slug));
  listings.set(registry, all);
  return all;
}

/**
 * Exactly the version a tool id names (`toolkit.tool@N`), or 404 naming the field: an unknown
 * toolkit, an unknown tool, or a version that does not exist (the known versions are listed; the
 * latest is never substituted).
 */
export function resolveTool(registry: Registry, toolId: string, path = "/input/toolId"): Tool {
  const m = /^([a-z0-9][a-z0-9_-]*)\.([A-Za-z0-9_.-]+)@([1-9][0-9]*)$/.exec(toolId);
  if (!m)
    throw notFound("tool", toolId, {
      path,
      message: `${path} is "${toolId}", which is not a tool id (toolkit.tool@N)`,
    });
  const [, kit, name, version] = m;
  const toolkit = toolkitOf(registry, kit, path);
  const tool = toolkit.versions.get(`${name}@${version}`);
  if (tool) return tool;
  const known = [...toolkit.versions.values()].filter((t) => t.name === name).map((t) => t.version);
  if (known.length === 0)
    throw notFound("tool", toolId, { path, message: `${path}: toolkit ${kit} has no tool ${name}` });
  throw notFound("tool", toolId, {
    path,
    message: `${path}: ${kit}.${name} has no version ${version} (versions: ${known.join(", ")})`,
  });
}

/** The wire shape of a tool (no registry internals). */
export function toolOut(t: Tool): ToolOut {
  return {
    id: t.id,
    slug: t.slug,
    toolkit: t.toolkit,
    name: t.name,
    description: t.description,
    version: t.version,
    latest: t.latest,
    deprecated: t.deprecated,
    method: t.method,
    path: t.path,
    inputSchema: t.inputSchema,
  };
}

/** Case-insensitive: any word of `query` appears in any of the texts (no query: everything). */
export function matches(query: string | undefined, ...texts: string[]): boolean {
  if (!query) return true;
  const hay = texts.join(" ").toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .some((w) => hay.includes(w));
}
