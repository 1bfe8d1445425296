/**
 * @module kit/data/pagination
 * The one cursor codec and keyset-pagination helper. A cursor is the position of the last item of a
 * page (versioned JSON, base64url): pages are stable under inserts and cost one index range scan.
 * Clients treat cursors as opaque; one that does not decode, or belongs to another listing, is
 * refused with the same 400 everywhere: `validation_failed`, detail code `invalid_cursor`.
 *
 * @example
 * const rows = await db.contact.findMany({ where: { AND: [afterCursor(input.cursor)] }, orderBy: NEWEST_FIRST, take: input.limit + 1 });
 * return toPage(rows, input.limit, contactOut);
 */
import { GantryError } from "../errors.ts";

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

type Scalar = string | number | boolean;
export type CursorPosition = Record<string, Scalar>;

/** The refusal for a cursor this listing did not issue. */
export function invalidCursor(
  hint = "pass the nextCursor of the previous page unchanged, or omit it for the first page",
): GantryError {
  return new GantryError("validation_failed", `cursor is not a cursor returned by this list; ${hint}.`, {
    details: [
      { path: "/input/cursor", message: "/input/cursor is not a valid cursor of this list", code: "invalid_cursor" },
    ],
  });
}

/** Encodes a position (field → string, number or boolean). */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ v: 1, ...position })).toString("base64url");
}

type Shape = Record<string, "string" | "number" | "boolean">;
type Decoded<S extends Shape> = {
  [K in keyof S]: S[K] extends "string" ? string : S[K] extends "number" ? number : boolean;
};

/**
 * Decodes a cursor and checks it has exactly the fields of `shape` with their types (strings at most
 * 512 characters, numbers finite); anything else is `invalidCursor()`.
 */
export function decodeCursor<const S extends Shape>(cursor: string, shape: S): Decoded<S> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!value || typeof value !== "object" || (value as { v?: unknown }).v !== 1) throw invalidCursor();
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [field, type] of Object.entries(shape)) {
    const x = v[field];
    if (typeof x !== type) throw invalidCursor();
    if (type === "number" && !Number.isFinite(x)) throw invalidCursor();
    if (type === "string" && (x as string).length > 512) throw invalidCursor();
    out[field] = x;
  }
  if (Object.keys(v).length !== Object.keys(shape).length + 1) throw invalidCursor();
  return out as Decoded<S>;
}

/** Order of newest-first lists: (createdAt desc, id desc). */
export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];

/**
 * Prisma `where` fragment for "after the cursor" in NEWEST_FIRST order. The `createdAt ≤` bound is
 * what a `(tenant, created_at, id)` index seeks to; under the OR alone Postgres scans backwards from
 * the newest row and filters, so a page n rows down the list read n rows (issue 30).
 */
export function afterCursor(cursor: string | undefined): object {
  if (!cursor) return {};
  const { c, i } = decodeCursor(cursor, { c: "number", i: "string" });
  const at = new Date(c);
  return { createdAt: { lte: at }, OR: [{ createdAt: { lt: at } }, { id: { lt: i } }] };
}

/** Turns `limit + 1` rows in NEWEST_FIRST order into a page. */
export function toPage<R extends { createdAt: Date; id: string }, T>(
  rows: R[],
  limit: number,
  map: (row: R) => T,
): Page<T> {
  const more = rows.length > limit;
  const slice = more ? rows.slice(0, limit) : rows;
  const last = slice[slice.length - 1];
  return {
    items: slice.map(map),
    nextCursor: more && last ? encodeCursor({ c: last.createdAt.getTime(), i: last.id }) : null,
  };
}
