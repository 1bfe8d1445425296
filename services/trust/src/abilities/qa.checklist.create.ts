/**
 * @module trust/abilities/qa.checklist.create
 * A QA checklist: the given items first, in input order (severity `medium` when none is given);
 * without items, derived ones: the generic and the vertical's QA template items that apply to the
 * scope (an item with trigger words applies when the scope mentions one), then the lessons earlier
 * plans recorded for the vertical (or the tenant's latest when no vertical is named), sorted by
 * severity. `planId` must name one of the tenant's plans; its vertical applies when none is given.
 * With `idempotencyKey`, a retry returns the first checklist.
 */
import { idempotentCreate } from "@gantry/kit";
import { ability } from "../context.ts";
import type { Checklist } from "../db.ts";
import { newId } from "../ids.ts";
import { readPlan } from "../plans.ts";
import { QA_TEMPLATES, SEVERITY_ORDER, type Severity } from "../templates.ts";

interface Item {
  id: string;
  check: string;
  severity: Severity;
  source: "given" | "template" | "lesson";
  sourceRef: string | null;
}

const LESSONS = 10;

function view(row: Checklist) {
  return {
    id: row.id,
    tenant: row.tenant,
    title: row.title,
    scope: row.scope,
    planId: row.planId,
    vertical: row.vertical,
    items: row.items as unknown as Item[],
    created: row.createdAt.toISOString(),
  };
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

export default ability("qa.checklist.create", async (input, call, ctx) => {
  const plan = input.planId ? await readPlan(ctx, call.tenant, input.planId) : null;
  const vertical = input.vertical ?? plan?.vertical ?? null;
  let items: Omit<Item, "id">[];
  if (input.items) {
    items = input.items.map((i) => ({
      check: i.check,
      severity: i.severity ?? "medium",
      source: "given",
      sourceRef: null,
    }));
  } else {
    const scope = words(input.scope ?? "");
    const templates = [QA_TEMPLATES.generic!, ...(vertical && QA_TEMPLATES[vertical] ? [QA_TEMPLATES[vertical]] : [])];
    const fromTemplates = templates.flatMap((t) =>
      t.items
        .filter((i) => !i.when || i.when.some((w) => scope.has(w)))
        .map((i) => ({ check: i.check, severity: i.severity, source: "template" as const, sourceRef: t.id })),
    );
    const lessons = await ctx.db.planLesson.findMany({
      where: { tenant: call.tenant, ...(vertical ? { vertical } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
      take: LESSONS,
    });
    const fromLessons = lessons.map((l) => ({
      check: `${l.title}: ${l.lesson}`.slice(0, 500),
      severity: (l.severity ?? "medium") as Severity,
      source: "lesson" as const,
      sourceRef: l.id,
    }));
    // A stable sort: within a severity, templates before lessons, each in their own order.
    items = [...fromTemplates, ...fromLessons].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  }
  const now = new Date(ctx.now());
  const id = newId("checklist", now.getTime());
  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: "trust",
    call,
    ability: "qa.checklist.create",
    input,
    recordId: id,
    create: async (tx) =>
      view(
        await tx.checklist.create({
          data: {
            id,
            tenant: call.tenant,
            title: input.title,
            scope: input.scope ?? null,
            planId: plan?.id ?? null,
            vertical,
            items: items.map((item, n) => ({ id: `i${n + 1}`, ...item })),
            createdAt: now,
          },
        }),
      ),
    replay: async (recordId) =>
      view((await ctx.db.checklist.findFirst({ where: { id: recordId, tenant: call.tenant } }))!),
  });
  return result;
});
