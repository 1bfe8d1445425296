/**
 * @module workspace/abilities/vertical.list
 * The verticals this Gantry serves, by id. Each manifest is linted as it is listed: `status` is
 * `ok`, or `invalid` with the number of findings (vertical.manifest_get names them). Any
 * authenticated key may call it; manifests hold no tenant data.
 */
import { decodeCursor, encodeCursor } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import { ability } from "../context.ts";
import { listVerticalIds, loadManifest } from "../verticals/manifests.ts";
import { blocking } from "../verticals/lint.ts";

export default ability("vertical.list", async (input, _call, ctx) => {
  const after = input.cursor ? decodeCursor(input.cursor, { k: "string" }).k : undefined;
  const ids = (await listVerticalIds(ctx.verticalsDir)).filter((id) => after === undefined || id > after);
  const page = ids.slice(0, input.limit);
  const items = await Promise.all(
    page.map(async (id): Promise<OutputOf<"vertical.list">["items"][number]> => {
      const loaded = await loadManifest(ctx.verticalsDir, id);
      const m = (loaded?.manifest ?? {}) as Record<string, unknown>;
      const surface = (m.surface ?? {}) as Record<string, unknown[]>;
      const surfaceFindings = loaded?.manifest
        ? blocking(loaded.findings, "surface").length
        : (loaded?.findings.length ?? 1);
      return {
        id,
        name: typeof m.name === "string" ? m.name : null,
        version: typeof m.version === "string" ? m.version : null,
        summary: typeof m.summary === "string" ? m.summary : null,
        nouns: Array.isArray(surface.nouns)
          ? surface.nouns.map((n) => (n as { id?: unknown }).id).filter((x) => typeof x === "string")
          : [],
        status: surfaceFindings === 0 ? "ok" : "invalid",
        findings: loaded?.findings.length ?? 0,
      };
    }),
  );
  return { items, nextCursor: ids.length > input.limit ? encodeCursor({ k: page[page.length - 1] }) : null };
});
