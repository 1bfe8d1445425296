/**
 * @module memory/abilities/lesson.record
 * `lesson.record {title, category, lesson, triggers?, severity?, context?, fix?, tags?, reusable?}`
 * → `{id, status: "inbox", recorded, event, vertical}` (`vertical`: the call's context.verticalId, or null).
 *
 * Appends to the lessons inbox of the consolidation pipeline. The lesson row and its
 * `memory.lesson.recorded` event (stream LESSONS, msg id = lesson id) are committed together
 * (outbox), and the event is published right after the commit (or by the outbox relay after a NATS
 * outage), so the pipeline never misses a lesson. The inbox is append-only: no ability edits or
 * deletes an entry, and a database trigger refuses UPDATE and DELETE on the table.
 */
import { SUBJECTS, randomBase62 } from "@gantry/kit";
import { ability } from "../context.ts";

/** The `memory.lesson.recorded` payload. */
export interface LessonRecordedEvent {
  id: string;
  tenant: string;
  title: string;
  category: string;
  lesson: string;
  triggers: string[];
  severity: string | null;
  context: string | null;
  fix: string | null;
  tags: string[];
  reusable: boolean | null;
  recorded: string;
  requestId: string | null;
  keyId: string | null;
  /** The call's context.verticalId, or null; absent from events recorded before it was kept. */
  vertical?: string | null;
}

export default ability("lesson.record", async (input, call, ctx) => {
  const id = `les_${randomBase62(22)}`;
  const at = new Date(ctx.now());
  const event: LessonRecordedEvent = {
    id,
    tenant: call.tenant,
    title: input.title,
    category: input.category,
    lesson: input.lesson,
    triggers: input.triggers ?? [],
    severity: input.severity ?? null,
    context: input.context ?? null,
    fix: input.fix ?? null,
    tags: input.tags ?? [],
    reusable: input.reusable ?? null,
    recorded: at.toISOString(),
    requestId: call.requestId || null,
    keyId: call.keyId || null,
    vertical: call.verticalId ?? null,
  };
  await ctx.db.$transaction([
    ctx.db.lesson.create({
      data: {
        id,
        tenant: call.tenant,
        title: input.title,
        category: input.category,
        triggers: event.triggers,
        severity: event.severity,
        context: event.context,
        lesson: input.lesson,
        fix: event.fix,
        tags: event.tags,
        reusable: event.reusable,
        requestId: event.requestId,
        keyId: event.keyId,
        vertical: event.vertical,
        createdAt: at,
      },
    }),
    ctx.db.outboxEvent.create({
      data: { tenant: call.tenant, subject: SUBJECTS.lessonRecorded, msgId: id, payload: event as unknown as object },
    }),
  ]);
  await ctx.outbox.flush();
  return {
    id,
    status: "inbox" as const,
    recorded: event.recorded,
    event: SUBJECTS.lessonRecorded,
    vertical: event.vertical ?? null,
  };
});
