/**
 * @module content/abilities/guide.list
 * The guides live on a product's help centre, read from its manifest: the tenant's own built site
 * (its live build in the blob store, guides.ts),
 * or `<publicUrl>/manifest.json` when `publicUrl` is given (fetched through the kit's SSRF guard).
 * Guides written with `deploy: false` are not live and are not listed until the next deploy.
 */
import { filesBase, GantryError, networkErrorCode, SsrfBlockedError, SsrfFetchError } from "@gantry/kit";
import { ability } from "../context.ts";
import { type GuideMeta, helpCenterUrl, indexOrder, liveFile, type Manifest, PRODUCT } from "../guides.ts";

type Entry = GuideMeta & { url: string };

function invalidManifest(url: string): GantryError {
  return new GantryError("upstream_failed", `${url} is not a Guide Center manifest (JSON with a guides list).`);
}

/**
 * A `publicUrl` the guard refuses, or whose host does not resolve, is the caller's to fix (400 at
 * /input/publicUrl); a help centre that exists but fails is an upstream failure (502), a slow one 504.
 */
function fetchFailure(err: unknown, base: string): GantryError {
  const invalid = (message: string, code: string) =>
    new GantryError("validation_failed", message, { details: [{ path: "/input/publicUrl", message, code }] });
  if (err instanceof SsrfBlockedError)
    return invalid(
      `/input/publicUrl is refused: ${err.message}. Give a public http(s) URL on port 80 or 443.`,
      "url_refused",
    );
  if (err instanceof SsrfFetchError && err.code === "ETIMEDOUT")
    return new GantryError("timeout", `The help centre at ${base} did not answer in time.`, { cause: err });
  if (networkErrorCode(err) === "ENOTFOUND")
    return invalid(`/input/publicUrl: the host of ${base} does not resolve (DNS: no such name).`, "host_not_found");
  return new GantryError("upstream_failed", `The help centre at ${base} could not be reached.`, { cause: err });
}

export default ability("guide.list", async (input, call, ctx) => {
  let base: string;
  let manifest: Partial<Manifest> | null = null;
  if (input.publicUrl) {
    base = input.publicUrl.endsWith("/") ? input.publicUrl : `${input.publicUrl}/`;
    const url = new URL("manifest.json", base).href;
    let res: Awaited<ReturnType<typeof ctx.guard.fetch>>;
    try {
      res = await ctx.guard.fetch(url, { headers: { accept: "application/json" } });
    } catch (err) {
      throw fetchFailure(err, base);
    }
    if (res.status === 404) manifest = { guides: [] };
    else if (res.status !== 200) throw new GantryError("upstream_failed", `${url} answered HTTP ${res.status}.`);
    else {
      try {
        manifest = JSON.parse(res.text()) as Partial<Manifest>;
      } catch {
        throw invalidManifest(url);
      }
      if (!manifest || !Array.isArray(manifest.guides)) throw invalidManifest(url);
    }
  } else {
    base = helpCenterUrl(filesBase(call.baseUrl, "content"), call.tenant, input.product);
    // A name guide.publish would refuse has no help centre.
    const key = PRODUCT.test(input.product)
      ? await liveFile(ctx.blobs, call.tenant, input.product, "manifest.json")
      : null;
    const blob = key ? await ctx.blobs.get(call.tenant, key) : null;
    try {
      manifest = blob ? JSON.parse(blob.bytes.toString("utf8")) : { guides: [] };
    } catch {
      manifest = { guides: [] };
    }
  }
  const str = (x: unknown) => (typeof x === "string" ? x : null);
  const guides = (manifest?.guides ?? [])
    .filter(
      (g): g is Entry => !!g && typeof g.slug === "string" && typeof g.title === "string" && typeof g.area === "string",
    )
    .map((g) => ({
      slug: g.slug,
      locale: str(g.locale) ?? "en",
      title: g.title,
      area: g.area,
      summary: str(g.summary),
      time: str(g.time),
      cost: str(g.cost),
      route: str(g.route),
      order: typeof g.order === "number" && Number.isFinite(g.order) ? g.order : null,
      updated:
        str(g.updated) && !Number.isNaN(Date.parse(g.updated as string))
          ? new Date(g.updated as string).toISOString()
          : null,
      url: (() => {
        try {
          return new URL(String(g.url ?? `${g.locale ?? "en"}/${g.slug}.html`), base).href;
        } catch {
          return new URL(`${encodeURIComponent(g.slug)}.html`, base).href;
        }
      })(),
    }))
    .filter((g) => !input.locale || g.locale === input.locale)
    .sort(indexOrder)
    .map(({ slug, locale, title, area, summary, time, cost, route, order, url, updated }) => ({
      slug,
      locale,
      title,
      area,
      summary,
      time,
      cost,
      route,
      order,
      url,
      updated,
    }));
  const generated = str(manifest?.generated);
  return {
    product: input.product,
    locale: input.locale ?? null,
    helpCenterUrl: base,
    guides,
    generated: generated && !Number.isNaN(Date.parse(generated)) ? new Date(generated).toISOString() : null,
  };
});
