/** How `npm start` prints process output: raw without a terminal, `time level msg k=v` on one. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createFormatter, prettyJson } from "./format.ts";

const line = JSON.stringify({
  level: "warn",
  time: "2026-01-02T03:04:05.678Z",
  service: "keys",
  msg: "slow query",
  ms: 812,
  table: "api_keys",
});

test("raw mode keeps the line as it is, behind the padded process name", () => {
  const fmt = createFormatter({ pretty: false, color: false, width: 8 });
  assert.equal(fmt("keys", line), `keys     | ${line}`);
});

test("pretty mode turns a pino line into time, level, message and the other fields", () => {
  const out = prettyJson(line, false)!;
  assert.match(out, /^\d\d:\d\d:\d\d\.678 WARN {2}slow query ms=812 table=api_keys$/);
  assert.doesNotMatch(out, /service=/);
});

test("numeric pino levels are named; strings with spaces are quoted", () => {
  const out = prettyJson(JSON.stringify({ level: 50, time: 0, msg: "boom", reason: "no route" }), false)!;
  assert.match(out, /ERROR boom reason="no route"$/);
});

test("lines that are not JSON objects are left alone", () => {
  assert.equal(prettyJson("[INF] Server is ready", false), undefined);
  assert.equal(prettyJson("{not json", false), undefined);
  const fmt = createFormatter({ pretty: true, color: false, width: 4 });
  assert.equal(fmt("nats", "[INF] Server is ready"), "nats | [INF] Server is ready");
});

test("colour mode wraps the name and level in ANSI codes", () => {
  const fmt = createFormatter({ pretty: true, color: true, width: 4 });
  const out = fmt("keys", line);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting on ANSI escape sequences, which start with ESC
  assert.match(out, /\u001b\[\d+mkeys\u001b\[0m/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting on ANSI escape sequences, which start with ESC
  assert.match(out, /\u001b\[33mWARN /);
});
