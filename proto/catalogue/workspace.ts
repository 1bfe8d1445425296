/**
 * @module catalogue/workspace
 * The tenant's working records: contacts, leads, tasks, workspace docs, events, workflows,
 * verticals and simulations, owned by the workspace service (spec §2.5, §4.3 contact.create,
 * task.create, event.emit, vertical.manifest_get, §6; issue 5). Every list is paginated with
 * `limit` (1..100, default 20) and `cursor`. Record ids are prefixed: contacts `ctc_`, leads `lead_`,
 * tasks `task_`, docs `doc_`, comments `cmt_`, events `evt_`, workflow runs `wfr_`, simulations `sim_`.
 */
import type { AbilityEntry } from "./types.ts";
import {
  array,
  constant,
  cursor,
  email,
  flag,
  freeObject,
  id,
  idempotencyKey,
  integer,
  limit,
  line,
  metadata,
  money,
  nullable,
  object,
  oneOfValues,
  phone,
  slug,
  text,
  typed,
  union,
} from "./schema.ts";

/** Task priorities (spec §2.5, §4.3 task.create). */
export const TASK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;
/** Task statuses (ours, issue 5). */
export const TASK_STATUSES = ["open", "in_progress", "blocked", "done", "cancelled"] as const;
/** Lead statuses (ours, issue 5): new → contacted → qualified → won | lost. */
export const LEAD_STATUSES = ["new", "contacted", "qualified", "won", "lost"] as const;
/** Workspace doc statuses (ours, issue 5). */
export const DOC_STATUSES = ["open", "closed"] as const;

/** Event names: dot-separated tokens of letters, digits, `_` and `-`; no wildcards (`*`, `>`). */
const EVENT_NAME_PATTERN = "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*$";
/** Workflow names are one NATS subject token: no dots. */
const WORKFLOW_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

function listQuery(what: string) {
  return text(`Case-insensitive search over ${what}.`, 200);
}

function docId() {
  return id("Workspace doc id returned by workspace.doc.create.");
}

/** One edit of workspace.doc.patch, anchored on exact text rather than offsets. */
function docOps() {
  const find = text("Exact text in the current version to anchor on; must occur exactly once.", 10_000);
  return array(
    "Edits applied in order to the current version; the patch fails as a whole if any anchor is missing or ambiguous.",
    union(
      [
        object(
          {
            op: constant("`replace`: replace the anchored text (an empty text deletes it).", "replace"),
            find,
            text: text("Replacement Markdown; empty to delete.", 500_000, { min: 0 }),
          },
          ["op", "find", "text"],
          { title: "replace", description: "Replace the anchored text." },
        ),
        object(
          {
            op: constant("`insert_after`: insert text right after the anchored text.", "insert_after"),
            find: text("Exact text in the current version to anchor on; must occur exactly once.", 10_000),
            text: text("Markdown to insert.", 500_000),
          },
          ["op", "find", "text"],
          { title: "insert_after", description: "Insert after the anchor." },
        ),
        object(
          {
            op: constant("`append`: add text at the end of the doc.", "append"),
            text: text("Markdown to append.", 500_000),
          },
          ["op", "text"],
          { title: "append", description: "Append to the end." },
        ),
      ],
      { type: "object", description: "One edit, selected by `op`." },
    ),
    100,
    1,
  );
}

export const abilities = [
  // ── contacts ──────────────────────────────────────────────────────────────────────────────
  {
    id: "contact.create",
    summary: "Create a contact (person or company); an idempotencyKey makes retries return the same contact.",
    inputSource: "spec",
    input: object(
      {
        name: line("Person's or company's name.", 200),
        phone: phone("Phone number; normalised to E.164 (include the country code)."),
        email: email("Email address."),
        company: line("Company the person works for.", 200),
        metadata: metadata("Your key-value data about the contact."),
        idempotencyKey: idempotencyKey("the contact"),
      },
      ["name"],
    ),
    example: {
      name: "Ada Obi",
      phone: "+234 803 123 4567",
      email: "ada@northwind.example",
      company: "Northwind Studio",
      metadata: { source: "referral", vip: true },
      idempotencyKey: "signup-form-7f3a9c",
    },
  },
  {
    id: "contact.get",
    summary: "Get one contact of the tenant by id.",
    inputSource: "ours",
    input: object({ id: id("Contact id returned by contact.create.") }, ["id"]),
    example: { id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q" },
  },
  {
    id: "contact.list",
    summary: "List or search the tenant's contacts.",
    inputSource: "ours",
    input: object({ query: listQuery("name, email, company and phone"), limit: limit(), cursor: cursor() }),
    example: { query: "northwind", limit: 20 },
  },
  {
    id: "contact.update",
    summary: "Partially update a contact: only the given fields change; null clears a field; metadata is merged.",
    inputSource: "ours",
    input: object(
      {
        id: id("Contact id."),
        name: line("New name.", 200),
        phone: nullable(phone(""), "New phone number (normalised to E.164), or null to clear it."),
        email: nullable(email(""), "New email address, or null to clear it."),
        company: nullable(line("", 200), "New company, or null to clear it."),
        metadata: metadata("Keys to set, merged into the existing metadata; a key set to null is removed.", true),
      },
      ["id"],
      { minProperties: 2 },
    ),
    example: {
      id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q",
      company: "Northwind Studio Ltd",
      metadata: { vip: null, tier: "gold" },
    },
  },
  // ── leads ─────────────────────────────────────────────────────────────────────────────────
  {
    id: "lead.create",
    summary: "Create a sales lead (status new), optionally linked to a contact.",
    inputSource: "ours",
    input: object(
      {
        name: line("Lead name (the opportunity or the person).", 200),
        contactId: id("Contact the lead is about."),
        email: email("Lead's email address, when there is no contact yet."),
        company: line("Lead's company.", 200),
        source: line("Where the lead came from (e.g. website, referral, event).", 100),
        value: money("Estimated deal value."),
        notes: text("Free-form notes.", 20_000),
        idempotencyKey: idempotencyKey("the lead"),
      },
      ["name"],
    ),
    example: {
      name: "Contoso website redesign",
      contactId: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q",
      source: "referral",
      value: { amount: 12000, currency: "USD" },
      idempotencyKey: "lead-contoso-redesign",
    },
  },
  {
    id: "lead.get",
    summary: "Get one lead with its status history.",
    inputSource: "ours",
    input: object({ id: id("Lead id returned by lead.create.") }, ["id"]),
    example: { id: "lead_01J9ZE7F8G9H0J1K2M3N4P5Q6R" },
  },
  {
    id: "lead.list",
    summary: "List or search the tenant's leads, optionally by status.",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only leads in this status.", LEAD_STATUSES),
      query: listQuery("name, email, company and source"),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { status: "qualified" },
  },
  {
    id: "lead.update_status",
    summary:
      "Move a lead along new → contacted → qualified → won | lost (any open lead may be lost; won and lost are final).",
    inputSource: "ours",
    input: object(
      {
        id: id("Lead id."),
        status: oneOfValues("Target status. Illegal moves are refused (409) with the allowed next states.", [
          "contacted",
          "qualified",
          "won",
          "lost",
        ]),
        reason: text("Why; kept in the lead's history.", 1000),
      },
      ["id", "status"],
    ),
    example: { id: "lead_01J9ZE7F8G9H0J1K2M3N4P5Q6R", status: "qualified", reason: "Budget confirmed on call." },
  },
  // ── tasks ─────────────────────────────────────────────────────────────────────────────────
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
    example: { id: "task_01J9ZF8G9H0J1K2M3N4P5Q6R7S", status: "done", note: "Quote sent." },
  },
  // ── workspace docs ────────────────────────────────────────────────────────────────────────
  {
    id: "workspace.doc.close",
    summary: "Close a workspace doc; it becomes read-only (closing a closed doc returns it unchanged).",
    inputSource: "ours",
    input: object({ id: docId() }, ["id"]),
    example: { id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T" },
  },
  {
    id: "workspace.doc.comment",
    summary: "Comment on a workspace doc, optionally anchored on a passage.",
    inputSource: "ours",
    input: object(
      {
        id: docId(),
        text: text("The comment.", 10_000),
        anchor: text("Exact passage of the doc the comment refers to.", 1000),
      },
      ["id", "text"],
    ),
    example: {
      id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T",
      text: "Can we commit to this date?",
      anchor: "Live before 1 June",
    },
  },
  {
    id: "workspace.doc.create",
    summary: "Create a Markdown workspace doc (version 1, open).",
    inputSource: "ours",
    input: object(
      {
        title: line("Doc title.", 200),
        content: text("Initial Markdown content; may be empty.", 500_000, { min: 0 }),
        idempotencyKey: idempotencyKey("the doc"),
      },
      ["title"],
    ),
    example: { title: "Booking launch notes", content: "# Booking launch\n\n- Live before 1 June\n" },
  },
  {
    id: "workspace.doc.list",
    summary: "List or search the tenant's workspace docs.",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only docs in this status.", DOC_STATUSES),
      query: listQuery("titles and content"),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { status: "open", query: "launch" },
  },
  {
    id: "workspace.doc.patch",
    summary:
      "Edit a workspace doc with optimistic concurrency: replace its content or apply anchored edits to baseVersion.",
    inputSource: "ours",
    input: union(
      [
        object(
          {
            id: docId(),
            baseVersion: integer(
              "The version you edited (from workspace.doc.read or the last patch).",
              1,
              2_147_483_647,
            ),
            content: text("The new full Markdown content; may be empty.", 500_000, { min: 0 }),
          },
          ["id", "baseVersion", "content"],
          { title: "replace content", description: "Replace the whole content." },
        ),
        object(
          {
            id: docId(),
            baseVersion: integer(
              "The version you edited (from workspace.doc.read or the last patch).",
              1,
              2_147_483_647,
            ),
            ops: docOps(),
          },
          ["id", "baseVersion", "ops"],
          { title: "edits", description: "Apply anchored edits in order." },
        ),
      ],
      {
        type: "object",
        description:
          "Either `content` (replace the whole doc) or `ops` (anchored edits), never both. A stale baseVersion is refused (409) with the current version.",
      },
    ),
    example: {
      id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T",
      baseVersion: 3,
      ops: [
        { op: "replace", find: "Live before 1 June", text: "Live before 15 June" },
        { op: "append", text: "\n- Deposit payment via payment.initiate\n" },
      ],
    },
  },
  {
    id: "workspace.doc.read",
    summary: "Read a workspace doc with its version, status and comments.",
    inputSource: "ours",
    input: object({ id: docId() }, ["id"]),
    example: { id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T" },
  },
  // ── events and workflows ──────────────────────────────────────────────────────────────────
  {
    id: "event.emit",
    summary: "Emit a named substrate event with an optional payload, durably, for other systems to react to.",
    inputSource: "spec",
    input: object(
      {
        event: text(
          "Event name: dot-separated tokens of letters, digits, _ and - (no wildcards), e.g. `booking.confirmed`.",
          128,
          { pattern: EVENT_NAME_PATTERN },
        ),
        payload: freeObject(
          "Event data (JSON object). At most 64 KiB serialized by default (the service's EVENT_MAX_PAYLOAD_BYTES); larger payloads are refused with 413.",
        ),
      },
      ["event"],
    ),
    example: { event: "booking.confirmed", payload: { bookingId: "bk_1042", startsAt: "2026-06-03T09:30:00Z" } },
  },
  {
    id: "workflow.trigger",
    summary: "Trigger a named workflow run: queued, published durably and delivered to the tenant's workflow endpoint.",
    inputSource: "ours",
    input: object(
      {
        workflow: text("Workflow name (letters, digits, _ and -; no dots).", 64, { pattern: WORKFLOW_NAME_PATTERN }),
        input: freeObject("Input handed to the workflow."),
        idempotencyKey: idempotencyKey("the run"),
      },
      ["workflow"],
    ),
    example: {
      workflow: "send-booking-reminders",
      input: { day: "2026-06-03" },
      idempotencyKey: "reminders-2026-06-03",
    },
  },
  // ── verticals and simulations ─────────────────────────────────────────────────────────────
  {
    id: "vertical.list",
    summary: "List the verticals whose manifests this Gantry serves.",
    inputSource: "ours",
    input: object({ limit: limit(), cursor: cursor() }),
    example: {},
  },
  {
    id: "vertical.manifest_get",
    summary: "Get a vertical's runtime surface manifest (lint-checked on every serve); `all` adds provisioning keys.",
    inputSource: "spec",
    input: object(
      {
        id: slug("Vertical slug (from vertical.list)."),
        section: oneOfValues(
          "`surface`: the runtime surface; `all`: the whole manifest including provisioning keys.",
          ["surface", "all"],
          "surface",
        ),
      },
      ["id"],
    ),
    example: { id: "clinic", section: "surface" },
  },
  {
    id: "sim.generate",
    summary: "Generate deterministic synthetic records for a vertical into a sandbox sub-tenant.",
    inputSource: "ours",
    input: object(
      {
        vertical: slug("Vertical whose nouns shape the data (from vertical.list)."),
        seed: integer(
          "Seed; the same seed, vertical and size give the same data. Random when omitted (and returned).",
          0,
          2_147_483_647,
        ),
        size: oneOfValues("small: tens of records; medium: hundreds.", ["small", "medium"], "small"),
        idempotencyKey: idempotencyKey("the simulation"),
      },
      ["vertical"],
    ),
    example: { vertical: "clinic", seed: 42, size: "small" },
  },
  {
    id: "sim.list",
    summary: "List the tenant's simulations and their sandbox sub-tenants.",
    inputSource: "ours",
    input: object({ vertical: slug("Only simulations of this vertical."), limit: limit(), cursor: cursor() }),
    example: { vertical: "clinic" },
  },
] as const satisfies readonly AbilityEntry[];
