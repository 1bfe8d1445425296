/**
 * @module workspace/transitions
 * The lead and task state machines, in one place, and the 409 an illegal move gets.
 *
 * Leads:  new → contacted → qualified → won; any open state (new, contacted, qualified) → lost;
 *         won and lost are final.
 * Tasks:  open, in_progress and blocked move freely among themselves and to done or cancelled;
 *         done and cancelled are final unless reopened to open.
 */
import { GantryError } from "@gantry/kit";

export const LEAD_NEXT: Record<string, readonly string[]> = {
  new: ["contacted", "lost"],
  contacted: ["qualified", "lost"],
  qualified: ["won", "lost"],
  won: [],
  lost: [],
};

export const TASK_NEXT: Record<string, readonly string[]> = {
  open: ["in_progress", "blocked", "done", "cancelled"],
  in_progress: ["open", "blocked", "done", "cancelled"],
  blocked: ["open", "in_progress", "done", "cancelled"],
  done: ["open"],
  cancelled: ["open"],
};

export function assertTransition(kind: "lead" | "task", id: string, from: string, to: string): void {
  const table = kind === "lead" ? LEAD_NEXT : TASK_NEXT;
  const allowed = table[from] ?? [];
  if (allowed.includes(to)) return;
  const next = allowed.length ? `it can move to ${allowed.join(" or ")}` : `${from} is final`;
  throw new GantryError("conflict", `${kind === "lead" ? "Lead" : "Task"} ${id} is ${from}; ${next}, not ${to}.`, {
    reason: allowed.length ? `Allowed next states: ${allowed.join(", ")}.` : `No transition leaves ${from}.`,
    details: [
      {
        path: "/input/status",
        message: `/input/status ${to} is not reachable from ${from}`,
        code: "illegal_transition",
        current: from,
        allowed: [...allowed],
      },
    ],
  });
}
