/**
 * @module workspace/docs
 * Workspace doc helpers: anchored edits, and the refusals of patch/comment on a closed doc or a
 * stale version.
 */
import { GantryError } from "@gantry/kit";
import type { InputOf } from "@gantry/proto/catalogue";

export const MAX_DOC_CHARS = 500_000;

/** One edit of workspace.doc.patch (its type is derived from the catalogue schema). */
export type DocOp = Extract<InputOf<"workspace.doc.patch">, { ops: unknown }>["ops"][number];

function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1 && at.length < 2; i = haystack.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** Applies ops in order, each to the result of the previous; every anchor must occur exactly once. */
export function applyOps(content: string, ops: DocOp[]): string {
  let out = content;
  ops.forEach((op, i) => {
    if (op.op === "append") {
      out += op.text;
      return;
    }
    const at = occurrences(out, op.find);
    if (at.length !== 1) {
      const code = at.length === 0 ? "anchor_not_found" : "anchor_ambiguous";
      const what = at.length === 0 ? "does not occur in" : "occurs more than once in";
      throw new GantryError(
        "invalid_request",
        `ops[${i}].find ${what} the doc (after the edits before it); anchors must occur exactly once.`,
        {
          details: [{ path: `/input/ops/${i}/find`, message: `/input/ops/${i}/find ${what} the doc`, code }],
        },
      );
    }
    const start = at[0];
    const end = start + op.find.length;
    out =
      op.op === "replace"
        ? out.slice(0, start) + op.text + out.slice(end)
        : out.slice(0, end) + op.text + out.slice(end);
  });
  return out;
}

export function closedConflict(id: string): GantryError {
  return new GantryError("conflict", `Workspace doc ${id} is closed; it is read-only.`, {
    reason: "Closed docs cannot be patched or commented on; create a new doc to continue.",
    details: [{ path: "/input/id", message: "/input/id names a closed doc", code: "doc_closed", status: "closed" }],
  });
}

export function staleConflict(id: string, baseVersion: number, currentVersion: number): GantryError {
  return new GantryError(
    "conflict",
    `Workspace doc ${id} is at version ${currentVersion}, not ${baseVersion}; read it again and reapply your edit.`,
    {
      reason: `Stale baseVersion; the current version is ${currentVersion}.`,
      details: [
        {
          path: "/input/baseVersion",
          message: `/input/baseVersion ${baseVersion} is stale; current version is ${currentVersion}`,
          code: "version_conflict",
          currentVersion,
        },
      ],
    },
  );
}

export function tooLarge(): GantryError {
  return new GantryError("payload_too_large", `The doc would exceed ${MAX_DOC_CHARS} characters.`, {
    details: [
      { path: "/input", message: `the resulting doc would exceed ${MAX_DOC_CHARS} characters`, code: "doc_too_large" },
    ],
  });
}
