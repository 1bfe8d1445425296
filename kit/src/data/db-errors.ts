/**
 * @module kit/data/db-errors
 * The one translation of database failures into the closed error set. The kit applies it to
 * whatever a handler throws, so no service maps SQLSTATEs by hand:
 *
 * | database says | answer |
 * |---|---|
 * | unique violation (23505, Prisma P2002) | 409 `conflict` |
 * | foreign-key violation (23503, P2003) | 404 `not_found` |
 * | invalid byte sequence / untranslatable character (22021, 22P05) | 400 `validation_failed` |
 * | serialization failure, deadlock (40001, 40P01) | 409 `conflict`, retry |
 * | connection refused or reset, server shutting down, pool timeout, "can't reach database" | 503 `unavailable` with `retryAfterMs` |
 * | an interactive transaction not started or not finished within its limits (Prisma P2028) | 503 `unavailable` with `retryAfterMs` |
 *
 * Errors arrive in several wrappings (pg's DatabaseError, Prisma's known-request errors, the driver
 * adapter's errors, Node's system errors), so the translation reads every code and kind it finds
 * on the error and its causes.
 *
 * @example
 * try { … } catch (err) { throw translateDbError(err) ?? err; }
 */
import { GantryError } from "../errors.ts";

/** How long clients are asked to wait when the database is unreachable. */
export const DB_RETRY_AFTER_MS = 2_000;

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOENT:connect", // a Unix socket whose server is down: its socket file is gone
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
  "P1001", // can't reach database server
  "P1002", // database server timed out
  "P1017", // server closed the connection
  "P2024", // timed out fetching a connection from the pool
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

const UNREACHABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /can't reach database/i,
  /connection refused/i,
  /server closed the connection/i,
  /Connection terminated unexpectedly/i,
  /the database system is (starting up|shutting down)/i,
  /is not queryable/i, // pg: "Client has encountered a connection error and is not queryable"
  /terminating connection/i,
  /connection (is )?closed/i,
];

/** Every code-like string and message on an error and its causes (bounded walk). */
function facts(err: unknown): { codes: Set<string>; messages: string[] } {
  const codes = new Set<string>();
  const messages: string[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number) => {
    if (!value || typeof value !== "object" || seen.has(value) || depth > 6) return;
    seen.add(value);
    const v = value as Record<string, unknown>;
    for (const field of ["code", "originalCode", "kind", "errno"]) {
      if (typeof v[field] === "string") codes.add(v[field] as string);
    }
    // ENOENT alone is any missing file; only a failed connect to a socket path means "unreachable".
    if (v.code === "ENOENT" && v.syscall === "connect") codes.add("ENOENT:connect");
    if (typeof v.message === "string") messages.push(v.message);
    for (const next of ["cause", "meta", "driverAdapterError", "originalError", "error"]) walk(v[next], depth + 1);
    if (Array.isArray(v.errors)) for (const e of v.errors) walk(e, depth + 1);
  };
  walk(err, 0);
  return { codes, messages };
}

const has = (codes: Set<string>, ...wanted: string[]) => wanted.some((c) => codes.has(c));

/** True for a unique-constraint violation, however wrapped. */
export function isUniqueViolation(err: unknown): boolean {
  const { codes, messages } = facts(err);
  return (
    has(codes, "23505", "P2002", "UniqueConstraintViolation") || messages.some((m) => /unique constraint/i.test(m))
  );
}

/** True when the database could not be reached or dropped the connection. */
export function isUnreachable(err: unknown): boolean {
  const { codes, messages } = facts(err);
  if ([...codes].some((c) => UNREACHABLE_CODES.has(c) || c.startsWith("08"))) return true;
  return messages.some((m) => UNREACHABLE_MESSAGES.some((re) => re.test(m)));
}

/** The domain error for a database failure, or undefined when `err` is not one the table names. */
export function translateDbError(err: unknown): GantryError | undefined {
  if (err instanceof GantryError) return err;
  const { codes } = facts(err);
  if (isUnreachable(err)) {
    return new GantryError("unavailable", "The service's database is unavailable. Retry shortly.", {
      retryAfterMs: DB_RETRY_AFTER_MS,
      cause: err,
    });
  }
  // Prisma rolled the transaction back, so nothing was written and the same call may be sent again.
  if (has(codes, "P2028")) {
    return new GantryError("unavailable", "The database was too slow to complete this call's transaction.", {
      reason: "Nothing was written; retry the call shortly.",
      retryAfterMs: DB_RETRY_AFTER_MS,
      cause: err,
    });
  }
  if (isUniqueViolation(err)) {
    return new GantryError("conflict", "A record with the same identity already exists.", { cause: err });
  }
  if (has(codes, "23503", "P2003", "ForeignKeyConstraintViolation")) {
    return new GantryError("not_found", "A record this one refers to does not exist in this tenant.", { cause: err });
  }
  if (has(codes, "22021", "22P05")) {
    return new GantryError(
      "validation_failed",
      "Input contains characters that cannot be stored (e.g. NUL); remove them.",
      {
        details: [
          { path: "/input", message: "/input contains characters that cannot be stored", code: "invalid_character" },
        ],
        cause: err,
      },
    );
  }
  if (has(codes, "40001", "40P01", "P2034", "TransactionWriteConflict")) {
    return new GantryError("conflict", "A concurrent change collided with this one; retry the call.", {
      reason: "Retrying the same request is safe.",
      cause: err,
    });
  }
  return undefined;
}
