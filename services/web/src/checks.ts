/**
 * @module web/checks
 * The checks of qa.browser_check, run against a page already loaded in Chromium: status, visible
 * text, selector, console errors, accessibility (axe-core injected into the page; violations at or
 * above `minImpact` fail, "needs review" results are kept and never fail) and broken links (each link
 * requested through the SSRF guard — HEAD, then GET when HEAD is refused — four at a time).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { GantryError, SsrfBlockedError, SsrfFetchError, type SsrfGuard } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import type { Page } from "playwright-core";

export type CheckInput =
  | { type: "status"; expect: number }
  | { type: "text"; text: string; present?: boolean }
  | { type: "selector"; selector: string; present?: boolean }
  | { type: "no_console_errors" }
  | { type: "accessibility"; minImpact?: Impact }
  | { type: "broken_links"; maxLinks?: number };

export type Impact = "minor" | "moderate" | "serious" | "critical";

/** The outcome of one check, as qa.browser_check's result schema states it. */
export type CheckResult = OutputOf<"qa.browser_check">["checks"][number];
const IMPACTS: Impact[] = ["minor", "moderate", "serious", "critical"];

export interface ConsoleError {
  kind: "console" | "exception";
  message: string;
  source: string | null;
  line: number | null;
}

export interface PageFacts {
  status: number;
  errors: ConsoleError[];
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;
function axe(): { source: string; version: string } {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  return { source: axeSource, version: (require("axe-core/package.json") as { version: string }).version };
}

const normalise = (t: string) => t.replace(/\s+/g, " ").trim();

function countOccurrences(haystack: string, needle: string): number {
  if (!needle) return 0;
  let n = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++;
  return n;
}

interface AxeNode {
  target: unknown[];
}
interface AxeRule {
  id: string;
  impact?: string | null;
  help: string;
  helpUrl: string;
  tags: string[];
  nodes: AxeNode[];
}

function rule(r: AxeRule) {
  return {
    id: r.id,
    impact: IMPACTS.includes(r.impact as Impact) ? (r.impact as Impact) : null,
    help: r.help,
    helpUrl: r.helpUrl,
    tags: r.tags,
    nodes: r.nodes.length,
    targets: r.nodes.slice(0, 5).map((n) => n.target.map(String).join(" ")),
  };
}

const severity = (i: Impact | null) => (i ? IMPACTS.indexOf(i) : -1);

export async function runCheck(
  check: CheckInput,
  index: number,
  page: Page,
  facts: PageFacts,
  guard: SsrfGuard,
  userAgent: string,
  deadline: number,
): Promise<CheckResult> {
  switch (check.type) {
    case "status":
      return {
        index,
        type: "status",
        passed: facts.status === check.expect,
        expected: check.expect,
        actual: facts.status,
      };
    case "text": {
      const present = check.present ?? true;
      // innerText on purpose: it is the rendered text, so hidden elements do not count as visible.
      // biome-ignore lint/performance/useDomNodeTextContent: visibility is the point of this check
      const visible = normalise(await page.evaluate(() => document.body?.innerText ?? ""));
      const found = countOccurrences(visible, normalise(check.text));
      return { index, type: "text", passed: present ? found > 0 : found === 0, text: check.text, present, found };
    }
    case "selector": {
      const present = check.present ?? true;
      let counts: { matched: number; visible: number };
      try {
        counts = await page.evaluate((selector) => {
          const els = Array.from(document.querySelectorAll(selector));
          const shown = els.filter((el) => {
            const r = el.getBoundingClientRect();
            const style = getComputedStyle(el);
            return r.width > 0 && r.height > 0 && style.visibility !== "hidden" && style.display !== "none";
          });
          return { matched: els.length, visible: shown.length };
        }, check.selector);
      } catch (err) {
        if (/is not a valid selector|SyntaxError/.test(String(err)))
          throw new GantryError("validation_failed", `checks[${index}].selector: not a valid CSS selector`, {
            details: [
              {
                path: `/input/checks/${index}/selector`,
                message: "not a valid CSS selector",
                code: "invalid_selector",
              },
            ],
          });
        throw err;
      }
      return {
        index,
        type: "selector",
        passed: present ? counts.visible > 0 : counts.matched === 0,
        selector: check.selector,
        present,
        ...counts,
      };
    }
    case "no_console_errors":
      return { index, type: "no_console_errors", passed: facts.errors.length === 0, errors: facts.errors };
    case "accessibility": {
      const minImpact = check.minImpact ?? "serious";
      const { source, version } = axe();
      // evaluate (not a script tag): a page's Content-Security-Policy cannot keep the checker out.
      await page.evaluate(source);
      const results = (await page.evaluate(() =>
        // biome-ignore lint/suspicious/noExplicitAny: axe is the global the injected source defines
        (globalThis as any).axe.run(document, {
          resultTypes: ["violations", "incomplete"],
          runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
        }),
      )) as { violations: AxeRule[]; incomplete: AxeRule[] };
      const violations = results.violations.map(rule).sort((a, b) => severity(b.impact) - severity(a.impact));
      const failing = violations.filter((v) => severity(v.impact) >= IMPACTS.indexOf(minImpact));
      return {
        index,
        type: "accessibility",
        passed: failing.length === 0,
        minImpact,
        violations,
        needsReview: results.incomplete.map(rule),
        engine: version,
      };
    }
    case "broken_links": {
      const max = check.maxLinks ?? 50;
      const links = await page.evaluate(() =>
        Array.from(document.querySelectorAll("a[href]"))
          .map((a) => (a as HTMLAnchorElement).href)
          .filter((h) => /^https?:/i.test(h))
          .map((h) => h.split("#")[0]),
      );
      const distinct = [...new Set(links)];
      const todo = distinct.slice(0, max);
      const results = await linkStatuses(todo, guard, userAgent, deadline);
      const broken = results.filter((r) => r.error !== null || (r.status ?? 0) >= 400);
      return {
        index,
        type: "broken_links",
        passed: broken.length === 0,
        checked: todo.length,
        found: distinct.length,
        broken,
      };
    }
  }
}

async function linkStatuses(
  urls: string[],
  guard: SsrfGuard,
  userAgent: string,
  deadline: number,
): Promise<{ url: string; status: number | null; error: string | null }[]> {
  const out: { url: string; status: number | null; error: string | null }[] = new Array(urls.length);
  let next = 0;
  const one = async (url: string) => {
    const timeoutMs = Math.max(500, Math.min(10_000, deadline - Date.now()));
    try {
      let res = await guard.fetch(url, { method: "HEAD", timeoutMs, headers: { "user-agent": userAgent } });
      // Some servers refuse HEAD; ask again with GET (the body is capped and discarded).
      if (res.status === 405 || res.status === 501)
        res = await guard.fetch(url, { timeoutMs, maxBytes: 1024, headers: { "user-agent": userAgent } });
      return { url, status: res.status, error: null };
    } catch (err) {
      if (err instanceof SsrfBlockedError || err instanceof SsrfFetchError)
        return { url, status: null, error: err.message };
      throw err;
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(4, urls.length) }, async () => {
      while (next < urls.length) {
        const i = next++;
        out[i] = await one(urls[i]);
      }
    }),
  );
  return out;
}
