/**
 * @module memory/decisions
 * The decision log's shared pieces: D-NNN ids, the public shape of a decision, and its cursors
 * (the kit's codec: a cursor this listing did not issue is 400 validation_failed, `invalid_cursor`).
 */
import { createHash } from "node:crypto";
import { GantryError, decodeCursor, encodeCursor, invalidCursor } from "@gantry/kit";

export function decisionId(n: number): string {
  return `D-${String(n).padStart(3, "0")}`;
}

/** Decision numbers are Postgres `integer`s: no decision has a larger one. */
const MAX_DECISION_NUMBER = 2_147_483_647;

/**
 * `D-004` → 4 (the catalogue already checked the pattern `^D-[0-9]{3,}$`). A number no decision can
 * have (0, or beyond the column's range, which Postgres would refuse with an error) is not found.
 */
export function decisionNumber(id: string): number {
  const n = Number(id.slice(2));
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_DECISION_NUMBER)
    throw new GantryError("not_found", `${id} is not a decision of this tenant.`);
  return n;
}

export interface DecisionRow {
  number: number;
  title: string;
  why: string;
  supersedes: number | null;
  supersededBy: number | null;
  supersededAt: Date | null;
  vertical: string | null;
  createdAt: Date;
}

export function decisionOut(d: DecisionRow) {
  return {
    id: decisionId(d.number),
    title: d.title,
    why: d.why,
    status: d.supersededBy === null ? ("active" as const) : ("superseded" as const),
    supersedes: d.supersedes === null ? null : decisionId(d.supersedes),
    supersededBy: d.supersededBy === null ? null : decisionId(d.supersededBy),
    vertical: d.vertical,
    created: d.createdAt.toISOString(),
    ...(d.supersededAt ? { superseded: d.supersededAt.toISOString() } : {}),
  };
}

/** The text a decision is embedded from. */
export function decisionText(title: string, why: string): string {
  return `${title}\n${why}`;
}

/** Cursor of the newest-first listing: the number of the page's last decision. */
export function listCursor(before: number): string {
  return encodeCursor({ before });
}

/** Cursor of a search page: the offset of the next page, bound to the query by its hash. */
export function searchCursor(offset: number, query: string): string {
  return encodeCursor({ offset, q: queryHash(query) });
}

function queryHash(q: string): string {
  return createHash("sha256").update(q).digest("hex").slice(0, 12);
}

/** The number below which the next page starts; a cursor this listing did not issue is `invalid_cursor`. */
export function decodeListCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const { before } = decodeCursor(cursor, { before: "number" });
  if (!Number.isSafeInteger(before) || before < 1) throw invalidCursor();
  return before;
}

/** The offset of the next search page; a cursor of another query (or of the plain listing) is `invalid_cursor`. */
export function decodeSearchCursor(cursor: string | undefined, query: string): number {
  if (cursor === undefined) return 0;
  const hint = "pass the nextCursor of the previous page with the same query, or omit it for the first page";
  let position: { offset: number; q: string };
  try {
    position = decodeCursor(cursor, { offset: "number", q: "string" });
  } catch {
    throw invalidCursor(hint);
  }
  if (!Number.isSafeInteger(position.offset) || position.offset < 0 || position.q !== queryHash(query))
    throw invalidCursor(hint);
  return position.offset;
}
