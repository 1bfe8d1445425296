/**
 * @module content/artifacts
 * Rendered documents: their bytes are blobs in the kit's blob store (kit/src/blob: Postgres by
 * default, S3 by setting) under `artifacts/<id>.<format>`, stored with the link's expiry so the
 * store stops serving them then and its sweep deletes them; `content.artifacts` holds the record.
 * Any replica serves a download another rendered.
 *
 * A link is `<gateway>/v1/files/content/artifacts/<id>/<filename>?expires=<unix ms>&sig=<hex>`, where `sig` is
 * HMAC-SHA256 over `<id>.<expires>` with the signing key (kit/src/signed-links.ts): it cannot be
 * extended or moved to another artifact, it is compared in constant time, and it stops working at
 * `expires`.
 */
import { LinkSigner } from "@gantry/kit";

/** The blob key of an artifact's bytes (per tenant in the store). */
export function artifactKey(id: string, format: string): string {
  return `artifacts/${id}.${format}`;
}

export class ArtifactStore {
  readonly signer: LinkSigner;

  constructor(key: Buffer) {
    this.signer = new LinkSigner(key);
  }

  /** The signed download URL of an artifact under `base` (kit `filesBase`), valid until `expires` (unix ms). */
  url(base: string, id: string, filename: string, expires: number): string {
    return `${base}/artifacts/${id}/${encodeURIComponent(filename)}?expires=${expires}&sig=${this.signer.sign(id, expires)}`;
  }
}
