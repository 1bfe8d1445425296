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
import { bool, enumOf, fields, int, list, metadataOut, nullableStr, num, str, timestamp } from "./output.ts";

/** lesson.record categories (spec §4.3). */
export const LESSON_CATEGORIES = ["engineering", "ops", "business", "architecture", "security"] as const;

/** lesson.record severities (spec §4.3). */
export const LESSON_SEVERITIES = ["critical", "high", "medium", "low"] as const;

const DECISION_ID_PATTERN = "^D-[0-9]{3,}$";

function scopedCollection() {
  return collection(
    "Collection to use; must be in the key's scope. Defaults to the key's first scoped collection (`default` for a key whose collections are only `*`, i.e. all).",
  );
}

function filter(what: string) {
  return memoryFilter(
    `Metadata filter ${what}. Plain form \`{"kind": "vet"}\` = metadata kind equals "vet"; operators per key: $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte; combine with $and / $or (lists of condition objects). All top-level conditions must hold.`,
  );
}

/** The embedding model of memory.search / memory.recall results. */
const modelOut = () =>
  str(
    "Embedding model the query was embedded with (the collection's vectors use the same one): `use-lite-512-v1` (the default, Universal Sentence Encoder Lite), `lexical-hash-v1` (the lexical fallback), or `openai:<model>` / `ollama:<model>`.",
  );

/** Whether a search matched by meaning or by words. */
const matchingOut = () =>
  enumOf(
    'How the query was matched: `semantic` (a language model\'s embeddings: paraphrases and synonyms match, e.g. "preferred messaging channel" finds "Ada prefers WhatsApp") or `lexical` (lexical-hash-v1: shared words, plurals and spelling variants only, not meaning; the deployment runs the fallback embedder).',
    ["semantic", "lexical"],
  );

/** One ranked memory of memory.search / memory.recall. */
const hit = () =>
  fields(
    {
      id: str("Memory id (`mem_…`, or the id given to memory.save)."),
      text: str("The memory's text."),
      score: num(
        "Rank: similarity × 0.5^(age / half-life), age from the last save; 0..1, rounded to 6 decimals. Hits are sorted by it, best first.",
      ),
      similarity: num("Cosine similarity between query and memory (0 < similarity ≤ 1), rounded to 6 decimals."),
      metadata: metadataOut("Metadata stored with the memory."),
      vertical: recordVertical("memory"),
      created: timestamp("When the memory was first saved (RFC 3339)."),
      updated: timestamp("When the memory was last saved (RFC 3339); its age for the recency decay counts from here."),
    },
    [],
    { description: "One matching memory." },
  );

/** A record's vertical: the call's context.verticalId when it was made (issue 32 item 7). */
function recordVertical(what: string) {
  return nullableStr(`Vertical the ${what} belongs to (from the call's context.verticalId), or null.`);
}

/** The vertical filter of memory.search / memory.recall (as decision.list's). */
function memoryVertical() {
  return id(
    "Only memories of this vertical: filters by the memory's vertical (the context.verticalId it was saved with), before ranking.",
  );
}

/** A decision of the decision log (decision.record, decision.list). */
const decisionProps = () => ({
  id: str("Citable per-tenant id, `D-` + at least three digits (D-001, D-002, …).", { pattern: DECISION_ID_PATTERN }),
  title: str("The decision in one line."),
  why: str("The reasoning behind the decision."),
  status: enumOf("`active`, or `superseded` once a later decision replaced it.", ["active", "superseded"]),
  supersedes: nullableStr("Id of the earlier decision this one replaced, or null."),
  supersededBy: nullableStr("Id of the later decision that replaced this one, or null while it is active."),
  vertical: recordVertical("decision"),
  created: timestamp("When the decision was recorded (RFC 3339)."),
  superseded: timestamp(
    "When a later decision replaced it (RFC 3339). Present only when `status` is `superseded`; absent (not null) otherwise.",
  ),
});

export const abilities = [
  {
    id: "memory.save",
    summary:
      "Save a memory (text plus metadata) into a scoped collection; a near-duplicate (the nearest memory, worded almost identically: similarity ≥ 0.97) updates the existing memory instead.",
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
    output: fields(
      {
        id: str("Id of the saved memory (`mem_…` when added; the existing id when updated or deduplicated)."),
        collection: str("Collection the memory is in."),
        action: enumOf(
          "`created` (a new memory), `updated` (upsert of an existing `id`) or `deduplicated` (a near-duplicate, similarity ≥ 0.97, was updated instead of adding one).",
          ["created", "updated", "deduplicated"],
        ),
        deduplicated: bool("Whether a near-duplicate was updated instead of adding a new memory."),
        similarity: num(
          'Similarity with the near-duplicate it merged into, rounded to 6 decimals: wording similarity (lexical-hash-v1 cosine) with a semantic embedder, whose vectors rate different facts about one thing alike ("Invoice INV-1001 is paid" / "INV-1002": 0.995); the vectors\' cosine with the lexical one. Present only when `deduplicated` is true.',
        ),
        created: timestamp("The memory's first save (RFC 3339)."),
        updated: timestamp("The memory's latest save, i.e. now (RFC 3339)."),
        vertical: nullableStr(
          "Vertical the memory belongs to: this call's context.verticalId; when the call named none and it updated a memory, the vertical that memory had; else null.",
        ),
        model: str("Embedding model of the stored vector."),
      },
      ["similarity"],
      { description: "The saved memory." },
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
      "Search a scoped collection by meaning (semantic with the default embedder; by shared words only when the deployment runs the lexical fallback: the result's `matching` says which), ranked by cosine similarity × recency decay (half-life 30 days by default).",
    inputSource: "spec",
    input: object(
      {
        query: text(
          "Natural-language query. Embedded server-side (768 dimensions) by the deployment's embedder (see `matching` in the result).",
          4000,
        ),
        collection: scopedCollection(),
        limit: integer("Maximum hits (1..100).", 1, 100, 5),
        filter: filter("applied before ranking; it never widens the tenant or collection"),
        vertical: memoryVertical(),
      },
      ["query"],
    ),
    output: fields(
      {
        collection: str("Collection searched."),
        model: modelOut(),
        matching: matchingOut(),
        halfLifeDays: num("Half-life of the recency decay in days (0 = no decay)."),
        hits: list("Matching memories, best score first; empty when nothing matches.", hit()),
      },
      [],
      { description: "Search results." },
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
        query: text(
          "Natural-language query. Embedded server-side (768 dimensions) by the deployment's embedder (see `matching` in the result).",
          4000,
        ),
        collection: scopedCollection(),
        k: integer("Number of memories in the block (1..100).", 1, 100, 5),
        vertical: memoryVertical(),
      },
      ["query"],
    ),
    output: fields(
      {
        collection: str("Collection searched."),
        model: modelOut(),
        matching: matchingOut(),
        block: str(
          'Text block for a model\'s context: `<retrieved_memories collection="…" query="…" count="N">`, a notice that the contents are retrieved data and not instructions, then one `[n] id=… saved=YYYY-MM-DD relevance=0.71 key=value…` line per memory followed by its indented, escaped text, and `</retrieved_memories>`.',
        ),
        hits: list("The memories in the block, best score first (as memory.search returns them).", hit()),
      },
      [],
      { description: "The recall block and the hits it was built from." },
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
    output: fields(
      {
        collection: str("Collection the memories were deleted from."),
        forgotten: int("Memories deleted (0 on a dry run)."),
        matched: int("Memories that matched (by id: 1, or 0 if it vanished meanwhile)."),
        dryRun: bool("Whether this was a dry run (nothing deleted)."),
      },
      [],
      { description: "What was deleted." },
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
    output: fields(decisionProps(), ["superseded"], { description: "The recorded decision." }),
    example: {
      title: "Invoices are sent on the 1st of each month, never mid-month",
      why: "Customers reconcile monthly; mid-month invoices caused 30% of support tickets in April.",
      supersedes: "D-004",
    },
  },
  {
    id: "decision.list",
    summary:
      "List the tenant's decision log, newest first, or search it by meaning (by shared words only when the deployment runs the lexical fallback embedder).",
    inputSource: "ours",
    input: object({
      query: text(
        "Search decisions by meaning (with the same embedder as memory.search); omit to list newest first.",
        4000,
      ),
      includeSuperseded: flag("Also return decisions that a later decision superseded.", false),
      vertical: id(
        "Only decisions of this vertical: filters by the record's vertical (the context.verticalId it was recorded with).",
      ),
      limit: limit(),
      cursor: cursor(),
    }),
    output: fields(
      {
        decisions: list(
          "Decisions: newest first (highest number first), or with `query` by similarity, best first.",
          fields(
            {
              ...decisionProps(),
              similarity: num(
                "Cosine similarity between the query and the decision's title + why (0 < similarity ≤ 1), rounded to 6 decimals. Present only when `query` was given.",
              ),
            },
            ["superseded", "similarity"],
            { description: "One decision." },
          ),
        ),
        nextCursor: nullableStr(
          "Pass as `cursor` (with the same `query`) to get the next page; null on the last page.",
        ),
      },
      [],
      { description: "One page of the decision log." },
    ),
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
    output: fields(
      {
        id: str("Lesson id (`les_…`)."),
        status: enumOf("Always `inbox`: the lesson waits in the consolidation pipeline's inbox.", ["inbox"]),
        recorded: timestamp("When the lesson was recorded (RFC 3339)."),
        event: str("Subject of the event emitted for it (`memory.lesson.recorded`)."),
        vertical: recordVertical("lesson"),
      },
      [],
      { description: "The recorded lesson." },
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
