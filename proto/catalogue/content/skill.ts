/**
 * @module catalogue/content/skill
 * The content service's abilities of the `skill` area (Skills: skill and knowledge packs).
 * `proto/catalogue/content.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { enumOf, fields, page, str } from "../output.ts";
import { cursor, limit, object, slug, text } from "../schema.ts";
import { sha256 } from "./shared.ts";

/** A skill as listed (skill.list): its front matter. */
function skillProps() {
  return {
    name: str("Skill name (the `name` of skill.load): lowercase letters, digits and hyphens."),
    description: str("What the skill covers and when to load it (from the SKILL.md front matter)."),
    source: enumOf("`builtin` (shipped with Gantry) or `tenant` (added by your tenant).", ["builtin", "tenant"]),
  };
}

export const abilities = [
  {
    id: "skill.list",
    summary: "List the skills and knowledge packs that skill.load can load.",
    inputSource: "ours",
    input: object({
      query: text("Search skill names and descriptions.", 200),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Skills, by name.", fields(skillProps(), [], { description: "A skill." })),
    example: { query: "security" },
  },
  {
    id: "skill.load",
    summary:
      "Load a skill or knowledge pack by name for injection into context; `guardrails` returns the hard behavioural rules.",
    inputSource: "spec",
    input: object(
      { name: slug("Skill name (e.g. engineering, ops, security, architecture-gaps, tools, guardrails).") },
      ["name"],
    ),
    output: fields(
      {
        ...skillProps(),
        content: str(
          "The SKILL.md body in Markdown (front matter removed), ready to inject into context; for `guardrails`, the hard behavioural rules.",
        ),
        sha256: sha256("SHA-256 (hex) of `content`, to tell versions apart."),
      },
      [],
      { description: "The skill's content." },
    ),
    example: { name: "guardrails" },
  },
] as const satisfies readonly AbilityEntry[];
