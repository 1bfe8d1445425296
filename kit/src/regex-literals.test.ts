/**
 * Regular-expression denial of service beyond the catalogue (issue 27, item 1, "look for the same
 * class elsewhere"): every regular-expression literal in the source of the gateway, the kit, the
 * services and the runner is checked by recheck. A pattern recheck finds an attack string for is
 * either rewritten so no two parts can match the same text, or listed below with why the text it
 * runs on is ours or bounded. A new vulnerable literal fails this test until one or the other.
 *
 * The catalogue's schema patterns are proto/catalogue/redos.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { check } from "recheck";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `file /source/`: why a polynomial pattern there cannot be fed a long hostile text. */
const REVIEWED: Record<string, string> = {
  "kit/src/schema-check.ts /^model\\s+(\\w+)\\s*\\{([\\s\\S]*?)^\\}/":
    "reads the service's own schema.prisma, in tests",
  "kit/src/schema-check.ts /^\\s*(\\w+)\\s+(\\w+)(\\[\\])?(\\?)?(.*)$/":
    "reads the service's own schema.prisma, in tests",
  "gateway/src/pipeline/unknown-ability.ts /;?\\s*see docs\\/[\\w./-]+\\.md\\.?/": "runs on a service's own 501 reason",
  "services/web/src/page.ts /Target .*closed|has been closed/":
    "runs on the first 1000 characters of a browser error's first line",
  "services/web/src/abilities/qa.browser_check.ts /\\((https?:[^)\\s]+):(\\d+):\\d+\\)|at (https?:\\S+):(\\d+):\\d+/":
    "runs on the first 2000 characters of a page's stack",
  "services/memory/src/store/weaviate.ts /tenant not found|tenant.*(does not exist|not exist)|has multi-tenancy enabled, but request was without tenant|no such tenant/":
    "runs on the first 1000 characters of a Weaviate error",
  "services/workspace/src/verticals/lint.ts /\\beyJ[0-9A-Za-z_-]{8,}\\.eyJ[0-9A-Za-z_-]{8,}\\./":
    "lints the vertical manifests shipped in services/workspace/verticals",
  "services/workspace/src/verticals/lint.ts /[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+)/":
    "lints the vertical manifests shipped in services/workspace/verticals",
};

/** A regular-expression literal: after an operator, a bracket, `return` or a line start. */
const LITERAL = /(?<=[=(,:!&|?;{}[]|\breturn|^)\s*\/((?:[^/\\\n[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+)\/([dgimsuyv]*)/gm;

function sourceFiles(): string[] {
  const listed = execFileSync(
    "git",
    ["ls-files", "kit/src/*.ts", "gateway/src/*.ts", "services/*/src/*.ts", "infra/runner/*.ts", "proto/*.ts"],
    { cwd: root, encoding: "utf8" },
  );
  return listed
    .split("\n")
    .filter((f) => f && !f.endsWith(".test.ts") && !f.includes("/generated/") && !f.includes("/test/"));
}

test("no regular-expression literal in the source backtracks, unless reviewed as bounded", async () => {
  const vulnerable: string[] = [];
  const seen = new Set<string>();
  let checked = 0;
  for (const file of sourceFiles()) {
    const text = readFileSync(`${root}/${file}`, "utf8");
    for (const match of text.matchAll(LITERAL)) {
      const [, source, flags] = match;
      const lineStart = text.lastIndexOf("\n", match.index) + 1;
      const line = text.slice(lineStart, match.index).trim();
      if (line.startsWith("*") || line.startsWith("//")) continue; // a comment
      try {
        new RegExp(source, flags);
      } catch {
        continue; // not a literal (a division, a path in a string)
      }
      const key = `${file} /${source}/`;
      seen.add(key);
      checked++;
      const result = await check(source, flags.replace(/[gy]/g, ""), { timeout: 20_000 });
      if (result.status === "vulnerable" && !Object.hasOwn(REVIEWED, key)) {
        vulnerable.push(`${key}${flags} (${result.complexity.summary}; attack ${result.attack.pattern.slice(0, 60)})`);
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} literals found: is the scan still reaching them?`);
  assert.deepEqual(vulnerable, [], "rewrite these (or bound their input and list them in REVIEWED with why)");
  const stale = Object.keys(REVIEWED).filter((key) => !seen.has(key));
  assert.deepEqual(stale, [], "REVIEWED names literals that are gone: remove them");
});
