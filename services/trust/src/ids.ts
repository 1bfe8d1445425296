/**
 * @module trust/ids
 * The trust service's id prefixes (kit/src/data/ids.ts makes the ids): `run_` a run, `pmt_` a
 * permit, `clm_` a claim, `pub_` a published answer, `plan_` a plan, `pex_` a plan.execute call,
 * `qac_` a QA checklist.
 */
import { idMaker } from "@gantry/kit";

export const newId = idMaker({
  run: "run",
  permit: "pmt",
  claim: "clm",
  publication: "pub",
  plan: "plan",
  execution: "pex",
  checklist: "qac",
} as const);
