/**
 * No input holds the event loop (issue 27, item 1). For every pattern and format of every
 * ability's input schema, worst-case strings (pumped runs of the characters patterns trip on, at the
 * field's limit and at 1 MiB, the body limit; the attack recheck found for the sender pattern that
 * used to backtrack) are put where that field sits (a value, or a field name) and checked as the
 * gateway checks an input (its shape, then the catalogue's schema), in a worker so that a check that
 * never returns fails the test instead of hanging it. Each
 * validation must finish within a few milliseconds; the bound below is loose for a noisy 2-core CI
 * machine, and a backtracking pattern misses it by orders of magnitude (seconds to hours).
 *
 * recheck's proof that every pattern is linear is proto/catalogue/redos.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { isMainThread, parentPort, Worker } from "node:worker_threads";

const BUDGET_MS = 20;
const SWEEP_TIMEOUT_MS = 120_000;
const MIB = 1024 * 1024;

type Carrier = { ability: string; path: string; limit: number; wrap: (value: string) => unknown };

/** Every place a string with a pattern or format sits in an input, and how to put a value there. */
async function carriers(): Promise<Carrier[]> {
  const { catalogue } = await import("@gantry/proto/catalogue");
  const out: Carrier[] = [];
  const visit = (ability: string, node: unknown, path: string, wrap: (v: unknown) => unknown): void => {
    if (!node || typeof node !== "object" || Array.isArray(node)) return;
    const s = node as Record<string, unknown>;
    if (typeof s.pattern === "string" || typeof s.format === "string") {
      out.push({ ability, path, limit: Number(s.maxLength ?? MIB), wrap: (v) => wrap(v) });
    }
    for (const [name, sub] of Object.entries((s.properties as object) ?? {})) {
      visit(ability, sub, `${path}/${name}`, (v) => wrap({ [name]: v }));
    }
    for (const sub of Object.values((s.patternProperties as object) ?? {})) {
      visit(ability, sub, `${path}/a`, (v) => wrap({ a: v }));
    }
    if (s.additionalProperties && typeof s.additionalProperties === "object") {
      visit(ability, s.additionalProperties, `${path}/a`, (v) => wrap({ a: v }));
    }
    if (s.propertyNames) visit(ability, s.propertyNames, `${path}{name}`, (v) => wrap({ [String(v)]: "x" }));
    if (s.items) visit(ability, s.items, `${path}/0`, (v) => wrap([v]));
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      for (const sub of (s[key] as unknown[]) ?? []) visit(ability, sub, path, wrap);
    }
    for (const key of ["if", "then", "else", "not"]) visit(ability, s[key], path, wrap);
  };
  for (const ability of catalogue) visit(ability.id, ability.input, "/input", (v) => v);
  return out;
}

/** Strings that make backtracking patterns and format checks do the most work, `length` long. */
function worstCases(length: number): string[] {
  const pump = (unit: string, prefix = "", suffix = "!") =>
    prefix + unit.repeat(Math.max(1, Math.floor((length - prefix.length - suffix.length) / unit.length))) + suffix;
  const units = ["a", "A", "0", " ", ".", "-", "_", "@", "+", "/", ":", "\t", "é", "😀", "a.", "a-", "a ", "0."];
  return [
    ...units.map((u) => pump(u)),
    ...units.map((u) => pump(u, "", "\n")),
    pump("..", "\t <.@\u0000", "\n"), // recheck's attack on the sender pattern before it was rewritten
    pump(".", "a <a@"),
    pump("a.", "http://"),
    pump("a", "+1"),
    pump("0", "D-"),
  ];
}

async function sweep(): Promise<{ worst: { ms: number; where: string }[]; cases: number }> {
  const { validateInput } = await import("@gantry/kit");
  const { refuseBadShape } = await import("../src/pipeline/input-shape.ts");
  const lengths = new Map<number, string[]>();
  const samples = (n: number) => {
    const list = lengths.get(n) ?? worstCases(n);
    lengths.set(n, list);
    return list;
  };
  const slow: { ms: number; where: string }[] = [];
  let cases = 0;
  for (const carrier of await carriers()) {
    for (const length of new Set([carrier.limit, MIB])) {
      for (const [i, value] of samples(length).entries()) {
        const input = carrier.wrap(value);
        // The best of three: one slow run can be the machine, three are the validator.
        let best = Infinity;
        for (let run = 0; run < 3 && best > BUDGET_MS; run++) {
          const started = performance.now();
          try {
            const copy = structuredClone(input);
            refuseBadShape(carrier.ability, copy);
            validateInput(carrier.ability, copy);
          } catch {}
          best = Math.min(best, performance.now() - started);
        }
        cases++;
        if (best > BUDGET_MS)
          slow.push({ ms: Math.round(best), where: `${carrier.ability} ${carrier.path} case ${i} (${length})` });
      }
    }
  }
  return { worst: slow, cases };
}

if (!isMainThread) {
  parentPort?.postMessage(await sweep());
} else {
  test("no worst-case string in any patterned or formatted field holds validation longer than a few ms", async () => {
    const worker = new Worker(new URL(import.meta.url));
    const result = await new Promise<{ worst: { ms: number; where: string }[]; cases: number }>((resolve, reject) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`the sweep did not finish in ${SWEEP_TIMEOUT_MS / 1000} s: some pattern backtracks`));
      }, SWEEP_TIMEOUT_MS);
      worker.once("message", (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      worker.once("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    await worker.terminate();
    assert.ok(result.cases > 1000, `only ${result.cases} cases ran`);
    assert.deepEqual(result.worst, [], `validations over ${BUDGET_MS} ms`);
  });
}
