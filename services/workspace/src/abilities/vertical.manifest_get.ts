/**
 * @module workspace/abilities/vertical.manifest_get
 * A vertical's manifest, linted on this very serve. `surface` (default) returns the runtime
 * surface (nouns, screens, captures, signals, actions); `all` returns the whole manifest including
 * provisioning (key templates, workflows, collections) and sim vocabularies. A manifest failing lint
 * is refused with 409 and its findings as details, each with its path under `/manifest`.
 */
import type { OutputOf } from "@gantry/proto/catalogue";
import { ability } from "../context.ts";
import { servableManifest } from "../verticals/manifests.ts";

type All = Extract<OutputOf<"vertical.manifest_get">, { section: "all" }>;
type Surface = Extract<OutputOf<"vertical.manifest_get">, { section: "surface" }>;
/** The manifest as the file holds it: the `all` result without what this handler adds. */
type Manifest = Omit<All, "section" | "lint">;

export default ability("vertical.manifest_get", async (input, _call, ctx) => {
  // A cast at the file boundary: the manifest is JSON read from disk, and servableManifest has just
  // linted it (verticals/lint.ts: its shape, closed sets and fields) and refused it on any finding.
  const m = (await servableManifest(ctx.verticalsDir, input.id, input.section)) as Manifest;
  if (input.section === "all") {
    const all: All = { section: "all", lint: { ok: true, findings: 0 }, ...m };
    return all;
  }
  const surface: Surface = {
    id: m.id,
    name: m.name,
    version: m.version,
    summary: m.summary,
    section: "surface",
    lint: { ok: true },
    surface: m.surface,
  };
  return surface;
});
