/**
 * `batchedWrites` (kit/data/batched): a lone write is its own statement at the end of its turn;
 * writes that arrive while a group's statements run go together as the next one, never more than
 * `inFlight` at once; a refused batch is written again item by item, so each caller gets its own
 * answer or error; groups never mix tenant scopes, and a statement runs in its group's scope; an
 * item's own statement is cancelled with its caller, one of several is not, and an item whose
 * caller gave up before its statement is not written. The statements are functions here: what reaches
 * Postgres is payments' (services/payments/src/test/writes.test.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type pg from "pg";
import { callSignal, withCallSignal } from "../call-signal.ts";
import { currentScope, withTenant } from "../tenancy.ts";
import { batchedWrites } from "./batched.ts";

const pool = {} as pg.Pool;

/** A writer whose statements are recorded and end when `release()` is called. */
function recorder(inFlight: number, refuse?: (items: number[]) => boolean) {
  const statements: Array<{ kind: "one" | "many"; items: number[]; scope: string | undefined; signal: boolean }> = [];
  let running = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  const statement = async (kind: "one" | "many", items: number[]) => {
    const scope = currentScope();
    statements.push({
      kind,
      items,
      scope: scope?.kind === "tenant" ? scope.tenant : scope?.kind,
      signal: callSignal() !== undefined,
    });
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
  };
  const write = batchedWrites<number, string>({
    inFlight,
    one: async (_pool, item) => {
      await statement("one", [item]);
      if (item < 0) throw new Error(`refused ${item}`);
      return `one:${item}`;
    },
    many: async (_pool, items) => {
      await statement("many", items);
      if (refuse?.(items)) throw new Error("batch refused");
      return items.map((i) => `many:${i}`);
    },
  });
  /** Lets every statement started so far end, until none runs. */
  const drain = async () => {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (gates.length === 0 && running === 0) return;
      for (const gate of gates.splice(0)) gate();
    }
  };
  return { write, statements, drain, most: () => most };
}

test("a lone write is its own statement; what arrives while statements run goes together, at most inFlight at once", async () => {
  const r = recorder(2);
  const first = withTenant("acme", () => r.write(pool, 1));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    r.statements.map((s) => [s.kind, s.items]),
    [["one", [1]]],
  );
  const rest = [2, 3, 4, 5, 6, 7].map((i) => withTenant("acme", () => r.write(pool, i)));
  await r.drain();
  assert.deepEqual(await Promise.all([first, ...rest]), [
    "one:1",
    "many:2",
    "many:3",
    "many:4",
    "many:5",
    "many:6",
    "many:7",
  ]);
  assert.deepEqual(
    r.statements.map((s) => [s.kind, s.items]),
    [
      ["one", [1]],
      ["many", [2, 3, 4, 5, 6, 7]],
    ],
  );
  assert.ok(r.most() <= 2);
});

test("a refused batch is written item by item: each caller gets its own answer or its own error", async () => {
  const r = recorder(1, (items) => items.some((i) => i < 0));
  const first = withTenant("acme", () => r.write(pool, 1));
  await new Promise((resolve) => setImmediate(resolve));
  const rest = [2, -3, 4].map((i) => withTenant("acme", () => r.write(pool, i)));
  const all = Promise.allSettled([first, ...rest]);
  await r.drain();
  const settled = await all;
  assert.deepEqual(
    settled.map((s) => (s.status === "fulfilled" ? s.value : (s.reason as Error).message)),
    ["one:1", "one:2", "refused -3", "one:4"],
  );
  assert.deepEqual(
    r.statements.map((s) => [s.kind, s.items]),
    [
      ["one", [1]],
      ["many", [2, -3, 4]],
      ["one", [2]],
      ["one", [-3]],
      ["one", [4]],
    ],
  );
});

test("tenants are never written together; each statement runs in its group's scope", async () => {
  const r = recorder(1);
  const writes = [withTenant("acme", () => r.write(pool, 1)), withTenant("beta", () => r.write(pool, 2))];
  await new Promise((resolve) => setImmediate(resolve));
  writes.push(
    withTenant("acme", () => r.write(pool, 3)),
    withTenant("beta", () => r.write(pool, 4)),
    withTenant("acme", () => r.write(pool, 5)),
  );
  await r.drain();
  assert.deepEqual(await Promise.all(writes), ["one:1", "one:2", "many:3", "one:4", "many:5"]);
  assert.deepEqual(
    r.statements.map((s) => [s.scope, s.kind, s.items]),
    [
      ["acme", "one", [1]],
      ["beta", "one", [2]],
      ["acme", "many", [3, 5]],
      ["beta", "one", [4]],
    ],
  );
});

test("an item's own statement is its caller's work; one of several is no one caller's; a caller gone before its statement has nothing written", async () => {
  const r = recorder(1);
  const [a, b, c] = [new AbortController(), new AbortController(), new AbortController()];
  const inCall = (signal: AbortSignal, item: number) =>
    withCallSignal(signal, () => withTenant("acme", () => r.write(pool, item)));
  const first = inCall(a.signal, 1);
  await new Promise((resolve) => setImmediate(resolve));
  const rest = [inCall(b.signal, 2), inCall(c.signal, 3), withTenant("acme", () => r.write(pool, 4))];
  const settled = Promise.allSettled([first, ...rest]);
  b.abort(new Error("caller 2 gave up"));
  await r.drain();
  assert.deepEqual(
    (await settled).map((s) => (s.status === "fulfilled" ? s.value : (s.reason as Error).message)),
    ["one:1", "caller 2 gave up", "many:3", "many:4"],
  );
  assert.deepEqual(
    r.statements.map((s) => [s.kind, s.items, s.signal]),
    [
      ["one", [1], true],
      ["many", [3, 4], false],
    ],
  );
});
