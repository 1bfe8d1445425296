/**
 * @module content/abilities/skill.load
 * One skill's SKILL.md body (front matter removed), ready to inject into context, with its SHA-256
 * to tell versions apart. `guardrails` is the built-in skill holding the hard behavioural rules.
 */
import { GantryError, sha256Hex } from "@gantry/kit";
import { ability } from "../context.ts";
import { skillsFor } from "../skills.ts";

export default ability("skill.load", async (input, call, ctx) => {
  const all = await skillsFor(ctx.skills, ctx.blobs, call.tenant, ctx.log);
  const skill = all.find((s) => s.name === input.name);
  if (!skill)
    throw new GantryError(
      "not_found",
      `No skill is named "${input.name}"; skill.list lists them (${all.map((s) => s.name).join(", ")}).`,
      { details: [{ path: "/input/name", message: `/input/name names no skill`, code: "record_not_found" }] },
    );
  return {
    name: skill.name,
    description: skill.description,
    source: skill.source,
    content: skill.content,
    sha256: sha256Hex(skill.content),
  };
});
