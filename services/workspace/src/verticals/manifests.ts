/**
 * @module workspace/verticals/manifests
 * Vertical manifests are data files, `<VERTICALS_DIR>/<slug>.json`, read from disk and linted on
 * every serve (no cache: a manifest edited or broken on disk is noticed by the next call). Ids are
 * slugs (checked by the input schema), so a path can never leave the directory.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { GantryError } from "@gantry/kit";
import { blocking, lintManifest, type Finding } from "./lint.ts";

export const MAX_MANIFEST_BYTES = 1_000_000;

export interface LoadedManifest {
  id: string;
  manifest: Record<string, unknown> | null;
  findings: Finding[];
}

export async function listVerticalIds(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names
    .filter((n) => /^[a-z0-9]+(?:-[a-z0-9]+)*\.json$/.test(n))
    .map((n) => n.slice(0, -5))
    .sort();
}

/** Reads and lints one manifest; null when there is no such file. */
export async function loadManifest(dir: string, id: string): Promise<LoadedManifest | null> {
  const file = join(dir, `${id}.json`);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  if (size > MAX_MANIFEST_BYTES)
    return {
      id,
      manifest: null,
      findings: [
        {
          path: "",
          code: "too_large",
          message: `/: the manifest is ${size} bytes; the limit is ${MAX_MANIFEST_BYTES}`,
        },
      ],
    };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    return {
      id,
      manifest: null,
      findings: [{ path: "", code: "invalid_json", message: `/: not valid JSON (${(err as Error).message})` }],
    };
  }
  const findings = lintManifest(parsed, id);
  return {
    id,
    manifest:
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : null,
    findings,
  };
}

/** The manifest, or 404 (unknown) / 409 (fails lint, findings as details). */
export async function servableManifest(
  dir: string,
  id: string,
  section: "surface" | "all",
): Promise<Record<string, unknown>> {
  const loaded = await loadManifest(dir, id);
  if (!loaded) {
    throw new GantryError("not_found", `No vertical "${id}".`, {
      reason: "vertical.list lists the verticals this Gantry serves.",
      details: [{ path: "/input/id", message: `/input/id "${id}" is not a vertical`, code: "record_not_found" }],
    });
  }
  const bad = loaded.manifest ? blocking(loaded.findings, section) : loaded.findings;
  if (bad.length > 0 || !loaded.manifest) {
    throw new GantryError(
      "conflict",
      `The manifest of vertical "${id}" fails lint (${bad.length} finding${bad.length === 1 ? "" : "s"}); its ${section === "all" ? "manifest" : "surface"} is refused until it is fixed.`,
      {
        reason: bad
          .slice(0, 3)
          .map((f) => f.message)
          .join("; "),
        details: bad.slice(0, 100).map((f) => ({ path: `/manifest${f.path}`, message: f.message, code: f.code })),
      },
    );
  }
  return loaded.manifest;
}
