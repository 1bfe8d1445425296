/**
 * @module content/guides
 * Guide Center: a tenant's product guides as Markdown files with front matter, and the static help
 * centre built from them.
 *
 * Layout under `<CONTENT_DATA_DIR>/guides/<tenant>/<product>/`:
 * - `<locale>/<slug>.md`: one guide (front matter: slug, locale, title, area, summary, time, cost,
 *   route, order, updated — values JSON-quoted, which is valid YAML);
 * - `site/`: the built help centre, served through the gateway at
 *   `<gateway>/v1/files/content/help/<tenant>/<product>/` (files.ts): `index.html` (every locale's index, by area,
 *   then order, then title), `<locale>/index.html`, `<locale>/<slug>.html` (one page per guide), and
 *   `manifest.json` (what guide.list reads).
 *
 * A build writes the whole site into a fresh directory and swaps it in, so readers never see half a
 * site; builds of one product run one at a time in this process.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Context } from "./context.ts";
import { markdownToHtml } from "./markdown.ts";
import { DEFAULT_THEME, escapeHtml } from "./theme.ts";

/** `<dataDir>/guides/<tenant>/<product>`: the product's guides directory (Markdown per locale). */
export function productDir(ctx: Pick<Context, "dataDir">, tenant: string, product: string): string {
  return join(ctx.dataDir, "guides", encodeURIComponent(tenant), product);
}

/** The built static help centre of a product. */
export function siteDir(ctx: Pick<Context, "dataDir">, tenant: string, product: string): string {
  return join(productDir(ctx, tenant, product), "site");
}

/** Base URL of a product's help centre under `files` (kit `filesBase`), with a trailing slash. */
export function helpCenterUrl(files: string, tenant: string, product: string): string {
  return `${files}/help/${encodeURIComponent(tenant)}/${product}/`;
}

export function guidePageUrl(base: string, locale: string, slug: string): string {
  return `${base}${locale}/${slug}.html`;
}

export interface GuideMeta {
  slug: string;
  locale: string;
  title: string;
  area: string;
  summary: string | null;
  time: string | null;
  cost: string | null;
  route: string | null;
  order: number | null;
  updated: string | null;
}

const META_KEYS = ["slug", "locale", "title", "area", "summary", "time", "cost", "route", "order", "updated"] as const;

/** The Guide Center file: front matter, a blank line, the Markdown body. */
export function guideFile(meta: GuideMeta, markdown: string): string {
  const lines = META_KEYS.filter((k) => meta[k] !== null).map((k) => `${k}: ${JSON.stringify(meta[k])}`);
  return `---\n${lines.join("\n")}\n---\n\n${markdown.trim()}\n`;
}

export function parseGuideFile(text: string): { meta: GuideMeta; markdown: string } | null {
  const m = /^---\n([\s\S]*?)\n---\n\n?([\s\S]*)$/.exec(text);
  if (!m) return null;
  const v: Record<string, unknown> = {};
  for (const line of m[1].split("\n")) {
    const kv = /^([a-z]+):\s*(.*)$/.exec(line);
    if (!kv) continue;
    try {
      v[kv[1]] = JSON.parse(kv[2]);
    } catch {
      v[kv[1]] = kv[2];
    }
  }
  if (typeof v.slug !== "string" || typeof v.title !== "string" || typeof v.area !== "string") return null;
  const s = (x: unknown) => (typeof x === "string" ? x : null);
  return {
    meta: {
      slug: v.slug,
      locale: s(v.locale) ?? "en",
      title: v.title,
      area: v.area,
      summary: s(v.summary),
      time: s(v.time),
      cost: s(v.cost),
      route: s(v.route),
      order: typeof v.order === "number" ? v.order : null,
      updated: s(v.updated),
    },
    markdown: m[2],
  };
}

/** Index order: area, then order (guides without one after), then title. */
export function indexOrder(a: GuideMeta, b: GuideMeta): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    cmp(a.area, b.area) ||
    (a.order ?? Number.POSITIVE_INFINITY) - (b.order ?? Number.POSITIVE_INFINITY) ||
    cmp(a.title, b.title) ||
    cmp(a.locale, b.locale) ||
    cmp(a.slug, b.slug)
  );
}

export async function readGuides(dir: string): Promise<Array<{ meta: GuideMeta; markdown: string }>> {
  const out: Array<{ meta: GuideMeta; markdown: string }> = [];
  let locales: string[] = [];
  try {
    locales = (await readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isDirectory() && d.name !== "site" && !d.name.startsWith("."))
      .map((d) => d.name);
  } catch {
    return out;
  }
  for (const locale of locales.sort()) {
    for (const file of (await readdir(join(dir, locale))).filter((f) => f.endsWith(".md")).sort()) {
      const parsed = parseGuideFile(await readFile(join(dir, locale, file), "utf8"));
      if (parsed) out.push(parsed);
    }
  }
  return out.sort((a, b) => indexOrder(a.meta, b.meta));
}

const CSS = `body{font-family:Helvetica,Arial,sans-serif;color:#111827;max-width:760px;margin:0 auto;padding:24px;line-height:1.6}
header{border-bottom:4px solid ${DEFAULT_THEME.brandColor};margin-bottom:20px}h1,h2,h3{color:${DEFAULT_THEME.brandColor}}
a{color:${DEFAULT_THEME.accentColor}}.meta{color:#6b7280;font-size:14px}blockquote{border-left:4px solid ${DEFAULT_THEME.accentColor};margin:0 0 12px;padding:4px 12px;background:#f3f4f6}
table{border-collapse:collapse}td,th{border:1px solid #d1d5db;padding:4px 8px}code{background:#f3f4f6;padding:0 3px}`;

function page(title: string, body: string, lang: string): string {
  return `<!doctype html>\n<html lang="${escapeHtml(lang)}">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(title)}</title>\n<style>${CSS}</style>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

function indexBody(product: string, guides: GuideMeta[], base: string): string {
  const areas = new Map<string, GuideMeta[]>();
  for (const g of guides) areas.set(g.area, [...(areas.get(g.area) ?? []), g]);
  const sections = [...areas].map(
    ([area, list]) =>
      `<section><h2>${escapeHtml(area)}</h2><ul>${list
        .map(
          (g) =>
            `<li><a href="${escapeHtml(guidePageUrl(base, g.locale, g.slug))}" hreflang="${escapeHtml(g.locale)}">${escapeHtml(g.title)}</a>${g.summary ? ` — ${escapeHtml(g.summary)}` : ""}</li>`,
        )
        .join("")}</ul></section>`,
  );
  return `<header><h1>${escapeHtml(product)} help centre</h1></header>\n${sections.join("\n") || "<p>No guides yet.</p>"}`;
}

export interface Manifest {
  product: string;
  generated: string;
  guides: Array<GuideMeta & { url: string }>;
}

const building = new Map<string, Promise<unknown>>();

/** Builds and swaps in the product's site; answers its manifest. One build per product at a time. */
export function buildSite(
  ctx: Pick<Context, "dataDir" | "now">,
  files: string,
  tenant: string,
  product: string,
): Promise<Manifest> {
  const key = `${tenant}\u0000${product}`;
  const run = (building.get(key) ?? Promise.resolve()).catch(() => {}).then(() => build(ctx, files, tenant, product));
  building.set(key, run);
  run
    .finally(() => {
      if (building.get(key) === run) building.delete(key);
    })
    .catch(() => {});
  return run;
}

async function build(
  ctx: Pick<Context, "dataDir" | "now">,
  files: string,
  tenant: string,
  product: string,
): Promise<Manifest> {
  const dir = productDir(ctx, tenant, product);
  const base = helpCenterUrl(files, tenant, product);
  const guides = await readGuides(dir);
  const tmp = join(dir, `.site-${process.pid}-${Date.now()}`);
  await mkdir(tmp, { recursive: true });
  const metas = guides.map((g) => g.meta);
  for (const { meta, markdown } of guides) {
    await mkdir(join(tmp, meta.locale), { recursive: true });
    const facts = [meta.time, meta.cost, meta.route ? `In the app: ${meta.route}` : null].filter(Boolean) as string[];
    const body = `<header><p class="meta"><a href="${escapeHtml(`${base}${meta.locale}/`)}">${escapeHtml(product)} help centre</a> › ${escapeHtml(meta.area)}</p><h1>${escapeHtml(meta.title)}</h1>${meta.summary ? `<p>${escapeHtml(meta.summary)}</p>` : ""}${facts.length ? `<p class="meta">${facts.map(escapeHtml).join(" · ")}</p>` : ""}</header>\n<main>\n${markdownToHtml(markdown)}</main>`;
    await writeFile(join(tmp, meta.locale, `${meta.slug}.html`), page(meta.title, body, meta.locale));
  }
  const locales = [...new Set(metas.map((m) => m.locale))].sort();
  for (const locale of locales)
    await writeFile(
      join(tmp, locale, "index.html"),
      page(
        `${product} help centre`,
        indexBody(
          product,
          metas.filter((m) => m.locale === locale),
          base,
        ),
        locale,
      ),
    );
  await writeFile(join(tmp, "index.html"), page(`${product} help centre`, indexBody(product, metas, base), "en"));
  const manifest: Manifest = {
    product,
    generated: new Date(ctx.now()).toISOString(),
    guides: metas.map((m) => ({ ...m, url: guidePageUrl(base, m.locale, m.slug) })),
  };
  await writeFile(join(tmp, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const site = siteDir(ctx, tenant, product);
  const old = `${site}.old-${process.pid}-${Date.now()}`;
  await rename(site, old).catch(() => {});
  await rename(tmp, site);
  await rm(old, { recursive: true, force: true });
  return manifest;
}
