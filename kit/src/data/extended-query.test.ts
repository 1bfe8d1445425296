/**
 * The one-buffer messages of a prepared statement's execution are byte for byte what pg's own
 * serializer sends for the same statement and values (Parse, Bind with pg's `prepareValue`,
 * Describe, Execute, Sync), for every kind of value runPrepared may be given, and a value pg cannot
 * serialise throws as it does in pg.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { executionMessages } from "./extended-query.ts";

const fromPg = createRequire(createRequire(import.meta.url).resolve("pg"));
const { prepareValue } = fromPg("./utils.js") as { prepareValue: (value: unknown) => unknown };
const { serialize } = fromPg("pg-protocol") as {
  serialize: {
    parse(q: { name: string; text: string }): Buffer;
    bind(c: { statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): Buffer;
    describe(m: { type: string; name: string }): Buffer;
    execute(c: { portal: string }): Buffer;
    sync(): Buffer;
  };
};

function pgMessages(name: string, text: string | undefined, values: unknown[], describe: boolean): Buffer {
  const parts: Buffer[] = [];
  if (text !== undefined) parts.push(serialize.parse({ name, text }));
  parts.push(serialize.bind({ statement: name, values, valueMapper: prepareValue }));
  if (describe) parts.push(serialize.describe({ type: "P", name: "" }));
  parts.push(serialize.execute({ portal: "" }), serialize.sync());
  return Buffer.concat(parts);
}

const VALUES: unknown[] = [
  "plain",
  "",
  "é ü — 漢字 😀",
  'quote " and backslash \\',
  42,
  -0.5,
  1e21,
  true,
  false,
  null,
  undefined,
  new Date("2026-01-02T03:04:05.678Z"),
  Buffer.from([0, 1, 2, 255]),
  new Uint8Array([9, 8, 7]),
  { b: 1, a: [true, null] },
  { toPostgres: () => "(1,2)" },
  10n,
  [],
  ["x", "y z", 'q"uote', "back\\slash", "", null, "ü"],
  [1, 2.5, -3, true, null],
  [new Date("2026-06-30T23:59:59.999Z"), null],
  [
    ["a", "b"],
    ["c", null],
  ],
  [Buffer.from([1, 2])],
  [{ a: 1 }],
  ["x".repeat(5000), "ü".repeat(3000)],
];

test("each kind of value is sent as pg sends it", () => {
  for (const value of VALUES) {
    for (const [text, describe] of [
      [undefined, false],
      ["SELECT $1", true],
    ] as const) {
      assert.deepEqual(
        executionMessages("svc.one", text, [value], describe),
        pgMessages("svc.one", text, [value], describe),
        `value ${String(value)}`,
      );
    }
  }
});

test("a statement with many values, a long text and a non-ASCII name", () => {
  const text = `WITH x AS (SELECT ${VALUES.map((_, i) => `$${i + 1}`).join(", ")}) SELECT 'é' FROM x -- ${"z".repeat(9000)}`;
  for (const describe of [true, false]) {
    assert.deepEqual(
      executionMessages("svc.ünï", text, VALUES, describe),
      pgMessages("svc.ünï", text, VALUES, describe),
    );
  }
  // The scratch buffer has grown; a small message after a large one is still exact.
  assert.deepEqual(executionMessages("s", undefined, ["a"], false), pgMessages("s", undefined, ["a"], false));
  assert.deepEqual(executionMessages("s", undefined, [], false), pgMessages("s", undefined, [], false));
});

test("a value pg cannot serialise throws", () => {
  const circular: { toPostgres?: () => unknown } = {};
  circular.toPostgres = () => circular;
  assert.throws(() => pgMessages("s", undefined, [circular], false), /circular/);
  assert.throws(() => executionMessages("s", undefined, ["ok", circular], false), /circular/);
});

test("a message handed out is not overwritten by the next one", () => {
  const first = executionMessages("s", undefined, ["first value"], false);
  const copy = Buffer.from(first);
  executionMessages("s", "SELECT $1", ["something else entirely, and longer"], true);
  assert.deepEqual(first, copy);
});
