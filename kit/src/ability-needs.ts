/**
 * @module kit/ability-needs
 * What a wired ability cannot do on this deployment yet: a service declares, from its own
 * configuration, which abilities (or which part of one, such as a channel) would answer 501, and
 * what to set so they would not. Describe carries it to the gateway, whose discovery surfaces
 * (`GET /v1/abilities`, capability.discover, /docs, MCP) then say `needs_configuration` instead of
 * "live" for a call that cannot run.
 *
 * @example
 * needs: (ctx) => ctx.search ? [] : [needsConfiguration("web.research", ["WEB_SEARXNG_URL"], "No search provider is configured.")],
 */

export interface AbilityNeed {
  ability: string;
  /** The part that cannot run (`channel sms`); null when it is the whole ability. */
  part: string | null;
  /** `needs_configuration`: setting `variables` makes it run; `not_wired`: no adapter exists yet. */
  status: "needs_configuration" | "not_wired";
  /** Environment variables of the owning service to set. */
  variables: string[];
  /** What a caller sees and what to do, in one sentence. */
  message: string;
}

/** The whole ability, or `part` of it, runs once `variables` are set. */
export function needsConfiguration(
  ability: string,
  variables: string[],
  message: string,
  part: string | null = null,
): AbilityNeed {
  return { ability, part, status: "needs_configuration", variables, message };
}

/** The ability's handler exists, but `part` of it has no adapter yet (calls using it answer 501). */
export function partNotWired(ability: string, part: string, message: string): AbilityNeed {
  return { ability, part, status: "not_wired", variables: [], message };
}
