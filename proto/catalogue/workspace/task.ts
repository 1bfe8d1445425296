/**
 * @module catalogue/workspace/task
 * The workspace service's abilities of the `task` area (Tasks: tasks for humans or agents).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import {
  cursor,
  flag,
  id,
  idempotencyKey,
  limit,
  line,
  nullable,
  object,
  oneOfValues,
  slug,
  text,
  typed,
} from "../schema.ts";
import { bool, enumOf, fields, list, nullableStr, nullableTimestamp, page, str, timestamp } from "../output.ts";
import { ownerTenant, recordVertical, created, updated } from "./shared.ts";

/** Task priorities (spec §2.5, §4.3 task.create). */
export const TASK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;

/** Task statuses (ours, issue 5). */
export const TASK_STATUSES = ["open", "in_progress", "blocked", "done", "cancelled"] as const;

const taskEvent = () =>
  fields(
    {
      from: nullable(enumOf("", TASK_STATUSES), "Status before the change; null for the creation."),
      to: enumOf("Status after the change.", TASK_STATUSES),
      note: nullableStr("Note given with the change, or null."),
      keyId: nullableStr("Id of the API key that made the change, or null."),
      requestId: nullableStr("Request id of the call that made the change, or null."),
      at: timestamp("When the change happened (RFC 3339, UTC)."),
    },
    [],
    { description: "One status change of a task (the creation included)." },
  );

function taskFields() {
  return {
    id: str("Task id (`task_…`)."),
    tenant: ownerTenant("task"),
    title: str("What needs doing."),
    status: enumOf("Current status.", TASK_STATUSES),
    priority: enumOf("Priority.", TASK_PRIORITIES),
    assignedTo: nullableStr("User or agent the task is assigned to, or null."),
    dueAt: nullableTimestamp("When the task is due (RFC 3339, UTC), or null when it has no due time."),
    overdue: bool("Past its due time and neither done nor cancelled, at the time of the call."),
    vertical: recordVertical("task"),
    created: created("task"),
    updated: updated("task"),
    closed: nullableTimestamp("When the task was done or cancelled (RFC 3339, UTC); null while not."),
  };
}

/** A task with its history (get, create, update_status). */
const task = () =>
  fields(
    {
      ...taskFields(),
      history: list("Every status change, oldest first; the first entry is the creation.", taskEvent()),
    },
    [],
    { description: "A task with its status history." },
  );

/** A task as lists show it: no history (task.get has it). */
const taskItem = () => fields(taskFields(), [], { description: "A task (without its history)." });

export const abilities = [
  {
    id: "task.create",
    summary: "Create a task for a human or agent; an idempotencyKey makes retries safe.",
    inputSource: "spec",
    input: object(
      {
        title: line("What needs doing.", 200),
        assignedTo: text("Who does it: a user or agent id or name.", 128),
        dueInHours: typed<number>({
          type: "number",
          description: "Due this many hours from now (stored as an absolute due time).",
          exclusiveMinimum: 0,
          maximum: 17_520,
        }),
        priority: oneOfValues("Priority.", TASK_PRIORITIES, "medium"),
        vertical: slug("Vertical the task belongs to."),
        idempotencyKey: idempotencyKey("the task"),
      },
      ["title"],
    ),
    output: task(),
    example: {
      title: "Call Contoso about the redesign quote",
      assignedTo: "ada",
      dueInHours: 24,
      priority: "high",
      idempotencyKey: "task-call-contoso-1",
    },
  },
  {
    id: "task.get",
    summary: "Get one task by id.",
    inputSource: "ours",
    input: object({ id: id("Task id returned by task.create.") }, ["id"]),
    output: task(),
    example: { id: "task_01J9ZF8G9H0J1K2M3N4P5Q6R7S" },
  },
  {
    id: "task.list",
    summary: "List the tenant's tasks with filters (status, assignee, priority, overdue).",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only tasks in this status.", TASK_STATUSES),
      assignedTo: text("Only tasks assigned to this user or agent.", 128),
      priority: oneOfValues("Only tasks of this priority.", TASK_PRIORITIES),
      overdue: flag(
        "true: only tasks past their due time and not done or cancelled; false: only tasks that are not overdue.",
      ),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Tasks, newest first (without history).", taskItem()),
    example: { assignedTo: "ada", overdue: true },
  },
  {
    id: "task.update_status",
    summary:
      "Change a task's status among open, in_progress, blocked, done, cancelled (done and cancelled only reopen to open).",
    inputSource: "ours",
    input: object(
      {
        id: id("Task id."),
        status: oneOfValues("Target status.", TASK_STATUSES),
        note: text("Note kept in the task's history.", 1000),
      },
      ["id", "status"],
    ),
    output: task(),
    example: { id: "task_01J9ZF8G9H0J1K2M3N4P5Q6R7S", status: "done", note: "Quote sent." },
  },
] as const satisfies readonly AbilityEntry[];
