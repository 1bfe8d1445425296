/**
 * @module workspace/abilities/vertical.manifest_get
 * A vertical's manifest, linted on this very serve. `surface` (default) returns the runtime
 * surface (nouns, screens, captures, signals, actions); `all` returns the whole manifest including
 * provisioning (key templates, workflows, collections) and sim vocabularies. A manifest failing lint
 * is refused with 409 and its findings as details, each with its path under `/manifest`.
 */
import { ability } from "../context.ts";
import { servableManifest } from "../verticals/manifests.ts";

export default ability("vertical.manifest_get", async (input, _call, ctx) => {
  const m = await servableManifest(ctx.verticalsDir, input.id, input.section);
  if (input.section === "all") return { section: "all", lint: { ok: true, findings: 0 }, ...m };
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    summary: m.summary,
    section: "surface",
    lint: { ok: true },
    surface: m.surface,
  };
});
