/**
 * Guide Center Markdown fixtures: for each construct of the grammar (docs/guide-markdown.md) the
 * Markdown a writer gives and the exact HTML the help-centre page carries; every broken construct
 * with the line and the fix guide.publish answers; nothing a writer types becomes live markup.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { renderGuideMarkdown } from "./guide-markdown.ts";

function html(markdown: string): string {
  const r = renderGuideMarkdown(markdown);
  assert.deepEqual(r.problems, [], JSON.stringify(r.problems));
  return r.html;
}

test("steps: numbered for the writer, body until the next step or a heading, numbering kept across headings", () => {
  assert.equal(
    html("Before you start.\n\nStep: Open [[Settings]]\nChoose **Payments**.\n\nStep: Connect\n\n## Then\nStep: Check"),
    [
      "<p>Before you start.</p>\n",
      '<ol class="gc-steps">\n',
      '<li class="gc-step" id="step-1">\n<p class="gc-step-title">Open <span class="gc-label">Settings</span></p>\n',
      "<p>Choose <strong>Payments</strong>.</p>\n",
      "</li>\n",
      '<li class="gc-step" id="step-2">\n<p class="gc-step-title">Connect</p>\n',
      "</li>\n</ol>\n",
      "<h2>Then</h2>\n",
      '<ol class="gc-steps" start="3">\n<li class="gc-step" id="step-3">\n<p class="gc-step-title">Check</p>\n</li>\n</ol>\n',
    ].join(""),
  );
});

test("inline labels: [[text]] anywhere inline, literal in code", () => {
  assert.equal(
    html("Click [[Save & close]], then [[ Done ]]. In code: `[[x]]`."),
    '<p>Click <span class="gc-label">Save &amp; close</span>, then <span class="gc-label">Done</span>. In code: <code>[[x]]</code>.</p>\n',
  );
});

test("callout lines: each of the five kinds, inline Markdown inside", () => {
  assert.equal(
    html("!tip Use a **business** account.\n!NOTE Fees apply.\n!important a\n!warning b\n!caution c"),
    [
      '<p class="gc-callout gc-callout-tip" role="note"><strong class="gc-callout-kind">Tip:</strong> Use a <strong>business</strong> account.</p>\n',
      '<p class="gc-callout gc-callout-note" role="note"><strong class="gc-callout-kind">Note:</strong> Fees apply.</p>\n',
      '<p class="gc-callout gc-callout-important" role="note"><strong class="gc-callout-kind">Important:</strong> a</p>\n',
      '<p class="gc-callout gc-callout-warning" role="note"><strong class="gc-callout-kind">Warning:</strong> b</p>\n',
      '<p class="gc-callout gc-callout-caution" role="note"><strong class="gc-callout-kind">Caution:</strong> c</p>\n',
    ].join(""),
  );
  assert.equal(
    html("\\!tip is text\n\n![logo](https://x.example/l.png)"),
    '<p>!tip is text</p>\n<p><img src="https://x.example/l.png" alt="logo"></p>\n',
  );
});

test("slip blocks: a titled or untitled box of Markdown, inside a step too", () => {
  assert.equal(
    html("::: slip What you need\n- A bank account\n- [[Admin]] rights\n:::"),
    '<aside class="gc-slip">\n<p class="gc-slip-title">What you need</p>\n<ul>\n<li>A bank account</li>\n<li><span class="gc-label">Admin</span> rights</li>\n</ul>\n</aside>\n',
  );
  assert.equal(
    html("Step: Copy the code\n:::slip\n!tip Keep it secret.\n:::"),
    '<ol class="gc-steps">\n<li class="gc-step" id="step-1">\n<p class="gc-step-title">Copy the code</p>\n<aside class="gc-slip">\n<p class="gc-callout gc-callout-tip" role="note"><strong class="gc-callout-kind">Tip:</strong> Keep it secret.</p>\n</aside>\n</li>\n</ol>\n',
  );
});

test("constructs inside fenced code are text; reference links resolve across constructs", () => {
  assert.equal(
    html("```\nStep: no\n!tip no\n:::\n```\nStep: [Docs][d]\n\n[d]: https://docs.example/"),
    '<pre><code>Step: no\n!tip no\n:::\n</code></pre>\n<ol class="gc-steps">\n<li class="gc-step" id="step-1">\n<p class="gc-step-title"><a href="https://docs.example/">Docs</a></p>\n</li>\n</ol>\n',
  );
});

test("each broken construct names its line and the fix", () => {
  const { problems } = renderGuideMarkdown(
    "Intro\n!danger Hot\nStep 2: Numbered\nStep:\nClick [[Save\n::: note\n:::\n!tip\n::: slip A\nStep: Inside\n::: slip B\n",
  );
  assert.deepEqual(
    problems.map((p) => [p.line, p.problem]),
    [
      [2, 'unknown callout kind "danger"'],
      [3, "a step is written with a number"],
      [4, "a step has no title"],
      [5, "inline label at column 7 is not closed on its line"],
      [6, 'unknown block "::: note"'],
      [7, '":::" closes nothing: no slip block is open'],
      [8, 'callout "!tip" has no text'],
      [9, "the slip block opened on this line is never closed"],
      [10, "a step starts inside the slip block opened on line 9"],
      [11, "a slip block opens inside the slip block opened on line 9"],
    ],
  );
  assert.deepEqual(
    renderGuideMarkdown("[[ ]] then [[a [b] c]]\n\n`[[` in code").problems.map((p) => [p.line, p.problem]),
    [
      [1, "inline label at column 1 is empty"],
      [1, "inline label at column 12 holds brackets or spans lines"],
    ],
  );
  assert.deepEqual(renderGuideMarkdown("::: slip Code\n````\nkey\n:::\n").problems, [
    {
      line: 1,
      problem: "the slip block opened on this line is never closed",
      fix: 'Close the code fence opened on line 2 with a line "````"; it holds the rest of the guide, the slip\'s ":::" included.',
    },
  ]);
  assert.match(problems[0].fix, /!note, !tip, !important, !warning, !caution/);
  assert.match(problems[1].fix, /write "Step: Title"/);
  assert.match(problems[3].fix, /\[\[Label text\]\]/);
  assert.match(problems[6].fix, /"!tip Text"/);
  assert.match(problems[7].fix, /Add a line ":::"/);
});

test("no markup gets through a label, a callout, a slip title or a step title", () => {
  const out = html(
    'Step: <img src=x onerror=alert(1)>\n!warning <script>alert(1)</script> [x](javascript:alert(1))\n::: slip <b onclick="x()">T</b>\n[[<svg onload=alert(1)>]]\n:::',
  );
  assert.ok(!/<(img|script|svg|b)[\s>]/i.test(out), out);
  assert.ok(!/javascript:/i.test(out), out);
  assert.match(out, /<span class="gc-label">&lt;svg onload=alert\(1\)&gt;<\/span>/);
  assert.match(out, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});
