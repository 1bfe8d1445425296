/**
 * @module memory/abilities/decision.record
 * `decision.record {title, why, supersedes?}` → `{id: "D-NNN", title, why, status, supersedes,
 * supersededBy, created}`.
 *
 * Ids are per tenant, gapless and unique under concurrency: one transaction increments the tenant's
 * row in `decision_counters` (`INSERT … ON CONFLICT DO UPDATE … RETURNING`, which locks the row until
 * commit, so concurrent records take turns) and inserts the decision; a failure rolls both back, so
 * no number is ever skipped. `supersedes` must name an existing decision of the tenant (404
 * otherwise) that is still active (409 when a later decision already superseded it); it is marked
 * superseded in the same transaction.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { decisionId, decisionNumber, decisionOut, decisionText } from "../decisions.ts";
import { vectorToBytes } from "../embed/types.ts";

export default ability("decision.record", async (input, call, ctx) => {
  const [vector] = await ctx.embedder.embed([decisionText(input.title, input.why)], "document");
  const now = new Date(ctx.now());
  const previous = input.supersedes === undefined ? undefined : decisionNumber(input.supersedes);
  const created = await ctx.db.$transaction(
    async (tx) => {
      const [{ last }] = await tx.$queryRaw<Array<{ last: number }>>`
        INSERT INTO "memory"."decision_counters" (tenant, last) VALUES (${call.tenant}, 1)
        ON CONFLICT (tenant) DO UPDATE SET last = "decision_counters".last + 1
        RETURNING last`;
      if (previous !== undefined) {
        const rows = await tx.$queryRaw<Array<{ superseded_by: number | null }>>`
          SELECT superseded_by FROM "memory"."decisions" WHERE tenant = ${call.tenant} AND number = ${previous} FOR UPDATE`;
        if (rows.length === 0) {
          throw new GantryError("not_found", `${input.supersedes} is not a decision of this tenant.`, {
            reason: "`supersedes` must name an earlier decision of this tenant (see decision.list).",
          });
        }
        if (rows[0].superseded_by !== null) {
          throw new GantryError(
            "conflict",
            `${input.supersedes} was already superseded by ${decisionId(rows[0].superseded_by)}.`,
            {
              reason: `Supersede ${decisionId(rows[0].superseded_by)} instead: it is the decision in force.`,
            },
          );
        }
      }
      const decision = await tx.decision.create({
        data: {
          tenant: call.tenant,
          number: last,
          title: input.title,
          why: input.why,
          supersedes: previous ?? null,
          vector: vectorToBytes(vector),
          model: ctx.embedder.model,
          dimensions: ctx.embedder.dimensions,
          requestId: call.requestId || null,
          keyId: call.keyId || null,
          vertical: call.verticalId ?? null,
          createdAt: now,
        },
      });
      if (previous !== undefined) {
        await tx.decision.update({
          where: { tenant_number: { tenant: call.tenant, number: previous } },
          data: { supersededBy: last, supersededAt: now },
        });
      }
      return decision;
    },
    { maxWait: 15_000, timeout: 20_000 },
  );
  return decisionOut(created);
});
