/**
 * @module web/screenshots
 * Screenshots as artifacts: the PNG is a blob of the tenant in the kit's blob store (kit/src/blob,
 * `screenshots/<id>.png`, with the link's expiry), recorded in `screenshots` (`art_…`), and handed out as
 * a signed, expiring link, `<gateway>/v1/files/web/screenshots/<id>.png?expires=<unix ms>&sig=<hex>`,
 * served through the gateway's public files route (kit/src/ingress.ts) without an API key. `sig` is
 * HMAC-SHA256 over `<id>.<expires>` with WEB_SIGNING_KEY, compared in constant time: a link cannot
 * be extended or pointed at another screenshot. Expired ones are never served (410) and are deleted,
 * bytes and row, when the tenant stores its next screenshot. Any replica serves any screenshot.
 */
import { createHash } from "node:crypto";
import { filesBase, type IngressRequest, type IngressResponse, publicAnswer } from "@gantry/kit";
import type { Page } from "playwright-core";
import type { Context } from "./context.ts";
import { newId } from "./ids.ts";

/** Full-page screenshots are cut at this height (px), so one stays a reasonable download. */
export const MAX_FULL_PAGE_HEIGHT = 10_000;

/** The blob key of a screenshot's PNG (per tenant in the store). */
export function screenshotKey(id: string): string {
  return `screenshots/${id}.png`;
}

function pngSize(png: Buffer): { width: number; height: number } {
  // IHDR: width and height are the big-endian words at bytes 16 and 20.
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Takes a PNG of `page` (the viewport, or the full page up to MAX_FULL_PAGE_HEIGHT), stores it, answers the catalogue's screenshot object. */
export async function takeScreenshot(
  ctx: Context,
  page: Page,
  tenant: string,
  baseUrl: string | undefined,
  fullPage: boolean,
) {
  let png: Buffer;
  if (fullPage) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const width = page.viewportSize()?.width ?? 1366;
    png = await page.screenshot({
      type: "png",
      fullPage: true,
      clip: { x: 0, y: 0, width, height: Math.max(1, Math.min(height, MAX_FULL_PAGE_HEIGHT)) },
    });
  } else png = await page.screenshot({ type: "png" });
  const now = ctx.now();
  const id = newId("screenshot", now);
  const expires = now + ctx.config.WEB_SCREENSHOT_TTL_SECONDS * 1000;
  const sha256 = createHash("sha256").update(png).digest("hex");
  const { width, height } = pngSize(png);
  const expired = await ctx.db.screenshot.findMany({
    where: { tenant, expiresAt: { lt: new Date(now) } },
    select: { id: true },
  });
  for (const { id: old } of expired) await ctx.blobs.delete(tenant, screenshotKey(old));
  if (expired.length) await ctx.db.screenshot.deleteMany({ where: { id: { in: expired.map((e) => e.id) } } });
  await ctx.blobs.put(tenant, screenshotKey(id), png, { contentType: "image/png", expires });
  await ctx.db.screenshot.create({
    data: {
      id,
      tenant,
      sha256,
      width,
      height,
      createdAt: new Date(now),
      expiresAt: new Date(expires),
    },
  });
  const base = `${filesBase(baseUrl, "web")}/screenshots`;
  return {
    id,
    url: `${base}/${id}.png?expires=${expires}&sig=${ctx.signer.sign(id, expires)}`,
    contentType: "image/png",
    width,
    height,
    bytes: png.length,
    sha256,
    expires: new Date(expires).toISOString(),
  };
}

/** `GET /v1/files/web/screenshots/<id>.png?expires=…&sig=…` (system scope: the signature is the authorisation). */
export async function filesIngress(ctx: Context, req: IngressRequest): Promise<IngressResponse> {
  const m = /^\/screenshots\/(art_[A-Za-z0-9]+)\.png$/.exec(req.path);
  if (req.route !== "files" || !m) return publicAnswer(404, "Not found.\n");
  const id = m[1];
  const query = new URLSearchParams(req.query);
  const expires = Number(query.get("expires"));
  if (!Number.isSafeInteger(expires) || !ctx.signer.verify(id, expires, query.get("sig") ?? ""))
    return publicAnswer(403, "This screenshot link is not valid.\n");
  if (expires <= ctx.now()) return publicAnswer(410, "This screenshot link has expired; take the screenshot again.\n");
  const row = await ctx.db.screenshot.findFirst({ where: { id } });
  const blob = row ? await ctx.blobs.get(row.tenant, screenshotKey(id)) : null;
  if (!row || !blob) return publicAnswer(404, "This screenshot no longer exists.\n");
  return publicAnswer(200, blob.bytes, { "content-type": "image/png", "cache-control": "private, no-store" });
}
