/**
 * @module memory/abilities/decision.list
 * `decision.list {query?, includeSuperseded?, vertical?, limit?, cursor?}` → `{decisions, nextCursor}`.
 *
 * Without `query`: the tenant's decisions newest first (highest D-NNN first). With `query`: ranked by
 * cosine similarity between the query and each decision's title + why (no recency decay: a settled
 * decision does not fade), decisions with nothing in common left out, each with its `similarity`.
 * Superseded decisions are left out unless `includeSuperseded`; `vertical` keeps only the decisions
 * recorded with that context.verticalId. Decisions embedded by another model
 * than the configured one are re-embedded on the fly (and stored), so a model change never mixes
 * vector spaces.
 */
import { ability } from "../context.ts";
import {
  decisionOut,
  decisionText,
  decodeListCursor,
  decodeSearchCursor,
  listCursor,
  searchCursor,
} from "../decisions.ts";
import { bytesToVector, dot, vectorToBytes } from "../embed/types.ts";

export default ability("decision.list", async (input, call, ctx) => {
  const active = {
    ...(input.includeSuperseded ? {} : { supersededBy: null }),
    ...(input.vertical ? { vertical: input.vertical } : {}),
  };
  if (input.query === undefined) {
    const before = decodeListCursor(input.cursor);
    const rows = await ctx.db.decision.findMany({
      where: { tenant: call.tenant, ...active, ...(before !== undefined ? { number: { lt: before } } : {}) },
      orderBy: { number: "desc" },
      take: input.limit + 1,
      omit: { vector: true },
    });
    const page = rows.slice(0, input.limit);
    return {
      decisions: page.map(decisionOut),
      nextCursor: rows.length > input.limit ? listCursor(page[page.length - 1].number) : null,
    };
  }
  const offset = decodeSearchCursor(input.cursor, input.query);
  const rows = await ctx.db.decision.findMany({
    where: { tenant: call.tenant, ...active },
    orderBy: { number: "desc" },
  });
  const stale = rows.filter((r) => r.model !== ctx.embedder.model || r.dimensions !== ctx.embedder.dimensions);
  if (stale.length) {
    const vectors = await ctx.embedder.embed(
      stale.map((r) => decisionText(r.title, r.why)),
      "document",
    );
    for (const [i, r] of stale.entries()) {
      r.vector = vectorToBytes(vectors[i]);
      r.model = ctx.embedder.model;
      r.dimensions = ctx.embedder.dimensions;
      await ctx.db.decision.update({
        where: { tenant_number: { tenant: call.tenant, number: r.number } },
        data: { vector: r.vector, model: r.model, dimensions: r.dimensions },
      });
    }
  }
  const [q] = await ctx.embedder.embed([input.query], "query");
  const ranked = rows
    .map((r) => ({ r, similarity: dot(q, bytesToVector(r.vector)) }))
    .filter((x) => x.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || b.r.number - a.r.number);
  const page = ranked.slice(offset, offset + input.limit);
  return {
    decisions: page.map((x) => ({ ...decisionOut(x.r), similarity: Math.round(x.similarity * 1e6) / 1e6 })),
    nextCursor: offset + input.limit < ranked.length ? searchCursor(offset + input.limit, input.query) : null,
  };
});
