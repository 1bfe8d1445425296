/**
 * @module content/abilities/skill.load
 * One skill's SKILL.md body (front matter removed), ready to inject into context, with its SHA-256
 * to tell versions apart. `guardrails` is the built-in skill holding the hard behavioural rules,
 * followed by the tenant's critical consolidated lessons (the memory service merges every lesson
 * recorded with lesson.record by meaning; gantry.memory.v1.Lessons): what went badly wrong for this
 * tenant, however often, is a rule too. When memory cannot be reached the rules are still served and
 * say that its lessons are missing, rather than failing the agent's most important read.
 */
import { GantryError, sha256Hex } from "@gantry/kit";
import type { ConsolidatedLessonWire } from "@gantry/kit/lessons-reader.ts";
import { ability, type Context } from "../context.ts";
import { skillsFor } from "../skills.ts";

/** The critical lessons a guardrails load carries at most (most often recorded first). */
const CRITICAL_LESSONS = 20;

/** Lesson text is the tenant's own words: one line each, so it cannot pose as a heading or a rule of the list. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function lessonsSection(lessons: readonly ConsolidatedLessonWire[] | undefined): string {
  if (lessons === undefined)
    return "\n## Critical lessons of this tenant\n\nThe tenant's recorded lessons could not be read just now (memory service unavailable); load this skill again before relying on it.\n";
  if (lessons.length === 0) return "";
  const items = lessons.map((l) => {
    const times = l.count === 1 ? "once" : `${l.count} times`;
    const fix = l.fix ? ` Fix: ${oneLine(l.fix, 500)}` : "";
    return `- **${oneLine(l.title, 200)}** (recorded ${times}, last ${l.last_seen.slice(0, 10)}): ${oneLine(l.lesson, 1000)}${fix}`;
  });
  return `\n## Critical lessons of this tenant\n\nRecorded with lesson.record and merged by meaning; each is a rule here too.\n\n${items.join("\n")}\n`;
}

async function criticalLessons(ctx: Context, tenant: string, requestId: string) {
  try {
    return await ctx.lessons.list({ tenant, min_severity: "critical", limit: CRITICAL_LESSONS, request_id: requestId });
  } catch (err) {
    ctx.log.warn(
      { requestId, err: err instanceof GantryError ? err.code : String(err) },
      "consolidated lessons unavailable: guardrails served without them",
    );
    return undefined;
  }
}

export default ability("skill.load", async (input, call, ctx) => {
  const all = await skillsFor(ctx.skills, ctx.blobs, call.tenant, ctx.log);
  const skill = all.find((s) => s.name === input.name);
  if (!skill)
    throw new GantryError(
      "not_found",
      `No skill is named "${input.name}"; skill.list lists them (${all.map((s) => s.name).join(", ")}).`,
      { details: [{ path: "/input/name", message: `/input/name names no skill`, code: "record_not_found" }] },
    );
  const content =
    skill.name === "guardrails" && skill.source === "builtin"
      ? `${skill.content.trimEnd()}\n${lessonsSection(await criticalLessons(ctx, call.tenant, call.requestId))}`
      : skill.content;
  return {
    name: skill.name,
    description: skill.description,
    source: skill.source,
    content,
    sha256: sha256Hex(content),
  };
});
