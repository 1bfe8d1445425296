/**
 * @module workspace/records
 * The wire shape of every record: rows → JSON-ready objects. Ids are prefixed; `created` and
 * `updated` are RFC 3339 UTC timestamps; absent optional fields are `null`, never missing, so
 * clients can rely on the keys.
 */
import { oneOf } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import {
  DOC_STATUSES,
  LEAD_STATUSES,
  SIM_SIZES,
  TASK_PRIORITIES,
  TASK_STATUSES,
} from "@gantry/proto/catalogue/workspace.ts";
import type { Contact, Doc, DocComment, Lead, LeadEvent, Simulation, Task, TaskEvent, WorkflowRun } from "./db.ts";
import { moneyOut } from "@gantry/kit/money.ts";

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

// Each shape is the catalogue's result schema (proto/catalogue/workspace.ts), so a field that drifts
// from it is a compile error here.
type ContactOut = OutputOf<"contact.get">;
type LeadOut = OutputOf<"lead.get">;
type LeadItem = OutputOf<"lead.list">["items"][number];
type TaskOut = OutputOf<"task.get">;
type TaskItem = OutputOf<"task.list">["items"][number];
type DocOut = OutputOf<"workspace.doc.read">;
type DocItem = OutputOf<"workspace.doc.list">["items"][number];
type SimOut = OutputOf<"sim.generate">;

export function contactOut(c: Contact): ContactOut {
  return {
    id: c.id,
    tenant: c.tenant,
    name: c.name,
    email: c.email,
    phone: c.phone,
    company: c.company,
    // Json to Prisma; always written from the validated `metadata` input, whose values are these.
    metadata: (c.metadata ?? {}) as ContactOut["metadata"],
    vertical: c.vertical,
    created: iso(c.createdAt)!,
    updated: iso(c.updatedAt)!,
  };
}

export function leadEventOut(e: LeadEvent): LeadOut["history"][number] {
  return {
    from: e.fromStatus === null ? null : oneOf(LEAD_STATUSES, e.fromStatus, "lead status"),
    to: oneOf(LEAD_STATUSES, e.toStatus, "lead status"),
    reason: e.reason,
    keyId: e.keyId,
    requestId: e.requestId,
    at: iso(e.at)!,
  };
}

/** A lead with its history (get, create, update_status). */
export function leadOut(l: Lead, history: LeadEvent[]): LeadOut {
  return { ...leadItemOut(l), history: history.map(leadEventOut) };
}

/** A lead as lists show it: no history. */
export function leadItemOut(l: Lead): LeadItem {
  return {
    id: l.id,
    tenant: l.tenant,
    name: l.name,
    status: oneOf(LEAD_STATUSES, l.status, "lead status"),
    contactId: l.contactId,
    email: l.email,
    company: l.company,
    source: l.source,
    value: l.valueMinor !== null && l.valueCurrency ? moneyOut(l.valueMinor, l.valueCurrency) : null,
    notes: l.notes,
    vertical: l.vertical,
    created: iso(l.createdAt)!,
    updated: iso(l.updatedAt)!,
    closed: iso(l.closedAt),
  };
}

export const TASK_FINAL = new Set(["done", "cancelled"]);

export function taskEventOut(e: TaskEvent): TaskOut["history"][number] {
  return {
    from: e.fromStatus === null ? null : oneOf(TASK_STATUSES, e.fromStatus, "task status"),
    to: oneOf(TASK_STATUSES, e.toStatus, "task status"),
    note: e.note,
    keyId: e.keyId,
    requestId: e.requestId,
    at: iso(e.at)!,
  };
}

/** A task with its history (get, create, update_status). */
export function taskOut(t: Task, now: Date, history: TaskEvent[]): TaskOut {
  return { ...taskItemOut(t, now), history: history.map(taskEventOut) };
}

/** A task as lists show it: no history. */
export function taskItemOut(t: Task, now = new Date()): TaskItem {
  return {
    id: t.id,
    tenant: t.tenant,
    title: t.title,
    status: oneOf(TASK_STATUSES, t.status, "task status"),
    priority: oneOf(TASK_PRIORITIES, t.priority, "task priority"),
    assignedTo: t.assignedTo,
    dueAt: iso(t.dueAt),
    overdue: Boolean(t.dueAt && t.dueAt.getTime() < now.getTime() && !TASK_FINAL.has(t.status)),
    vertical: t.vertical,
    created: iso(t.createdAt)!,
    updated: iso(t.updatedAt)!,
    closed: iso(t.closedAt),
  };
}

export function commentOut(c: DocComment): OutputOf<"workspace.doc.comment"> {
  return {
    id: c.id,
    docId: c.docId,
    text: c.text,
    anchor: c.anchor,
    version: c.version,
    keyId: c.keyId,
    created: iso(c.createdAt)!,
  };
}

/** A doc with its content and comments (create, read, close). */
export function docOut(d: Doc, comments: DocComment[]): DocOut {
  return { ...docItemOut(d), content: d.content, comments: comments.map(commentOut) };
}

/** A doc with its content but not its comments (patch). */
export function docContentOut(d: Doc): OutputOf<"workspace.doc.patch"> {
  return { ...docItemOut(d), content: d.content };
}

/** A doc as lists show it: no content (only its length), no comments. */
export function docItemOut(d: Doc): DocItem {
  return {
    id: d.id,
    tenant: d.tenant,
    title: d.title,
    version: d.version,
    status: oneOf(DOC_STATUSES, d.status, "doc status"),
    length: d.content.length,
    vertical: d.vertical,
    created: iso(d.createdAt)!,
    updated: iso(d.updatedAt)!,
    closed: iso(d.closedAt),
  };
}

export function runOut(r: WorkflowRun) {
  return {
    id: r.id,
    tenant: r.tenant,
    workflow: r.workflow,
    status: r.status,
    subject: r.subject,
    sequence: r.sequence === null ? null : Number(r.sequence),
    delivery: r.endpointHost
      ? {
          endpointHost: r.endpointHost,
          attempts: r.attempts,
          lastStatusCode: r.lastStatusCode,
          lastError: r.lastError,
          delivered: iso(r.deliveredAt),
        }
      : null,
    created: iso(r.createdAt)!,
    updated: iso(r.updatedAt)!,
  };
}

export function simOut(s: Simulation): SimOut {
  return {
    simId: s.id,
    id: s.id,
    tenant: s.sandboxTenant,
    subTenant: s.sandboxTenant.slice(s.tenant.length + 1),
    vertical: s.vertical,
    seed: s.seed,
    size: oneOf(SIM_SIZES, s.size, "simulation size"),
    // Json to Prisma; sim.generate writes exactly these three counts in the same transaction.
    counts: s.counts as SimOut["counts"],
    created: iso(s.createdAt)!,
    updated: iso(s.updatedAt)!,
  };
}
