/**
 * @module catalogue/workspace/workspace
 * The workspace service's abilities of the `workspace` area (Workspace docs: workspace documents).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import {
  array,
  constant,
  cursor,
  id,
  idempotencyKey,
  integer,
  limit,
  line,
  object,
  oneOfValues,
  text,
  union,
} from "../schema.ts";
import { enumOf, fields, int, list, nullableStr, nullableTimestamp, page, str } from "../output.ts";
import { listQuery, ownerTenant, recordVertical, created, updated } from "./shared.ts";

/** Workspace doc statuses (ours, issue 5). */
export const DOC_STATUSES = ["open", "closed"] as const;

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

const comment = () =>
  fields(
    {
      id: str("Comment id (`cmt_…`)."),
      docId: str("Doc the comment is on (`doc_…`)."),
      text: str("The comment."),
      anchor: nullableStr("Exact passage of the doc the comment refers to, or null."),
      version: int("Version of the doc the comment was made on."),
      keyId: nullableStr("Id of the API key that commented, or null."),
      created: created("comment"),
    },
    [],
    { description: "A comment on a workspace doc." },
  );

function docFields() {
  return {
    id: str("Workspace doc id (`doc_…`)."),
    tenant: ownerTenant("doc"),
    title: str("Doc title."),
    version: int("Current version: 1 at creation, +1 on every patch."),
    status: enumOf("`open`, or `closed` (read-only).", DOC_STATUSES),
    length: int("Length of the content in characters (UTF-16 code units)."),
    vertical: recordVertical("doc"),
    created: created("doc"),
    updated: updated("doc"),
    closed: nullableTimestamp("When the doc was closed (RFC 3339, UTC); null while open."),
  };
}

const docContent = () => str("The Markdown content of the current version.");

/** A doc with content and comments (create, read, close). */
const doc = () =>
  fields(
    { ...docFields(), content: docContent(), comments: list("Comments on the doc, oldest first.", comment()) },
    [],
    { description: "A workspace doc with its content and comments." },
  );

/** A doc as lists show it: no content (only its length) and no comments. */
const docItem = () =>
  fields(docFields(), [], { description: "A workspace doc without its content (workspace.doc.read has it)." });

export const abilities = [
  {
    id: "workspace.doc.close",
    summary: "Close a workspace doc; it becomes read-only (closing a closed doc returns it unchanged).",
    inputSource: "ours",
    input: object({ id: docId() }, ["id"]),
    output: doc(),
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
    output: comment(),
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
    output: doc(),
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
    output: page("Docs, newest first (without content).", docItem()),
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
    output: fields({ ...docFields(), content: docContent() }, [], {
      description: "The doc as patched, at its new version, with its content (comments: workspace.doc.read).",
    }),
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
    output: doc(),
    example: { id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T" },
  },
] as const satisfies readonly AbilityEntry[];
