/**
 * @module web/extract
 * A fetched or rendered page to clean content: jsdom parses the HTML (scripts never run here — the
 * browser path runs them before handing over its DOM), Mozilla Readability keeps the main content,
 * turndown writes it as Markdown. The plain text keeps block boundaries (paragraphs, headings, list
 * items on their own lines) so passages and their offsets stay readable; it is what research and
 * verify quote and hash. When Readability finds no article, the whole `<body>` is used instead.
 *
 * It runs in the page reader's worker process (./reader.ts, ./extract-worker.ts): the three libraries
 * (jsdom alone holds ≈ 100 MiB once loaded) are imported there on the first extraction and leave
 * with the worker.
 */
import type { Readability as ReadabilityClass } from "@mozilla/readability";
import type TurndownService from "turndown";

export interface Extracted {
  title: string | null;
  byline: string | null;
  excerpt: string | null;
  siteName: string | null;
  lang: string | null;
  published: string | null;
  html: string;
  text: string;
  markdown: string;
  links: { url: string; text: string }[];
  /** The document has scripts (a hint that it may need a browser). */
  hasScripts: boolean;
}

const BLOCK = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "BR",
  "DD",
  "DIV",
  "DL",
  "DT",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "HEADER",
  "HR",
  "LI",
  "MAIN",
  "NAV",
  "OL",
  "P",
  "PRE",
  "SECTION",
  "TABLE",
  "TD",
  "TH",
  "TR",
  "UL",
]);
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "svg"]);

/** The DOM a page is parsed into (WEB_DOM): linkedom by default, jsdom as the reference. */
export type DomName = "linkedom" | "jsdom";

/**
 * A parsed page, and the page parsed again for when Readability (which changes the document it
 * reads) finds no article and the untouched body is wanted.
 */
interface Parsed {
  doc: Document;
  again(): Document;
  close(): void;
}

type Parse = (html: string, url: string) => Parsed;

const parsers: Partial<Record<DomName, Promise<Parse>>> = {};
function parser(dom: DomName): Promise<Parse> {
  parsers[dom] ??= dom === "jsdom" ? jsdomParser() : linkedomParser();
  return parsers[dom];
}

async function jsdomParser(): Promise<Parse> {
  const { JSDOM, VirtualConsole } = await import("jsdom");
  return (html, url) => {
    // A silent virtual console: page CSS and markup errors are not ours to log.
    const windows: { close(): void }[] = [];
    const parse = () => {
      const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
      windows.push(dom.window);
      return dom.window.document;
    };
    return {
      doc: parse(),
      again: parse,
      close: () => {
        for (const w of windows) w.close();
      },
    };
  };
}

/**
 * linkedom builds a document about 10× faster than jsdom builds a window (which most of jsdom's
 * ≈ 20 ms per page went to), and Readability runs on it about 5× faster. It has no notion of the
 * document's URL, which Readability reads to make links absolute, and keeps the case of names given to
 * `createElement` (Readability asks for "DIV"), so each copy is given both as a browser has them.
 */
async function linkedomParser(): Promise<Parse> {
  const { parseHTML } = await import("linkedom");
  const located = (doc: Document, url: string): Document => {
    const base = doc.querySelector("base[href]")?.getAttribute("href");
    let baseURI = url;
    try {
      if (base) baseURI = new URL(base, url).href;
    } catch {}
    const createElement = doc.createElement.bind(doc);
    Object.defineProperties(doc, {
      documentURI: { value: url },
      URL: { value: url },
      baseURI: { value: baseURI },
      createElement: {
        value: (name: string, options?: ElementCreationOptions) => createElement(name.toLowerCase(), options),
      },
    });
    return doc;
  };
  const parse = (html: string, url: string): Document => {
    const doc = parseHTML(html).document as unknown as Document;
    // Its parser leaves a text node per entity and chunk ("2", ". Next"); the HTML parser merges them,
    // and turndown escapes per text node (a "." or ">" that starts one is escaped as if it began a line).
    doc.normalize();
    return located(doc, url);
  };
  return (html, url) => ({ doc: parse(html, url), again: () => parse(html, url), close: () => {} });
}

let libraries: Promise<{ Readability: typeof ReadabilityClass; turndown: TurndownService }> | undefined;
function loadLibraries() {
  libraries ??= Promise.all([import("@mozilla/readability"), import("turndown")]).then(
    ([readability, { default: Turndown }]) => {
      const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
      turndown.remove(["script", "style", "noscript", "template"]);
      return { Readability: readability.Readability, turndown };
    },
  );
  return libraries;
}

function clean(value: string | null | undefined): string | null {
  const v = value?.replace(/\s+/g, " ").trim();
  return v ? v : null;
}

/** Text of a subtree with one line per block and whitespace inside a line collapsed. */
export function blockText(root: Node): string {
  const lines: string[] = [];
  let line = "";
  const flush = () => {
    const t = line.replace(/\s+/g, " ").trim();
    if (t) lines.push(t);
    line = "";
  };
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      line += node.nodeValue ?? "";
      return;
    }
    if (node.nodeType !== 1) return;
    const name = (node as Element).tagName;
    if (SKIP.has(name)) return;
    const block = BLOCK.has(name);
    if (block) flush();
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) flush();
  };
  walk(root);
  flush();
  return lines.join("\n");
}

function linksOf(root: Element, base: string): { url: string; text: string }[] {
  const seen = new Set<string>();
  const out: { url: string; text: string }[] = [];
  for (const a of Array.from(root.querySelectorAll("a[href]"))) {
    let href: URL;
    try {
      href = new URL(a.getAttribute("href") ?? "", base);
    } catch {
      continue;
    }
    if (href.protocol !== "http:" && href.protocol !== "https:") continue;
    href.hash = "";
    if (seen.has(href.href)) continue;
    seen.add(href.href);
    out.push({ url: href.href, text: clean(a.textContent) ?? "" });
  }
  return out;
}

/**
 * A page's `<meta>` elements by lower-cased `property`, `name` and `itemprop` (the first in document
 * order for each), read in one pass: a selector per name cost more than the rest of the metadata.
 */
function metaOf(doc: Document): (...names: string[]) => string | null {
  const first = new Map<string, Element>();
  for (const el of Array.from(doc.getElementsByTagName("meta")))
    for (const attr of ["property", "name", "itemprop"]) {
      // Case-insensitive as jsdom always matched them: "DC.date.issued" finds DC.Date.Issued.
      const key = el.getAttribute(attr)?.toLowerCase();
      if (key !== undefined && !first.has(key)) first.set(key, el);
    }
  return (...names) => {
    for (const n of names) {
      const v = clean(first.get(n.toLowerCase())?.getAttribute("content"));
      if (v) return v;
    }
    return null;
  };
}

/** Extracts the main content of an HTML document fetched from `url`. */
export async function extractHtml(html: string, url: string, dom: DomName = "linkedom"): Promise<Extracted> {
  const [parse, { Readability, turndown }] = await Promise.all([parser(dom), loadLibraries()]);
  const page = parse(html, url);
  try {
    const doc = page.doc;
    // All read before Readability, which changes the document (it removes scripts, styles and more).
    const hasScripts = doc.querySelector("script") !== null;
    const lang = clean(doc.documentElement.getAttribute("lang"));
    const meta = metaOf(doc);
    const published =
      meta("article:published_time", "datePublished", "date", "dc.date", "DC.date.issued") ??
      clean(doc.querySelector("time[datetime]")?.getAttribute("datetime"));
    const docTitle = clean(doc.title);
    const baseURI = doc.baseURI;
    const article = new Readability<Element>(doc, { serializer: (el) => el as Element }).parse();
    let root: Element;
    if (article?.content) root = article.content;
    else {
      const whole = page.again();
      root = whole.body ?? whole.documentElement;
      for (const el of Array.from(root.querySelectorAll("script, style, noscript, template"))) el.remove();
    }
    // Readability's moves can leave neighbouring text nodes (with linkedom more than with jsdom), and
    // turndown escapes per text node: a ">" that starts one is escaped as if it began a line.
    root.normalize();
    return {
      title: clean(article?.title) ?? docTitle,
      byline: clean(article?.byline) ?? meta("author"),
      excerpt: clean(article?.excerpt) ?? meta("description", "og:description"),
      siteName: clean(article?.siteName) ?? meta("og:site_name"),
      lang: clean(article?.lang) ?? lang,
      published: clean(article?.publishedTime) ?? published,
      html: root.innerHTML.trim(),
      text: blockText(root),
      markdown: turndown.turndown(root as unknown as HTMLElement).trim(),
      links: linksOf(root, baseURI),
      hasScripts,
    };
  } finally {
    page.close();
  }
}

/** A text (non-HTML) body as content: the same in every format. */
export function extractText(body: string): Extracted {
  const text = body.replace(/\r\n?/g, "\n").trim();
  return {
    title: null,
    byline: null,
    excerpt: null,
    siteName: null,
    lang: null,
    published: null,
    html: text,
    text,
    markdown: text,
    links: [],
    hasScripts: false,
  };
}
