/**
 * @module content/files
 * What the content service serves without an API key, through the gateway's public
 * `GET /v1/files/content/…` (kit/src/ingress.ts, HttpIngress):
 *
 * - `/artifacts/<id>/<filename>?expires=…&sig=…`: a document's bytes, while its signed link is
 *   valid (403 for a bad signature, 410 once expired, 404 when gone);
 * - `/help/<tenant>/<product>/…`: the static help centres guide.publish builds (index, one page per
 *   guide, `manifest.json`).
 *
 * Nothing else is served; both are read from the blob store (kit/src/blob), so any replica answers.
 * Requests arrive in system scope: the signature (or the public help centre) is the authorisation,
 * and the artifact id names one row. Every answer carries a
 * `default-src 'none'` content security policy: these pages share the API's origin, so no script
 * of theirs may run there.
 */
import { GantryError, type IngressRequest, type IngressResponse, isBlobKey, publicAnswer } from "@gantry/kit";
import type { Context } from "./context.ts";
import { liveFile, PRODUCT } from "./guides.ts";

async function artifact(ctx: Context, id: string, query: URLSearchParams): Promise<IngressResponse> {
  const expires = Number(query.get("expires"));
  const sig = query.get("sig") ?? "";
  if (
    !/^art_[A-Za-z0-9]+$/.test(id) ||
    !Number.isSafeInteger(expires) ||
    !ctx.artifacts.signer.verify(id, expires, sig)
  )
    return publicAnswer(403, "This download link is not valid.\n");
  if (expires <= ctx.now()) return publicAnswer(410, "This download link has expired; generate the document again.\n");
  const row = await ctx.db.artifact.findFirst({ where: { id } });
  const blob = row ? await ctx.blobs.get(row.tenant, row.storageKey) : null;
  if (!row || !blob) return publicAnswer(404, "This document no longer exists.\n");
  return publicAnswer(200, blob.bytes, {
    "content-type": row.contentType,
    "content-disposition": `attachment; filename="${row.filename.replace(/["\\\r\n]/g, "_")}"`,
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data: https:",
    "cache-control": "private, no-store",
  });
}

async function help(ctx: Context, parts: string[]): Promise<IngressResponse> {
  const [tenant, product, ...rest] = parts;
  const notFound = publicAnswer(404, "Not found.\n");
  if (!tenant || !product || !PRODUCT.test(product)) return notFound;
  // A path names a file of the build, or a folder whose index.html is served.
  const path = rest.join("/");
  const candidates = path === "" ? ["index.html"] : [path, `${path}/index.html`];
  for (const candidate of candidates) {
    if (!isBlobKey(candidate)) continue;
    const key = await liveFile(ctx.blobs, tenant, product, candidate);
    if (!key) return notFound;
    const blob = await ctx.blobs.get(tenant, key);
    if (blob)
      return publicAnswer(200, blob.bytes, {
        "content-type": blob.contentType,
        "cache-control": "public, max-age=60",
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:",
      });
  }
  return notFound;
}

/** The content service's HttpIngress handler (`GET /v1/files/content/…` at the gateway). */
export async function filesIngress(ctx: Context, req: IngressRequest): Promise<IngressResponse> {
  if (req.route !== "files") throw new GantryError("not_found", "The content service takes no webhooks.");
  let parts: string[];
  try {
    parts = req.path.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return publicAnswer(400, "Bad path.\n");
  }
  if (parts[0] === "artifacts" && parts.length >= 2) return artifact(ctx, parts[1], new URLSearchParams(req.query));
  if (parts[0] === "help") return help(ctx, parts.slice(1));
  return publicAnswer(404, "Not found.\n");
}
