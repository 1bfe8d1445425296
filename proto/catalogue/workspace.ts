/**
 * @module catalogue/workspace
 * The tenant's working records: contacts, leads, tasks, workspace docs, events, workflows,
 * verticals and simulations, owned by the workspace service (spec §2.5, §4.3 contact.create,
 * task.create, event.emit, vertical.manifest_get, §6; issue 5). Every list is paginated with
 * `limit` (1..100, default 20) and `cursor`. Record ids are prefixed: contacts `ctc_`, leads `lead_`,
 * tasks `task_`, docs `doc_`, comments `cmt_`, events `evt_`, workflow runs `wfr_`, simulations `sim_`.
 */
import type { AbilityEntry } from "./types.ts";
import { abilities as contact } from "./workspace/contact.ts";
import { abilities as lead } from "./workspace/lead.ts";
import { abilities as task } from "./workspace/task.ts";
import { abilities as workspace } from "./workspace/workspace.ts";
import { abilities as event } from "./workspace/event.ts";
import { abilities as workflow } from "./workspace/workflow.ts";
import { abilities as vertical } from "./workspace/vertical.ts";
import { abilities as sim } from "./workspace/sim.ts";

export { TASK_PRIORITIES, TASK_STATUSES } from "./workspace/task.ts";
export { LEAD_STATUSES } from "./workspace/lead.ts";
export { DOC_STATUSES } from "./workspace/workspace.ts";
export { RUN_STATUSES, RUN_DELIVERIES } from "./workspace/workflow.ts";
export { SIM_SIZES } from "./workspace/sim.ts";
export {
  VERTICAL_RECORDS,
  VERTICAL_FIELD_TYPES,
  VERTICAL_CAPTURE_TYPES,
  VERTICAL_HOST_METHODS,
} from "./workspace/vertical.ts";

/** The service's entries, area by area (one file per area under `./workspace/`). */
export const abilities = [
  ...contact,
  ...lead,
  ...task,
  ...workspace,
  ...event,
  ...workflow,
  ...vertical,
  ...sim,
] as const satisfies readonly AbilityEntry[];
