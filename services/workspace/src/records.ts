/**
 * @module workspace/records
 * The wire shape of every record: rows → JSON-ready objects. Ids are prefixed; `created` and
 * `updated` are RFC 3339 UTC timestamps; absent optional fields are `null`, never missing, so
 * clients can rely on the keys.
 */
import type { Contact, Doc, DocComment, Lead, LeadEvent, Simulation, Task, TaskEvent, WorkflowRun } from "./db.ts";
import { fromMinor } from "./money.ts";

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function contactOut(c: Contact) {
  return {
    id: c.id,
    tenant: c.tenant,
    name: c.name,
    email: c.email,
    phone: c.phone,
    company: c.company,
    metadata: (c.metadata ?? {}) as Record<string, unknown>,
    vertical: c.vertical,
    created: iso(c.createdAt)!,
    updated: iso(c.updatedAt)!,
  };
}

export function leadEventOut(e: LeadEvent) {
  return {
    from: e.fromStatus,
    to: e.toStatus,
    reason: e.reason,
    keyId: e.keyId,
    requestId: e.requestId,
    at: iso(e.at)!,
  };
}

export function leadOut(l: Lead, history?: LeadEvent[]) {
  return {
    id: l.id,
    tenant: l.tenant,
    name: l.name,
    status: l.status,
    contactId: l.contactId,
    email: l.email,
    company: l.company,
    source: l.source,
    value: l.valueMinor !== null && l.valueCurrency ? fromMinor(l.valueMinor, l.valueCurrency) : null,
    notes: l.notes,
    vertical: l.vertical,
    created: iso(l.createdAt)!,
    updated: iso(l.updatedAt)!,
    closed: iso(l.closedAt),
    ...(history ? { history: history.map(leadEventOut) } : {}),
  };
}

export const TASK_FINAL = new Set(["done", "cancelled"]);

export function taskEventOut(e: TaskEvent) {
  return { from: e.fromStatus, to: e.toStatus, note: e.note, keyId: e.keyId, requestId: e.requestId, at: iso(e.at)! };
}

export function taskOut(t: Task, now = new Date(), history?: TaskEvent[]) {
  return {
    id: t.id,
    tenant: t.tenant,
    title: t.title,
    status: t.status,
    priority: t.priority,
    assignedTo: t.assignedTo,
    dueAt: iso(t.dueAt),
    overdue: Boolean(t.dueAt && t.dueAt.getTime() < now.getTime() && !TASK_FINAL.has(t.status)),
    vertical: t.vertical,
    created: iso(t.createdAt)!,
    updated: iso(t.updatedAt)!,
    closed: iso(t.closedAt),
    ...(history ? { history: history.map(taskEventOut) } : {}),
  };
}

export function commentOut(c: DocComment) {
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

/** A doc; `content` only when asked (lists leave it out), comments only on read. */
export function docOut(d: Doc, opts: { content?: boolean; comments?: DocComment[] } = {}) {
  return {
    id: d.id,
    tenant: d.tenant,
    title: d.title,
    version: d.version,
    status: d.status,
    ...(opts.content === false ? {} : { content: d.content }),
    length: d.content.length,
    vertical: d.vertical,
    created: iso(d.createdAt)!,
    updated: iso(d.updatedAt)!,
    closed: iso(d.closedAt),
    ...(opts.comments ? { comments: opts.comments.map(commentOut) } : {}),
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

export function simOut(s: Simulation) {
  return {
    simId: s.id,
    id: s.id,
    tenant: s.sandboxTenant,
    subTenant: s.sandboxTenant.slice(s.tenant.length + 1),
    vertical: s.vertical,
    seed: s.seed,
    size: s.size,
    counts: s.counts as Record<string, number>,
    created: iso(s.createdAt)!,
    updated: iso(s.updatedAt)!,
  };
}
