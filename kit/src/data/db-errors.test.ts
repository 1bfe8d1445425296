/**
 * The one database-error translation, table-driven over the wrappings errors arrive in: pg's
 * DatabaseError (SQLSTATE in `code`), Node system errors, Prisma known-request errors and the
 * driver adapter's nested causes. Anything else is left alone (the kit answers it as 500).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { GantryError } from "../errors.ts";
import { isUniqueViolation, translateDbError } from "./db-errors.ts";

const pgError = (code: string, message = "db error") => Object.assign(new Error(message), { code });

const cases: Array<[string, unknown, string | undefined]> = [
  ["pg unique violation", pgError("23505", 'duplicate key value violates unique constraint "x_pkey"'), "conflict"],
  ["Prisma P2002", Object.assign(new Error("Unique constraint failed"), { code: "P2002" }), "conflict"],
  ["foreign key", pgError("23503"), "not_found"],
  ["NUL in text (22021)", pgError("22021", "invalid byte sequence for encoding UTF8: 0x00"), "validation_failed"],
  ["serialization failure", pgError("40001"), "conflict"],
  [
    "connection refused",
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    "unavailable",
  ],
  [
    "Unix socket of a stopped server",
    Object.assign(new Error("connect ENOENT /var/tmp/pg/.s.PGSQL.5432"), { code: "ENOENT", syscall: "connect" }),
    "unavailable",
  ],
  [
    "a missing file is no database outage",
    Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT", syscall: "open" }),
    undefined,
  ],
  ["admin shutdown", pgError("57P01", "terminating connection due to administrator command"), "unavailable"],
  ["connection exception class 08", pgError("08006"), "unavailable"],
  ["pool timeout", new Error("timeout exceeded when trying to connect"), "unavailable"],
  ["dead pooled client", new Error("Client has encountered a connection error and is not queryable"), "unavailable"],
  [
    "adapter cause chain",
    Object.assign(new Error("Invalid `prisma.contact.findFirst()` invocation"), {
      meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } },
    }),
    "unavailable",
  ],
  ["Prisma P1001", Object.assign(new Error("Can't reach database server"), { code: "P1001" }), "unavailable"],
  [
    "expired interactive transaction (P2028)",
    Object.assign(new Error("Transaction API error: A query cannot be executed on an expired transaction."), {
      code: "P2028",
    }),
    "unavailable",
  ],
  ["an unrelated bug", new TypeError("x is not a function"), undefined],
];

for (const [name, err, expected] of cases) {
  test(`${name} → ${expected ?? "untranslated"}`, () => {
    const out = translateDbError(err);
    assert.equal(out?.code, expected);
    if (out?.code === "unavailable") assert.ok((out.retryAfterMs ?? 0) > 0, "503 carries retryAfterMs");
    if (out && out !== err) assert.equal(out.cause, err, "the original error stays the cause, for the log");
  });
}

test("a GantryError passes through unchanged; isUniqueViolation reads nested causes", () => {
  const mine = new GantryError("not_found", "no such thing");
  assert.equal(translateDbError(mine), mine);
  assert.equal(isUniqueViolation({ cause: { originalCode: "23505" } }), true);
  assert.equal(isUniqueViolation(pgError("23503")), false);
});
