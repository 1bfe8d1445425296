/**
 * @module content/markdown
 * Markdown → HTML (GitHub-flavoured: headings, lists, tables, code, links) for message.send_markdown,
 * document.generate and the help centre, with one sanitisation, documented in the README:
 *
 * - raw HTML in the Markdown is shown as text, never interpreted (no `<script>`, no `onerror=`);
 * - a link whose scheme is not http, https or mailto (e.g. `javascript:`, `data:`) is stripped: its
 *   text stays, the link goes;
 * - an image whose URL is not http(s) is replaced by its alt text.
 *
 * The output is deterministic: the same Markdown gives byte-equal HTML.
 */
import { Marked, type MarkedExtension, type Tokens } from "marked";
import { escapeHtml } from "./theme.ts";

const LINK_SCHEMES = new Set(["http:", "https:", "mailto:"]);

function allowed(href: string, schemes: Set<string>): string | null {
  try {
    const url = new URL(href);
    return schemes.has(url.protocol) ? url.href : null;
  } catch {
    // Relative links have no scheme; they cannot run script, and anchors (#part) are useful.
    return /^[#/?.]|^[\w-]+(?:\.[\w-]+)*(?:[/?#]|$)/.test(href) && !/^[a-z][a-z0-9+.-]*:/i.test(href) ? href : null;
  }
}

/**
 * A Marked with this module's sanitisation, plus `extensions` (the Guide Center's inline labels):
 * every dialect renders raw HTML, links and images the same safe way.
 */
export function sanitizingMarked(...extensions: MarkedExtension[]): Marked {
  return new Marked(SANITIZING, ...extensions);
}

const SANITIZING: MarkedExtension = {
  gfm: true,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const href = allowed(token.href, LINK_SCHEMES);
      if (!href) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title}>${text}</a>`;
    },
    image(token: Tokens.Image) {
      const src = allowed(token.href, new Set(["http:", "https:"]));
      if (!src || !/^https?:/.test(src)) return escapeHtml(token.text);
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}"${title}>`;
    },
  },
};

const marked = sanitizingMarked();

/** Markdown → sanitized HTML fragment. */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false }) as string;
}

/** The first `# ` heading's text, if any (a document title fallback). */
export function firstHeading(markdown: string): string | null {
  const m = /^#{1,2}\s+(.+)$/m.exec(markdown);
  return m ? m[1].trim() : null;
}
