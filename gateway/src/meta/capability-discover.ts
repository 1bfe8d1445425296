/**
 * @module gateway/meta/capability-discover
 * `capability.discover {query?, area?, limit?}`: the abilities this key may call that match the
 * query (ids, descriptions, input field names), best first, each with its live status and what it
 * still needs on this deployment, so an agent checks here before claiming a capability is absent
 * and does not plan on one that would answer 501. Without a query it lists the key's abilities
 * (optionally one area). Matches the key may not call are named separately (`outOfScope`, ids and
 * summaries only: the catalogue is public in /openapi.json) so "absent" and "not allowed for this
 * key" are never confused.
 */
import { catalogue } from "@gantry/proto/catalogue";
import { allowedDefs, inputFields } from "../discovery/abilities.ts";
import { rank, type Ranked } from "../discovery/search.ts";
import type { MetaHandler } from "./types.ts";

const OUT_OF_SCOPE_MAX = 5;

export const capabilityDiscover: MetaHandler = async (input, call, env) => {
  const query = typeof input.query === "string" ? input.query.trim() : "";
  const area = typeof input.area === "string" ? input.area : undefined;
  const limit = typeof input.limit === "number" ? input.limit : 10;

  const byArea = <T extends { area: string }>(list: readonly T[]) =>
    area ? list.filter((a) => a.area === area) : [...list];
  const allowed = byArea(allowedDefs(call.scopes));
  const ranked: Ranked[] = query ? rank(query, allowed) : allowed.map((def) => ({ def, score: 0, matched: [] }));
  const top = ranked.slice(0, limit);
  const states = await env.liveStatus.details(top.map((r) => r.def.id));

  const allowedIds = new Set(allowed.map((d) => d.id));
  const outOfScope = query
    ? rank(
        query,
        byArea(catalogue).filter((d) => !allowedIds.has(d.id)),
      )
        .slice(0, OUT_OF_SCOPE_MAX)
        .map((r) => ({ id: r.def.id, description: r.def.summary, score: r.score }))
    : [];

  let hint: string;
  if (top.length > 0) {
    hint = `Call an ability with POST ${env.baseUrl}/v1/abilities/{id} and {"input": {...}} (or the MCP tool of the same name). Status "live" runs now (a part listed in its needs does not); "needs_configuration" answers 501 until the operator sets needs[].variables; "not_wired" answers 501; "unavailable" answers 503, retry later.`;
  } else if (outOfScope.length > 0) {
    hint = `No ability this key may call matches. ${outOfScope.length} ability(ies) outside this key's scopes do (outOfScope): a key whose scopes include them can call them.`;
  } else {
    hint = "Nothing in the catalogue matches. Try other words, or omit the query to list everything this key may call.";
  }

  return {
    query: query || null,
    area: area ?? null,
    limit,
    total: ranked.length,
    count: top.length,
    abilities: top.map((r) => {
      const { status: s, needs } = states.get(r.def.id) ?? { status: "unavailable" as const, needs: [] };
      const fields = inputFields(r.def);
      return {
        id: r.def.id,
        area: r.def.area,
        description: r.def.summary,
        score: query ? r.score : null,
        matched: r.matched,
        status: s,
        live: s === "live",
        needs,
        path: `/v1/abilities/${r.def.id}`,
        requiredFields: [...new Set(fields.filter((f) => f.required).map((f) => f.name))],
        fields: [...new Set(fields.map((f) => f.name))],
      };
    }),
    outOfScope,
    hint,
    docs: `${env.baseUrl}/docs`,
  };
};
