/**
 * @module content/guides
 * Guide Center: a tenant's product guides as Markdown files with front matter, and the static help
 * centre built from them. Both are blobs of the tenant in the kit's blob store (kit/src/blob), so
 * every replica serves the same help centre and a restart loses nothing:
 *
 * - `guides/<product>/<locale>/<slug>.md`: one guide (front matter: slug, locale, title, area,
 *   summary, time, cost, route, order, updated — values JSON-quoted, which is valid YAML);
 * - `help/<product>/builds/<build>/…`: one built help centre, served through the gateway at
 *   `<gateway>/v1/files/content/help/<tenant>/<product>/` (files.ts): `index.html` (every locale's
 *   index, by area, then order, then title), `<locale>/index.html`, `<locale>/<slug>.html` (one page
 *   per guide), and `manifest.json` (what guide.list reads);
 * - `help/<product>/live`: the id of the build being served.
 *
 * A build writes every file of a new build first and then points `live` at it, so readers never see
 * half a site; then it deletes the build it replaced. Builds of one product run one at a time in
 * this process; on two replicas at once, the later `live` write wins and both builds are whole.
 */
import { randomBytes } from "node:crypto";
import { type BlobStore, withAdvisoryLock } from "@gantry/kit";
import type { Context } from "./context.ts";
import { renderGuideMarkdown } from "./guide-markdown.ts";
import { DEFAULT_THEME, escapeHtml } from "./theme.ts";

/** What guide.publish accepts as a product (the catalogue's slug): anything else has no guides. */
export const PRODUCT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The blob key prefix of a product's guide files. */
export function guidesPrefix(product: string): string {
  return `guides/${product}/`;
}

/** The blob key of the pointer to a product's live help-centre build. */
export function livePointer(product: string): string {
  return `help/${product}/live`;
}

/** The blob key prefix of one help-centre build. */
export function buildPrefix(product: string, build: string): string {
  return `help/${product}/builds/${build}/`;
}

/** The blob key of a file of the product's live help centre, or null when none is live. */
export async function liveFile(
  blobs: BlobStore,
  tenant: string,
  product: string,
  path: string,
): Promise<string | null> {
  const live = await blobs.get(tenant, livePointer(product));
  return live ? `${buildPrefix(product, live.bytes.toString("utf8"))}${path}` : null;
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
    const kv = /^([a-z]+):(.*)$/.exec(line);
    if (!kv) continue;
    const value = kv[2].trimStart();
    try {
      v[kv[1]] = JSON.parse(value);
    } catch {
      v[kv[1]] = value;
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

export async function readGuides(
  blobs: BlobStore,
  tenant: string,
  product: string,
): Promise<Array<{ meta: GuideMeta; markdown: string }>> {
  const out: Array<{ meta: GuideMeta; markdown: string }> = [];
  for (const { key } of await blobs.list(tenant, guidesPrefix(product))) {
    if (!key.endsWith(".md")) continue;
    const blob = await blobs.get(tenant, key);
    const parsed = blob ? parseGuideFile(blob.bytes.toString("utf8")) : null;
    if (parsed) out.push(parsed);
  }
  return out.sort((a, b) => indexOrder(a.meta, b.meta));
}

const CSS = `body{font-family:Helvetica,Arial,sans-serif;color:#111827;max-width:760px;margin:0 auto;padding:24px;line-height:1.6}
header{border-bottom:4px solid ${DEFAULT_THEME.brandColor};margin-bottom:20px}h1,h2,h3{color:${DEFAULT_THEME.brandColor}}
a{color:${DEFAULT_THEME.accentColor}}.meta{color:#6b7280;font-size:14px}blockquote{border-left:4px solid ${DEFAULT_THEME.accentColor};margin:0 0 12px;padding:4px 12px;background:#f3f4f6}
table{border-collapse:collapse}td,th{border:1px solid #d1d5db;padding:4px 8px}code{background:#f3f4f6;padding:0 3px}
.gc-steps{padding-left:1.5em}.gc-step{margin-bottom:16px}.gc-step-title{font-weight:bold;margin-bottom:4px}
.gc-label{font-weight:600;background:#eef2ff;border:1px solid #c7d2fe;border-radius:4px;padding:0 4px;white-space:nowrap}
.gc-callout{border-left:4px solid #6b7280;background:#f9fafb;padding:6px 12px}.gc-callout-tip{border-color:#059669}
.gc-callout-important{border-color:#7c3aed}.gc-callout-warning{border-color:#d97706}.gc-callout-caution{border-color:#dc2626}
.gc-slip{border:1px dashed #9ca3af;border-radius:6px;padding:8px 16px;margin:12px 0;background:#fffbeb}.gc-slip-title{font-weight:bold;margin:0}`;

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

/**
 * Builds and swaps in the product's site; answers its manifest. One build per product at a time on
 * every replica together (a Postgres advisory lock): a build reads the guides once it holds the lock,
 * so the last build to finish is also the one that saw every guide published before it, and the live
 * site never goes back to a build that missed one.
 */
export function buildSite(
  ctx: Pick<Context, "blobs" | "now" | "pool">,
  files: string,
  tenant: string,
  product: string,
): Promise<Manifest> {
  return withAdvisoryLock(ctx.pool, `content:help-centre:${JSON.stringify([tenant, product])}`, () =>
    build(ctx, files, tenant, product),
  );
}

/** Build ids sort by time, so a build knows which builds are older than itself. */
function buildId(now: number): string {
  return `${now.toString(36).padStart(10, "0")}-${randomBytes(4).toString("hex")}`;
}

async function build(
  ctx: Pick<Context, "blobs" | "now">,
  files: string,
  tenant: string,
  product: string,
): Promise<Manifest> {
  const { blobs } = ctx;
  const base = helpCenterUrl(files, tenant, product);
  const guides = await readGuides(blobs, tenant, product);
  const previous = (await blobs.get(tenant, livePointer(product)))?.bytes.toString("utf8") ?? "";
  const id = buildId(ctx.now());
  const prefix = buildPrefix(product, id);
  const html = "text/html; charset=utf-8";
  const write = (path: string, text: string, contentType = html) =>
    blobs.put(tenant, `${prefix}${path}`, Buffer.from(text, "utf8"), { contentType });
  const metas = guides.map((g) => g.meta);
  for (const { meta, markdown } of guides) {
    const facts = [meta.time, meta.cost, meta.route ? `In the app: ${meta.route}` : null].filter(Boolean) as string[];
    const body = `<header><p class="meta"><a href="${escapeHtml(`${base}${meta.locale}/`)}">${escapeHtml(product)} help centre</a> › ${escapeHtml(meta.area)}</p><h1>${escapeHtml(meta.title)}</h1>${meta.summary ? `<p>${escapeHtml(meta.summary)}</p>` : ""}${facts.length ? `<p class="meta">${facts.map(escapeHtml).join(" · ")}</p>` : ""}</header>\n<main>\n${renderGuideMarkdown(markdown).html}</main>`;
    await write(`${meta.locale}/${meta.slug}.html`, page(meta.title, body, meta.locale));
  }
  const locales = [...new Set(metas.map((m) => m.locale))].sort();
  for (const locale of locales)
    await write(
      `${locale}/index.html`,
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
  await write("index.html", page(`${product} help centre`, indexBody(product, metas, base), "en"));
  const manifest: Manifest = {
    product,
    generated: new Date(ctx.now()).toISOString(),
    guides: metas.map((m) => ({ ...m, url: guidePageUrl(base, m.locale, m.slug) })),
  };
  await write("manifest.json", `${JSON.stringify(manifest, null, 2)}\n`, "application/json");
  await blobs.put(tenant, livePointer(product), Buffer.from(id, "utf8"), { contentType: "text/plain" });
  // The build this one replaced, and any over an hour old (left by a build that lost a race), are
  // no longer served; a build another replica started meanwhile is newer than `previous` and stays.
  const stale = buildId(ctx.now() - 3_600_000);
  const builds = new Set(
    (await blobs.list(tenant, `help/${product}/builds/`))
      .map((b) => b.key.split("/")[3])
      .filter((b) => b !== id && (b <= previous || b < stale)),
  );
  for (const old of builds) await blobs.deletePrefix(tenant, buildPrefix(product, old));
  return manifest;
}
