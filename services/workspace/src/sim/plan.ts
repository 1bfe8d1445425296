/**
 * @module workspace/sim/plan
 * Deterministic synthetic records for a vertical. Everything is drawn from one seeded PRNG
 * (mulberry32) in a fixed order, so the same manifest, seed and size always give the same names,
 * emails, phones, titles, statuses, values and due offsets. Only ids and the anchor time differ
 * between two runs. Contacts, leads and tasks are shaped by the manifest's nouns (one group per
 * noun of that record kind: its label, its fields mapped to `metadata.*`) and by the optional `sim`
 * vocabularies (titles, companies, sources, assignees, value range). Personal data is fictional by
 * construction: emails at example.com, phones in the +1 202-555-01xx fiction range.
 */

import { mulberry32 } from "@gantry/kit";

export const SIZES = {
  small: { contact: 20, lead: 10, task: 16 },
  medium: { contact: 200, lead: 100, task: 160 },
} as const;

export type SimSize = keyof typeof SIZES;

const FIRST = [
  "Ada",
  "Bola",
  "Chen",
  "Dara",
  "Elif",
  "Femi",
  "Grace",
  "Hugo",
  "Ines",
  "Jonas",
  "Kemi",
  "Liam",
  "Maya",
  "Nikhil",
  "Olga",
  "Pedro",
  "Quinn",
  "Rosa",
  "Sami",
  "Tariq",
  "Uma",
  "Viktor",
  "Wen",
  "Ximena",
  "Yusuf",
  "Zara",
];
const LAST = [
  "Obi",
  "Adeyemi",
  "Lindqvist",
  "Moreau",
  "Kowalski",
  "Nakamura",
  "Okafor",
  "Haddad",
  "Silva",
  "Novak",
  "Mensah",
  "Rossi",
  "Fischer",
  "Dubois",
  "Patel",
  "Kim",
  "Andersen",
  "Costa",
  "Yilmaz",
  "Walsh",
];

interface Noun {
  id: string;
  label: string;
  record: string;
  fields: Array<{ id: string; type: string; maps: string; options?: string[] }>;
}

interface Vocab {
  titles?: string[];
  companies?: string[];
  sources?: string[];
  assignees?: string[];
  value?: { min: number; max: number; currency: string };
}

export interface PlannedContact {
  noun: string;
  name: string;
  email: string;
  phone: string;
  company: string | null;
  metadata: Record<string, string | number | boolean>;
}
export interface PlannedLead {
  noun: string;
  name: string;
  contactIndex: number | null;
  source: string;
  value: { amount: number; currency: string } | null;
  /** Status path from `new`, e.g. ["new", "contacted", "lost"]. */
  path: string[];
}
export interface PlannedTask {
  noun: string;
  title: string;
  assignedTo: string | null;
  dueInHours: number;
  priority: string;
  path: string[];
}
export interface SimPlan {
  contacts: PlannedContact[];
  leads: PlannedLead[];
  tasks: PlannedTask[];
}

function weighted<T>(rnd: () => number, table: Array<[T, number]>): T {
  const total = table.reduce((s, [, w]) => s + w, 0);
  let x = rnd() * total;
  for (const [v, w] of table) {
    x -= w;
    if (x < 0) return v;
  }
  return table[table.length - 1][0];
}

const LEAD_PATHS: Array<[string[], number]> = [
  [["new"], 30],
  [["new", "contacted"], 25],
  [["new", "contacted", "qualified"], 20],
  [["new", "contacted", "qualified", "won"], 15],
  [["new", "lost"], 3],
  [["new", "contacted", "lost"], 4],
  [["new", "contacted", "qualified", "lost"], 3],
];
const TASK_PATHS: Array<[string[], number]> = [
  [["open"], 55],
  [["open", "in_progress"], 20],
  [["open", "blocked"], 5],
  [["open", "in_progress", "done"], 15],
  [["open", "cancelled"], 5],
];

/** Splits `total` over `n` groups as evenly as possible (earlier groups get the remainder). */
function split(total: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
}

export function planSimulation(manifest: Record<string, unknown>, seed: number, size: SimSize): SimPlan {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const surface = manifest.surface as { nouns: Noun[] };
  const vocab = (manifest.sim ?? {}) as Record<string, Vocab>;
  const nouns = (record: string) => surface.nouns.filter((n) => n.record === record);
  const counts = SIZES[size];

  const fieldValue = (f: Noun["fields"][number], n: number): string | number | boolean => {
    switch (f.type) {
      case "number":
        return int(1, 100);
      case "money":
        return int(10, 5000);
      case "boolean":
        return rnd() < 0.5;
      case "enum":
        return pick(f.options ?? ["a"]);
      case "date":
        return new Date(Date.UTC(2026, 0, 1) + int(0, 364) * 86_400_000).toISOString().slice(0, 10);
      case "datetime":
        return new Date(Date.UTC(2026, 0, 1) + int(0, 364 * 24) * 3_600_000).toISOString();
      default:
        return `${f.id} ${n}`;
    }
  };

  const contacts: PlannedContact[] = [];
  const contactNouns = nouns("contact");
  split(contactNouns.length ? counts.contact : 0, Math.max(contactNouns.length, 1)).forEach((k, gi) => {
    const noun = contactNouns[gi];
    if (!noun) return;
    const v = vocab[noun.id] ?? {};
    for (let i = 0; i < k; i++) {
      const first = pick(FIRST);
      const last = pick(LAST);
      const n = contacts.length + 1;
      const metadata: Record<string, string | number | boolean> = { noun: noun.id, sim: true };
      for (const f of noun.fields)
        if (f.maps.startsWith("metadata.")) metadata[f.maps.slice("metadata.".length)] = fieldValue(f, n);
      contacts.push({
        noun: noun.id,
        name: `${first} ${last}`,
        email: `${first}.${last}.${n}@example.com`.toLowerCase(),
        phone: `+1202555${String(100 + int(0, 99)).padStart(4, "0")}`,
        company: v.companies ? pick(v.companies) : null,
        metadata,
      });
    }
  });

  const leads: PlannedLead[] = [];
  const leadNouns = nouns("lead");
  split(leadNouns.length ? counts.lead : 0, Math.max(leadNouns.length, 1)).forEach((k, gi) => {
    const noun = leadNouns[gi];
    if (!noun) return;
    const v = vocab[noun.id] ?? {};
    for (let i = 0; i < k; i++) {
      const contactIndex = contacts.length ? int(0, contacts.length - 1) : null;
      const title = v.titles ? pick(v.titles) : noun.label;
      leads.push({
        noun: noun.id,
        name: contactIndex === null ? `${title} ${leads.length + 1}` : `${title} — ${contacts[contactIndex].name}`,
        contactIndex,
        source: v.sources ? pick(v.sources) : "simulation",
        value: v.value
          ? { amount: int(Math.ceil(v.value.min), Math.floor(v.value.max)), currency: v.value.currency }
          : null,
        path: weighted(rnd, LEAD_PATHS),
      });
    }
  });

  const tasks: PlannedTask[] = [];
  const taskNouns = nouns("task");
  split(taskNouns.length ? counts.task : 0, Math.max(taskNouns.length, 1)).forEach((k, gi) => {
    const noun = taskNouns[gi];
    if (!noun) return;
    const v = vocab[noun.id] ?? {};
    for (let i = 0; i < k; i++) {
      const who = contacts.length ? contacts[int(0, contacts.length - 1)].name : null;
      const title = v.titles ? pick(v.titles) : noun.label;
      tasks.push({
        noun: noun.id,
        title: who ? `${title}: ${who}` : `${title} ${tasks.length + 1}`,
        assignedTo: v.assignees ? pick(v.assignees) : null,
        dueInHours: int(-72, 240),
        priority: weighted(rnd, [
          ["low", 20],
          ["medium", 45],
          ["high", 25],
          ["urgent", 10],
        ]),
        path: weighted(rnd, TASK_PATHS),
      });
    }
  });

  return { contacts, leads, tasks };
}
