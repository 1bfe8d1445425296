/**
 * @module catalogue/areas
 * The one table of ability areas: an area is the first dot segment of an ability id, and this table
 * says, once, what it is called, what it is for and which process owns its abilities. The catalogue
 * derives each entry's `area` and `service` from it; OpenAPI tags, docs, discovery filters and the
 * topology read it. Adding an area is one row here.
 *
 * @example
 * import { AREAS, ownerOf } from "./areas.ts";
 * AREAS.contact.service; // "workspace"
 * ownerOf("qa.checklist.create"); // "trust" (an exception of the qa area)
 */
import type { ServiceName } from "./types.ts";

export interface AreaInfo {
  /** Short title for headings and tags. */
  readonly title: string;
  /** One sentence: what the area's abilities do. */
  readonly description: string;
  /** The process that executes the area's abilities. */
  readonly service: ServiceName;
  /** Ability ids of the area owned by another service (only `qa` splits today). */
  readonly except?: Readonly<Record<string, ServiceName>>;
}

export const AREAS = {
  capability: { title: "Capability", description: "Search what this key may call.", service: "gateway" },
  connection: {
    title: "Connections",
    description: "External-account connections of a tenant: consent, read, list, revoke, time-limited share.",
    service: "connections",
  },
  contact: { title: "Contacts", description: "People and companies of a tenant.", service: "workspace" },
  decision: { title: "Decisions", description: "The tenant's decision log (citable D-NNN ids).", service: "memory" },
  document: { title: "Documents", description: "Document generation and summaries.", service: "content" },
  email: { title: "Email", description: "Deterministic email rendering (nothing is sent).", service: "content" },
  event: { title: "Events", description: "Substrate events for other systems to react to.", service: "workspace" },
  gantry: { title: "Gantry", description: "This service's self-description for the calling key.", service: "gateway" },
  guide: { title: "Guides", description: "Help-centre guides of a product.", service: "content" },
  integration: {
    title: "Integrations",
    description: "Approved third-party tools over owned or shared connections.",
    service: "connections",
  },
  key: { title: "Keys", description: "API keys: inspect, list, issue, rotate, revoke.", service: "keys" },
  lead: { title: "Leads", description: "Sales leads.", service: "workspace" },
  lesson: { title: "Lessons", description: "The lessons inbox of the consolidation pipeline.", service: "memory" },
  memory: { title: "Memory", description: "Semantic memory over scoped collections.", service: "memory" },
  message: { title: "Messages", description: "Email and SMS delivery.", service: "content" },
  payment: { title: "Payments", description: "Payments, invoices and charges.", service: "payments" },
  payout: { title: "Payouts", description: "Payouts to verified accounts.", service: "payments" },
  plan: { title: "Plans", description: "Execution plans.", service: "trust" },
  qa: {
    title: "Quality checks",
    description: "Quality checks.",
    service: "web",
    except: { "qa.checklist.create": "trust" },
  },
  research: { title: "Research", description: "Web research with captured observations.", service: "web" },
  sim: { title: "Simulations", description: "Simulations.", service: "workspace" },
  skill: { title: "Skills", description: "Skill and knowledge packs.", service: "content" },
  task: { title: "Tasks", description: "Tasks for humans or agents.", service: "workspace" },
  trust: {
    title: "Trust",
    description: "Time-bounded runs, single-use permits and labelled claims.",
    service: "trust",
  },
  vertical: { title: "Verticals", description: "Vertical manifests.", service: "workspace" },
  web: { title: "Web", description: "Headless browsing and research.", service: "web" },
  workflow: { title: "Workflows", description: "Workflow triggers.", service: "workspace" },
  workspace: { title: "Workspace docs", description: "Workspace documents.", service: "workspace" },
} as const satisfies Record<string, AreaInfo>;

export type AreaName = keyof typeof AREAS;

/** Every area name, sorted. */
export const AREA_NAMES = Object.freeze(Object.keys(AREAS).sort()) as readonly AreaName[];

/** The area of an ability id: its first dot segment. */
export function areaOf(id: string): string {
  const dot = id.indexOf(".");
  return dot === -1 ? id : id.slice(0, dot);
}

/** The process that owns an ability id, from its area's row (and that row's exceptions). */
export function ownerOf(id: string): ServiceName {
  const info: AreaInfo | undefined = (AREAS as Record<string, AreaInfo>)[areaOf(id)];
  if (!info) throw new Error(`ability ${id}: no area "${areaOf(id)}" in proto/catalogue/areas.ts`);
  return info.except?.[id] ?? info.service;
}
