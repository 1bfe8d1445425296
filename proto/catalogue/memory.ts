/**
 * @module catalogue/memory
 * Semantic memory, the decision log and the lessons inbox, owned by the memory service
 * (spec §4.3 memory.search, memory.recall, decision.record, lesson.record; §5.7; issue 7).
 */
import type { AbilityEntry } from "./types.ts";
import {
  array,
  collection,
  cursor,
  flag,
  id,
  integer,
  limit,
  line,
  memoryFilter,
  metadata,
  object,
  oneOfValues,
  union,
  text,
} from "./schema.ts";

/** lesson.record categories (spec §4.3). */
export const LESSON_CATEGORIES = ["engineering", "ops", "business", "architecture", "security"] as const;

/** lesson.record severities (spec §4.3). */
export const LESSON_SEVERITIES = ["critical", "high", "medium", "low"] as const;

const DECISION_ID_PATTERN = "^D-[0-9]{3,}$";

function scopedCollection() {
  return collection("Collection to use; must be in the key's scope. Defaults to the key's first scoped collection.");
}

function filter(what: string) {
  return memoryFilter(
    `Metadata filter ${what}. Plain form \`{"kind": "vet"}\` = metadata kind equals "vet"; operators per key: $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte; combine with $and / $or (lists of condition objects). All top-level conditions must hold.`,
  );
}

export const abilities = [
  {
    id: "memory.save",
    summary:
      "Save a memory (text plus metadata) into a scoped collection; a near-duplicate (cosine ≥ 0.97) updates the existing memory instead.",
    inputSource: "ours",
    input: object(
      {
        text: text("The memory. Embedded server-side.", 32_000),
        collection: scopedCollection(),
        metadata: metadata("Key-value data stored with the memory and usable in search filters."),
        id: id(
          "Memory id to upsert: replaces that memory's text (and its metadata when `metadata` is given). Unique per tenant: an id used in another collection is refused (409). Omit to add a new memory or update a near-duplicate.",
        ),
      },
      ["text"],
    ),
    example: {
      text: "Biscuit (golden retriever, 4y) is allergic to chicken; use the salmon kibble.",
      collection: "clinic-notes",
      metadata: { kind: "vet", pet: "biscuit" },
    },
  },
  {
    id: "memory.search",
    summary:
      "Semantic search over a scoped collection, ranked by cosine similarity × recency decay (half-life 30 days by default).",
    inputSource: "spec",
    input: object(
      {
        query: text("Natural-language query. Embedded server-side (768 dimensions).", 4000),
        collection: scopedCollection(),
        limit: integer("Maximum hits (1..100).", 1, 100, 5),
        filter: filter("applied before ranking; it never widens the tenant or collection"),
      },
      ["query"],
    ),
    example: { query: "which food does Biscuit need", collection: "clinic-notes", limit: 3, filter: { kind: "vet" } },
  },
  {
    id: "memory.recall",
    summary:
      "Search a scoped collection and return the top matches as a delimited block, marked as retrieved data (not instructions), ready to inject into a model's context.",
    inputSource: "spec",
    input: object(
      {
        query: text("Natural-language query. Embedded server-side (768 dimensions).", 4000),
        collection: scopedCollection(),
        k: integer("Number of memories in the block (1..100).", 1, 100, 5),
      },
      ["query"],
    ),
    example: { query: "Biscuit diet", collection: "clinic-notes", k: 5 },
  },
  {
    id: "memory.forget",
    summary: "Delete one memory by id, or every memory of a collection matching a filter (dry run to count first).",
    inputSource: "ours",
    input: union(
      [
        object(
          {
            id: id("Id of the memory to delete. Its collection must be in the key's scope."),
            collection: collection(
              "When given, the memory must be in this collection (else 404); must be in the key's scope.",
            ),
          },
          ["id"],
          { title: "by id", description: "Delete one memory." },
        ),
        object(
          {
            filter: { ...filter("selecting the memories to delete (at least one condition)"), minProperties: 1 },
            collection: scopedCollection(),
            dryRun: flag("When true, only count what would be deleted. Omitted means false."),
          },
          ["filter"],
          { title: "by filter", description: "Delete every memory of the collection that matches the filter." },
        ),
      ],
      {
        type: "object",
        description: "Either `id` (one memory) or `filter` (every matching memory of the collection). Never both.",
      },
    ),
    example: { filter: { pet: "biscuit" }, collection: "clinic-notes", dryRun: true },
  },
  {
    id: "decision.record",
    summary: "Record a decision settled by the operator; returns its citable per-tenant id (D-001, D-002, …, gapless).",
    inputSource: "spec",
    input: object(
      {
        title: line("The decision in one line.", 200),
        why: text("The reasoning behind the decision.", 20_000),
        supersedes: text(
          "Id of an earlier, still active decision of this tenant that this one replaces (e.g. D-004); it becomes superseded. Unknown → 404; already superseded → 409.",
          16,
          { min: 5, pattern: DECISION_ID_PATTERN },
        ),
      },
      ["title", "why"],
    ),
    example: {
      title: "Invoices are sent on the 1st of each month, never mid-month",
      why: "Customers reconcile monthly; mid-month invoices caused 30% of support tickets in April.",
      supersedes: "D-004",
    },
  },
  {
    id: "decision.list",
    summary: "List the tenant's decision log, newest first, or search it semantically.",
    inputSource: "ours",
    input: object({
      query: text("Search decisions semantically; omit to list newest first.", 4000),
      includeSuperseded: flag("Also return decisions that a later decision superseded.", false),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { query: "invoice timing", limit: 10 },
  },
  {
    id: "lesson.record",
    summary:
      "Append a lesson to the lessons inbox of the consolidation pipeline (append-only; emits memory.lesson.recorded).",
    inputSource: "spec",
    input: object(
      {
        title: line("Short title of the lesson.", 200),
        category: oneOfValues("Category of the lesson.", LESSON_CATEGORIES),
        triggers: array(
          "Keywords that should surface the lesson later.",
          text("A trigger keyword or phrase.", 100),
          20,
          0,
          true,
        ),
        severity: oneOfValues("How much it matters.", LESSON_SEVERITIES),
        context: text("Situation in which the lesson was learnt.", 20_000),
        lesson: text("What was learnt.", 20_000),
        fix: text("What to do about it.", 20_000),
        tags: array("Tags for grouping.", text("A tag.", 64), 20, 0, true),
        reusable: flag("Whether the lesson applies beyond the situation it came from."),
      },
      ["title", "category", "lesson"],
    ),
    example: {
      title: "Run migrations before deploying the API",
      category: "ops",
      triggers: ["deploy", "migration"],
      severity: "high",
      context: "Release 1.4 deployed the API before its migration; requests failed for 6 minutes.",
      lesson: "The API expects the new columns at boot.",
      fix: "Deploy pipeline runs the migration job and waits for it before rolling the API.",
      tags: ["release"],
      reusable: true,
    },
  },
] as const satisfies readonly AbilityEntry[];
