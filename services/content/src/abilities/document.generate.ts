/**
 * @module content/abilities/document.generate
 * Markdown → a styled HTML page (document.ts, the tenant theme) and, for `pdf`, that page printed
 * by headless Chromium (pdf.ts). The file is stored as an artifact (`art_…`, a blob in the kit's blob store, artifacts.ts) and
 * answered with a signed download URL that expires after CONTENT_ARTIFACT_TTL_SECONDS. A render
 * larger than CONTENT_MAX_DOCUMENT_BYTES is refused (413) and nothing is stored.
 */
import { createHash } from "node:crypto";
import { GantryError, filesBase } from "@gantry/kit";
import { artifactKey } from "../artifacts.ts";
import { ability } from "../context.ts";
import { documentHtml } from "../document.ts";
import { newId } from "../ids.ts";
import { markdownToHtml } from "../markdown.ts";
import { resolveTheme } from "../theme.ts";

function slugify(title: string): string {
  const s = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|(?<!-)-+$/g, "")
    .slice(0, 80);
  return s || "document";
}

export default ability("document.generate", async (input, call, ctx) => {
  const format = input.format;
  const html = documentHtml(input.title, markdownToHtml(input.markdown), resolveTheme(input.theme));
  let bytes: Buffer;
  let pages: number | null = null;
  if (format === "pdf") {
    const out = await ctx.pdf.render(html);
    bytes = out.pdf;
    pages = out.pages;
  } else bytes = Buffer.from(html, "utf8");
  const limit = ctx.config.CONTENT_MAX_DOCUMENT_BYTES;
  if (bytes.length > limit)
    throw new GantryError(
      "payload_too_large",
      `The rendered document is ${bytes.length} bytes, over the limit of ${limit}; shorten /input/markdown or split it into several documents.`,
    );

  const id = newId("artifact");
  const created = ctx.now();
  const expires = created + ctx.config.CONTENT_ARTIFACT_TTL_SECONDS * 1000;
  const filename = `${input.filename ?? slugify(input.title)}.${format}`;
  const contentType = format === "pdf" ? "application/pdf" : "text/html; charset=utf-8";
  const storageKey = artifactKey(id, format);
  const digest = createHash("sha256").update(bytes).digest("hex");
  await ctx.blobs.put(call.tenant, storageKey, bytes, { contentType, expires });
  try {
    await ctx.db.artifact.create({
      data: {
        id,
        tenant: call.tenant,
        title: input.title,
        format,
        filename,
        contentType,
        bytes: bytes.length,
        pages,
        sha256: digest,
        storageKey,
        requestId: call.requestId,
        createdAt: new Date(created),
        expiresAt: new Date(expires),
      },
    });
  } catch (err) {
    await ctx.blobs.delete(call.tenant, storageKey).catch(() => {});
    throw err;
  }
  return {
    id,
    title: input.title,
    format,
    filename,
    contentType,
    bytes: bytes.length,
    pages,
    sha256: digest,
    url: ctx.artifacts.url(filesBase(call.baseUrl, "content"), id, filename, expires),
    expires: new Date(expires).toISOString(),
    created: new Date(created).toISOString(),
  };
});
