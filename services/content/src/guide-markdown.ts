/**
 * @module content/guide-markdown
 * Guide Center Markdown: GitHub-flavoured Markdown (markdown.ts, with its sanitisation) plus the four
 * constructs the spec names for a guide body: steps, inline labels, callout lines and slip blocks.
 * The grammar is documented in services/content/docs/guide-markdown.md; this module is its only
 * implementation, and `guide-markdown.test.ts` holds a fixture of each construct.
 *
 * Block constructs are recognised per line, at the start of the line, outside fenced code. A line
 * that looks like a construct but breaks its rule is a problem with a line number and a fix:
 * guide.publish refuses the guide (400) rather than publishing a page that silently shows the
 * mistake as text. When a stored guide is rebuilt, the same lines render as plain Markdown instead.
 */
import type { Tokens, TokenizerAndRendererExtension } from "marked";
import { sanitizingMarked } from "./markdown.ts";
import { escapeHtml } from "./theme.ts";

/** The callout kinds, with the word shown before the text (GitHub's alert kinds, so writers know them). */
export const CALLOUT_KINDS = {
  note: "Note",
  tip: "Tip",
  important: "Important",
  warning: "Warning",
  caution: "Caution",
} as const;

export interface GuideProblem {
  /** 1-based line of the Markdown the problem is on. */
  line: number;
  /** What is wrong, e.g. `unknown callout kind "danger"`. */
  problem: string;
  /** How to write it instead. */
  fix: string;
}

// One character class between the brackets, so matching is linear on a 200,000-character line.
const LABEL = /^\[\[([^[\]\n]+)\]\]/;
const labelAt = (src: string) => {
  const m = LABEL.exec(src);
  return m && m[1].trim() !== "" ? m : null;
};

const label: TokenizerAndRendererExtension = {
  name: "guideLabel",
  level: "inline",
  start(src: string) {
    const i = src.indexOf("[[");
    return i < 0 ? undefined : i;
  },
  tokenizer(src: string) {
    const m = labelAt(src);
    return m ? { type: "guideLabel", raw: m[0], text: m[1].trim() } : undefined;
  },
  renderer(token: Tokens.Generic) {
    return `<span class="gc-label">${escapeHtml(String(token.text))}</span>`;
  },
};

const marked = sanitizingMarked({ extensions: [label] });

const block = (md: string) => marked.parse(md, { async: false }) as string;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const REF_DEFINITION = /^ {0,3}\[[^\]\n]+\]:\s*\S/;
const STEP = /^step\s*:(.*)$/i;
const NUMBERED_STEP = /^step\s+\d+\s*[:.)]/i;
// The kind and the opening are matched alone and the rest of the line sliced off after them: one
// pattern over both would backtrack quadratically on a long line (kit/src/regex-literals.test.ts).
const CALLOUT_KIND = /^!([a-z][a-z-]*)/i;
const SLIP_WORD = /^:::\s*slip/i;

/** `!kind rest`: [line, kind, rest of the line as written], or null. */
function calloutOf(text: string): [string, string, string] | null {
  const m = CALLOUT_KIND.exec(text);
  return m ? [text, m[1], text.slice(m[0].length)] : null;
}

/** `::: slip [title]`: [line, title] (title undefined when none), or null (`::: slipper` is not one). */
function slipOpenOf(text: string): [string, string | undefined] | null {
  const m = SLIP_WORD.exec(text);
  if (!m) return null;
  const rest = text.slice(m[0].length);
  if (rest === "") return [text, undefined];
  return /^\s/.test(rest) ? [text, rest.trimStart()] : null;
}

/**
 * `text` with each code span blanked out, as CommonMark reads them: a run of n backticks up to the
 * next run of exactly n. The runs are found in one pass and each is paired with the next of its
 * length, so this stays linear however the backticks are arranged.
 */
function blankCodeSpans(text: string): string {
  const runs: Array<{ at: number; n: number }> = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] !== "`") {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && text[j] === "`") j++;
    runs.push({ at: i, n: j - i });
    i = j;
  }
  const nextSame = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    nextSame[r] = seen.get(runs[r].n) ?? -1;
    seen.set(runs[r].n, r);
  }
  let out = "";
  let from = 0;
  for (let r = 0; r < runs.length; ) {
    const close = nextSame[r];
    if (close < 0) {
      r++;
      continue;
    }
    const end = runs[close].at + runs[close].n;
    out += text.slice(from, runs[r].at) + " ".repeat(end - runs[r].at);
    from = end;
    r = close + 1;
  }
  return out + text.slice(from);
}
const CLOSE = /^:::\s*$/;
const OTHER_BLOCK = /^:::\s*(\S+)/;
const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;

/** Labels on one line that are not closed, or empty; code spans are left alone, as they render literally. */
function labelProblems(text: string, line: number): GuideProblem[] {
  const out: GuideProblem[] = [];
  const outsideCode = blankCodeSpans(text);
  for (let i = outsideCode.indexOf("[["); i >= 0; i = outsideCode.indexOf("[[", i + 2)) {
    const rest = outsideCode.slice(i);
    const m = labelAt(rest);
    if (m) {
      i += m[0].length - 2;
      continue;
    }
    const close = rest.indexOf("]]");
    const inner = close < 0 ? null : rest.slice(2, close);
    out.push({
      line,
      problem:
        inner === null
          ? `inline label at column ${i + 1} is not closed on its line`
          : inner.trim() === ""
            ? `inline label at column ${i + 1} is empty`
            : `inline label at column ${i + 1} holds brackets or spans lines`,
      fix: "Write a label as [[Label text]] on one line, with no [ or ] inside (e.g. Click [[Save]]).",
    });
    if (close < 0) break;
    i += close;
  }
  return out;
}

/**
 * Parses and renders a guide body. `html` is always produced (a line with a problem renders as the
 * Markdown it is); `problems` lists every line that breaks the grammar, in line order.
 */
export function renderGuideMarkdown(markdown: string): { html: string; problems: GuideProblem[] } {
  const lines = markdown.split(/\r\n|\r|\n/);
  const problems: GuideProblem[] = [];
  const out: string[] = [];
  let chunk: string[] = [];
  let fence: string | null = null;
  let fenceLine = 0;
  let slip: number | null = null;
  let steps = 0;
  let inSteps = false;

  // Each chunk is rendered alone, so reference-style link definitions go with every chunk.
  const definitions: string[] = [];
  {
    let f: string | null = null;
    for (const l of lines) {
      const m = FENCE.exec(l);
      if (f) {
        if (m && m[1][0] === f[0] && m[1].length >= f.length && l.trim() === m[1]) f = null;
      } else if (m) f = m[1];
      else if (REF_DEFINITION.test(l)) definitions.push(l);
    }
  }
  const links = marked.lexer(definitions.join("\n")).links;
  // A one-line construct's text (step and slip titles, callouts): inline Markdown that sees the links.
  const inline = (md: string) => {
    const lexer = new marked.Lexer(marked.defaults);
    Object.assign(lexer.tokens.links, links);
    return marked.Parser.parseInline(lexer.inlineTokens(md), marked.defaults);
  };
  const flush = () => {
    if (chunk.some((l) => l.trim() !== "")) out.push(block(`${chunk.join("\n")}\n\n${definitions.join("\n")}`));
    chunk = [];
  };
  const endSteps = () => {
    if (!inSteps) return;
    out.push("</li>\n</ol>\n");
    inSteps = false;
  };

  for (const [index, text] of lines.entries()) {
    const line = index + 1;
    const fenceMark = FENCE.exec(text);
    if (fence) {
      if (
        fenceMark &&
        fenceMark[1][0] === fence[0] &&
        fenceMark[1].length >= fence.length &&
        text.trim() === fenceMark[1]
      )
        fence = null;
      chunk.push(text);
      continue;
    }
    if (fenceMark) {
      fence = fenceMark[1];
      fenceLine = line;
      chunk.push(text);
      continue;
    }
    const own = labelProblems(text, line);
    problems.push(...own);
    // A line that breaks a rule renders as the Markdown it is.
    const refuse = (problem: string, fix: string) => {
      problems.push({ line, problem, fix });
      chunk.push(text);
    };

    const slipOpen = slipOpenOf(text);
    if (slipOpen) {
      if (slip !== null) {
        refuse(
          `a slip block opens inside the slip block opened on line ${slip}`,
          `Slip blocks do not nest: close the first with a line ":::" before opening another.`,
        );
        continue;
      }
      flush();
      const title = slipOpen[1]?.trim();
      out.push(`<aside class="gc-slip">\n${title ? `<p class="gc-slip-title">${inline(title)}</p>\n` : ""}`);
      slip = line;
      continue;
    }
    if (CLOSE.test(text)) {
      if (slip === null) {
        refuse(
          `":::" closes nothing: no slip block is open`,
          `Remove the line, or open a slip block above it with "::: slip Title".`,
        );
        continue;
      }
      flush();
      out.push("</aside>\n");
      slip = null;
      continue;
    }
    const other = OTHER_BLOCK.exec(text);
    if (other) {
      refuse(
        `unknown block "::: ${other[1]}"`,
        `The only block is a slip: "::: slip Title" … ":::". For a one-line note write "!note Text".`,
      );
      continue;
    }
    if (NUMBERED_STEP.test(text)) {
      refuse(
        "a step is written with a number",
        `Steps are numbered for you: write "Step: Title" (e.g. "Step: Open Settings").`,
      );
      continue;
    }
    const step = STEP.exec(text);
    if (step) {
      const title = step[1].trim();
      if (slip !== null) {
        refuse(
          `a step starts inside the slip block opened on line ${slip}`,
          `Close the slip with a line ":::" before the step.`,
        );
        continue;
      }
      if (!title) {
        refuse("a step has no title", `Give the step a title on the same line: "Step: Open Settings".`);
        continue;
      }
      flush();
      steps += 1;
      if (inSteps) out.push("</li>\n");
      else out.push(`<ol class="gc-steps"${steps > 1 ? ` start="${steps}"` : ""}>\n`);
      inSteps = true;
      out.push(`<li class="gc-step" id="step-${steps}">\n<p class="gc-step-title">${inline(title)}</p>\n`);
      continue;
    }
    const callout = calloutOf(text);
    if (callout) {
      const kind = callout[1].toLowerCase();
      const body = callout[2].trim();
      if (!Object.hasOwn(CALLOUT_KINDS, kind)) {
        refuse(
          `unknown callout kind "${callout[1]}"`,
          `Start a callout line with one of ${Object.keys(CALLOUT_KINDS)
            .map((k) => `!${k}`)
            .join(", ")} (e.g. "!tip Use a business account"); to begin a line with "!" as text, write "\\!".`,
        );
        continue;
      }
      if (!/^\s/.test(callout[2]) || !body) {
        refuse(
          body ? `callout "!${kind}" is not followed by a space` : `callout "!${kind}" has no text`,
          `Write the kind, a space, then the text on the same line: "!${kind} Text".`,
        );
        continue;
      }
      flush();
      const word = CALLOUT_KINDS[kind as keyof typeof CALLOUT_KINDS];
      out.push(
        `<p class="gc-callout gc-callout-${kind}" role="note"><strong class="gc-callout-kind">${word}:</strong> ${inline(body)}</p>\n`,
      );
      continue;
    }
    if (inSteps && slip === null && HEADING.test(text)) {
      flush();
      endSteps();
    }
    chunk.push(text);
  }
  flush();
  if (slip !== null) {
    problems.push({
      line: slip,
      problem: "the slip block opened on this line is never closed",
      // An unclosed code fence swallows the ":::" a writer did put, so that is the fix to name.
      fix:
        fence === null
          ? `Add a line ":::" where the slip ends.`
          : `Close the code fence opened on line ${fenceLine} with a line "${fence}"; it holds the rest of the guide, the slip's ":::" included.`,
    });
    out.push("</aside>\n");
  }
  endSteps();
  problems.sort((a, b) => a.line - b.line);
  return { html: out.join(""), problems };
}
