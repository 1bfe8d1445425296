/**
 * @module content/abilities/guide.publish
 * Writes a Guide Center Markdown guide (front matter from the input) into the product's guides (a
 * blob, guides.ts) and, with `deploy: true` (the default), rebuilds the product's static help
 * centre as blobs, served through the gateway's files route; answers the guide's public URL. The product must be
 * on the calling key's product allow-list (`*`: every product): a key without one publishes nowhere
 * (fail-closed, 403).
 */
import { GantryError, sha256Hex, filesBase } from "@gantry/kit";
import { grantsName } from "@gantry/kit/grants.ts";
import { ability } from "../context.ts";
import { renderGuideMarkdown } from "../guide-markdown.ts";
import { buildSite, guideFile, guidePageUrl, guidesPrefix, helpCenterUrl } from "../guides.ts";
import { newId } from "../ids.ts";

export default ability("guide.publish", async (input, call, ctx) => {
  if (!grantsName(call.products, input.product))
    throw new GantryError(
      "forbidden",
      `This key may not publish guides to product "${input.product}": it is not on the key's product allow-list (${call.products.length ? call.products.join(", ") : "empty"}). Use a key issued with products: ["${input.product}"].`,
      {
        details: [
          {
            path: "/input/product",
            message: "/input/product is not on the key's product allow-list",
            code: "product_not_allowed",
          },
        ],
      },
    );
  // Checked before anything is written: a guide with a broken construct is never stored or served.
  const { problems } = renderGuideMarkdown(input.markdown);
  if (problems.length) {
    const shown = problems.slice(0, 20);
    throw new GantryError(
      "validation_failed",
      `The guide's Markdown breaks the Guide Center grammar (services/content/docs/guide-markdown.md) on ${problems.length === 1 ? `line ${problems[0].line}` : `${problems.length} lines`}: ${shown
        .map((p) => `line ${p.line}: ${p.problem}. ${p.fix}`)
        .join(" ")}`,
      {
        details: shown.map((p) => ({
          path: "/input/markdown",
          message: `line ${p.line}: ${p.problem}. ${p.fix}`,
          code: "invalid_value",
          line: p.line,
          fix: p.fix,
        })),
      },
    );
  }
  const now = new Date(ctx.now());
  const meta = {
    slug: input.slug,
    locale: input.locale,
    title: input.title,
    area: input.area,
    summary: input.summary ?? null,
    time: input.time ?? null,
    cost: input.cost ?? null,
    route: input.route ?? null,
    order: input.order ?? null,
    updated: now.toISOString(),
  };
  const body = guideFile(meta, input.markdown);
  const rel = `${input.locale}/${input.slug}.md`;
  await ctx.blobs.put(call.tenant, `${guidesPrefix(input.product)}${rel}`, Buffer.from(body, "utf8"), {
    contentType: "text/markdown; charset=utf-8",
  });
  const digest = sha256Hex(body);

  const where = {
    tenant_product_locale_slug: { tenant: call.tenant, product: input.product, locale: input.locale, slug: input.slug },
  };
  const existing = await ctx.db.guide.findFirst({ where: where.tenant_product_locale_slug, select: { id: true } });
  const fields = {
    title: meta.title,
    area: meta.area,
    summary: meta.summary,
    time: meta.time,
    cost: meta.cost,
    route: meta.route,
    order: meta.order,
    path: rel,
    sha256: digest,
    requestId: call.requestId,
    updatedAt: now,
  };
  // The vertical is the creating call's; a later publish changes it only when it names one.
  const { vertical } = await ctx.db.guide.upsert({
    where,
    create: {
      id: newId("guide"),
      tenant: call.tenant,
      product: input.product,
      locale: input.locale,
      slug: input.slug,
      vertical: call.verticalId ?? null,
      createdAt: now,
      ...fields,
    },
    update: call.verticalId ? { ...fields, vertical: call.verticalId } : fields,
    select: { vertical: true },
  });

  let published: Date | null = null;
  if (input.deploy) {
    await buildSite(ctx, filesBase(call.baseUrl, "content"), call.tenant, input.product);
    published = new Date(ctx.now());
    await ctx.db.guide.updateMany({
      where: { tenant: call.tenant, product: input.product },
      data: { publishedAt: published },
    });
  }
  const base = helpCenterUrl(filesBase(call.baseUrl, "content"), call.tenant, input.product);
  return {
    product: input.product,
    slug: input.slug,
    locale: input.locale,
    title: input.title,
    area: input.area,
    path: rel,
    action: existing ? ("updated" as const) : ("created" as const),
    sha256: digest,
    vertical,
    deployed: input.deploy,
    url: guidePageUrl(base, input.locale, input.slug),
    helpCenterUrl: base,
    written: now.toISOString(),
    published: published?.toISOString() ?? null,
  };
});
