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
 * { "slug": "github", "name": "GitHub", "description": "…", "categories": ["developer-tools"],
 *   "authScheme": "oauth2", "credentialFields": [], "docsUrl": "https://docs.github.com/rest",
 *   "logoUrl": null, "document": "openapi.json", "baseUrl": "https://api.github.com",
 *   "tools": [{ "name": "create_issue", "slug": "GITHUB_CREATE_ISSUE",
 *               "versions": [{ "version": 1, "operationId": "issues/create" }] }] }
 * ```
 * A version may name another `document` of the directory and set `deprecated: true`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, GantryError } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";

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
  tools: { name: string; slug: string; description?: string; versions: ToolVersionDecl[] }[];
}

export interface Tool extends ToolOut {
  /** The toolkit's API base URL (from toolkit.json). */
  baseUrl: string;
  /** The document (file name) the version is pinned to, and its operationId. */
  document: string;
  operationId: string;
}

export interface Toolkit {
  out: ToolkitOut;
  /** Every version of every tool, by `name@N`. */
  versions: Map<string, Tool>;
  /** The latest version of each tool, by name. */
  latest: Map<string, Tool>;
}

export interface Registry {
  toolkits: Map<string, Toolkit>;
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
      const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map(
        (p) => deref(doc, p) as Json,
      );
      for (const p of params) {
        if (p.in !== "path" && p.in !== "query") continue;
        const name = String(p.name);
        properties[name] = { ...((p.schema as Json) ?? {}), ...(p.description ? { description: p.description } : {}) };
        if (p.required || p.in === "path") required.push(name);
      }
      const content = ((deref(doc, op.requestBody) as Json | undefined)?.content ?? {}) as Record<string, Json>;
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
      };
    }
  }
  return null;
}

function readJson(file: string): Json {
  return JSON.parse(readFileSync(file, "utf8")) as Json;
}

/** Loads every `<dir>/<slug>/toolkit.json`; throws ConfigError naming every problem. */
export function loadRegistry(dir: string = DEFAULT_TOOLKITS_DIR): Registry {
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
            baseUrl: decl.baseUrl,
            document,
            operationId: v.operationId,
          };
          versions.set(`${t.name}@${v.version}`, tool);
          if (tool.latest) latest.set(t.name, tool);
        }
      }
      toolkits.set(decl.slug, {
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
  if (problems.length) throw new ConfigError(`connections: invalid toolkit registry\n  ${problems.join("\n  ")}`);
  return { toolkits };
}

function notFound(path: string, message: string): GantryError {
  return new GantryError("not_found", message, { details: [{ path, message, code: "not_found" }] });
}

/** The toolkit by slug, or 404 naming the field. */
export function toolkitOf(registry: Registry, slug: string, path = "/input/toolkit"): Toolkit {
  const t = registry.toolkits.get(slug);
  if (!t)
    throw notFound(
      path,
      `${path} is "${slug}", which is not a toolkit; known: ${[...registry.toolkits.keys()].join(", ")}`,
    );
  return t;
}

/**
 * Exactly the version a tool id names (`toolkit.tool@N`), or 404 naming the field: an unknown
 * toolkit, an unknown tool, or a version that does not exist (the known versions are listed; the
 * latest is never substituted).
 */
export function resolveTool(registry: Registry, toolId: string, path = "/input/toolId"): Tool {
  const m = /^([a-z0-9][a-z0-9_-]*)\.([A-Za-z0-9_.-]+)@([1-9][0-9]*)$/.exec(toolId);
  if (!m) throw notFound(path, `${path} is "${toolId}", which is not a tool id (toolkit.tool@N)`);
  const [, kit, name, version] = m;
  const toolkit = toolkitOf(registry, kit, path);
  const tool = toolkit.versions.get(`${name}@${version}`);
  if (tool) return tool;
  const known = [...toolkit.versions.values()].filter((t) => t.name === name).map((t) => t.version);
  if (known.length === 0) throw notFound(path, `${path}: toolkit ${kit} has no tool ${name}`);
  throw notFound(path, `${path}: ${kit}.${name} has no version ${version} (versions: ${known.join(", ")})`);
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
