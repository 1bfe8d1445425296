/**
 * @module workspace/lib/pagination
 * Keyset pagination with opaque cursors. Lists are ordered newest first by (created, id); a cursor
 * is the position of the last item of a page, base64url-encoded, so a page is stable under inserts
 * (new records never shift later pages) and costs one index range scan. Clients must treat cursors
 * as opaque; a cursor that does not decode is refused (400) rather than ignored.
 */
import { GantryError } from "@gantry/kit";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface Position {
  /** created, epoch ms */
  c: number;
  /** id */
  i: string;
}

export function encodeCursor(pos: Position | { k: string }): string {
  return Buffer.from(JSON.stringify({ v: 1, ...pos })).toString("base64url");
}

function invalid(): GantryError {
  return new GantryError("invalid_request", "cursor is not a cursor returned by this list; omit it to start from the first page.", {
    details: [{ path: "/input/cursor", message: "/input/cursor is not a valid cursor", code: "invalid_cursor" }],
  });
}

function decodeRaw(cursor: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (v && typeof v === "object" && v.v === 1) return v as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw invalid();
}

/** Decodes a (created, id) cursor. */
export function decodeCursor(cursor: string): Position {
  const v = decodeRaw(cursor);
  if (typeof v.c !== "number" || !Number.isFinite(v.c) || typeof v.i !== "string" || v.i.length > 128) throw invalid();
  return { c: v.c, i: v.i };
}

/** Decodes a cursor of a list ordered by a string key (vertical.list). */
export function decodeKeyCursor(cursor: string): string {
  const v = decodeRaw(cursor);
  if (typeof v.k !== "string" || v.k.length > 200) throw invalid();
  return v.k;
}

/** Prisma `where` fragment for "after the cursor" in (createdAt desc, id desc) order. */
export function afterCursor(cursor: string | undefined): object {
  if (!cursor) return {};
  const { c, i } = decodeCursor(cursor);
  const at = new Date(c);
  return { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: i } }] };
}

export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];

/** Turns `limit + 1` rows into a page. */
export function toPage<R extends { createdAt: Date; id: string }, T>(rows: R[], limit: number, map: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const slice = more ? rows.slice(0, limit) : rows;
  const last = slice[slice.length - 1];
  return { items: slice.map(map), nextCursor: more && last ? encodeCursor({ c: last.createdAt.getTime(), i: last.id }) : null };
}
