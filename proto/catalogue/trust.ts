/**
 * @module catalogue/trust
 * Trust runs, permits and labelled claims, plans and QA checklists, owned by the trust service
 * (spec §2.5 Claim, §4.3 trust.preflight, trust.publish, plan.create).
 */
import type { AbilityEntry } from "./types.ts";
import { abilities as trust } from "./trust/trust.ts";
import { abilities as plan } from "./trust/plan.ts";
import { abilities as qa } from "./trust/qa.ts";

export { CLAIM_STATUSES, RUN_STATUSES, PERMIT_STATUSES } from "./trust/trust.ts";
export { PLAN_OUTCOMES, PLAN_STATUSES, PHASE_STATUSES, CHECK_STATUSES } from "./trust/plan.ts";

/** The service's entries, area by area (one file per area under `./trust/`). */
export const abilities = [...trust, ...plan, ...qa] as const satisfies readonly AbilityEntry[];
