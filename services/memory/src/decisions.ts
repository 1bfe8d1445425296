/**
 * @module memory/decisions
 * The decision log's shared pieces: D-NNN ids, the public shape of a decision, and cursors.
 */
import { createHash } from "node:crypto";
import { GantryError } from "@gantry/kit";

export function decisionId(n: number): string {
  return `D-${String(n).padStart(3, "0")}`;
}

/** `D-004` → 4 (the catalogue already checked the pattern `^D-[0-9]{3,}$`). */
export function decisionNumber(id: string): number {
  const n = Number(id.slice(2));
  if (!Number.isSafeInteger(n) || n < 1) throw new GantryError("not_found", `${id} is not a decision of this tenant.`);
  return n;
}

export interface DecisionRow {
  number: number;
  title: string;
  why: string;
  supersedes: number | null;
  supersededBy: number | null;
  supersededAt: Date | null;
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
    created: d.createdAt.toISOString(),
    ...(d.supersededAt ? { superseded: d.supersededAt.toISOString() } : {}),
  };
}

/** The text a decision is embedded from. */
export function decisionText(title: string, why: string): string {
  return `${title}\n${why}`;
}

/** Opaque cursors: `n:<number>` (newest-first listing) or `o:<offset>:<query hash>` (search pages). */
export function encodeCursor(c: { before: number } | { offset: number; query: string }): string {
  const raw = "before" in c ? `n:${c.before}` : `o:${c.offset}:${queryHash(c.query)}`;
  return Buffer.from(raw).toString("base64url");
}

function queryHash(q: string): string {
  return createHash("sha256").update(q).digest("hex").slice(0, 12);
}

function badCursor(): GantryError {
  return new GantryError("validation_failed", "cursor is not a cursor of this listing; pass the nextCursor of the previous page with the same query.", {
    details: [{ path: "/input/cursor", message: "/input/cursor is not a cursor of this listing", code: "cursor" }],
  });
}

export function decodeListCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const m = /^n:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!m) throw badCursor();
  return Number(m[1]);
}

export function decodeSearchCursor(cursor: string | undefined, query: string): number {
  if (cursor === undefined) return 0;
  const m = /^o:(\d+):([0-9a-f]{12})$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!m || m[2] !== queryHash(query)) throw badCursor();
  return Number(m[1]);
}
