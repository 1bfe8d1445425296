/**
 * @module kit/blob/s3
 * The blob store's S3 driver, for any S3-compatible server (`@aws-sdk/client-s3`). Credentials come
 * from the SDK's standard chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a web identity token, an
 * instance role), so no secret passes through Gantry's configuration or logs.
 *
 * Layout under the service's prefix (`<BLOB_S3_PREFIX><service>/`):
 * - `t/<tenant, URI-encoded>/<key>`: the blob, its content type as the object's, its expiry (unix
 *   ms) as the `expires` metadata. Encoding the tenant keeps `acme/shop1`'s keys out of `acme`'s.
 * - `x/<expiry, 15 digits>/<tenant, URI-encoded>/<key>`: an empty marker per expiring blob. S3 lists
 *   keys in byte order, so the sweep reads markers oldest first and stops at the first one still in
 *   the future, instead of reading every object's metadata.
 *
 * The sweep deletes a blob only when the blob itself says it has expired (a blob put again with a
 * later expiry, or none, survives its old marker), then the marker. Deleting twice is harmless, so
 * replicas may sweep at once.
 */
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import type { Clock } from "../clock.ts";
import { GantryError } from "../errors.ts";
import { checkKey, checkPrefix, checkScope, checkSystem } from "./checks.ts";
import type { Blob, BlobInfo, BlobStore, PutOptions } from "./types.ts";

export interface S3BlobStoreOptions {
  bucket: string;
  /** Ends with `/` (or is empty). */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  now: Clock;
}

const MARKERS = "x/";

function missing(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    (err.name === "NoSuchKey" || err.name === "NotFound" || err.$metadata.httpStatusCode === 404)
  );
}

/** A failed call to the store: the caller may retry (503), the cause goes to the log, not the answer. */
function unavailable(op: string, err: unknown): GantryError {
  const what = err instanceof S3ServiceException ? `${err.name} (HTTP ${err.$metadata.httpStatusCode})` : "no answer";
  return new GantryError("unavailable", `The blob store (S3) failed to ${op}: ${what}.`, {
    cause: err,
    retryAfterMs: 1000,
  });
}

export class S3BlobStore implements BlobStore {
  readonly driver = "s3" as const;
  readonly #s3: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #now: Clock;

  constructor(opts: S3BlobStoreOptions) {
    this.#s3 = new S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle,
      // Checksums only where S3 requires them: several self-hosted servers reject the SDK's
      // default of sending CRC32 trailers on every upload.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    this.#bucket = opts.bucket;
    this.#prefix = opts.prefix;
    this.#now = opts.now;
  }

  #tenantPrefix(tenant: string): string {
    return `${this.#prefix}t/${encodeURIComponent(tenant)}/`;
  }

  #marker(expires: number, tenant: string, key: string): string {
    return `${this.#prefix}${MARKERS}${String(expires).padStart(15, "0")}/${encodeURIComponent(tenant)}/${key}`;
  }

  /**
   * Deletes one object; one already gone is deleted too. S3 answers 204 for a missing key, but some
   * servers (versitygw) answer 404, which two replicas sweeping the same marker at once would
   * otherwise turn into a failed sweep.
   */
  async #deleteObject(op: string, key: string): Promise<void> {
    try {
      await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (err) {
      if (!missing(err)) throw unavailable(op, err);
    }
  }

  async #send<T>(op: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw unavailable(op, err);
    }
  }

  async put(tenant: string, key: string, bytes: Buffer, options: PutOptions = {}): Promise<void> {
    checkScope(tenant);
    checkKey(key);
    const expires = options.expires ?? null;
    // The marker first: a crash between the two leaves a marker the sweep drops, never a blob
    // that no sweep would find.
    if (expires !== null)
      await this.#send("store an expiry marker", () =>
        this.#s3.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: this.#marker(expires, tenant, key),
            Body: new Uint8Array(),
          }),
        ),
      );
    await this.#send("store a blob", () =>
      this.#s3.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.#tenantPrefix(tenant) + key,
          Body: bytes,
          ContentType: options.contentType ?? "application/octet-stream",
          Metadata: expires === null ? {} : { expires: String(expires) },
        }),
      ),
    );
  }

  #live(meta: Record<string, string> | undefined): { live: boolean; expires: number | null } {
    const raw = meta?.expires;
    const expires = raw && /^\d+$/.test(raw) ? Number(raw) : null;
    return { live: expires === null || expires > this.#now(), expires };
  }

  async get(tenant: string, key: string): Promise<Blob | null> {
    checkScope(tenant);
    checkKey(key);
    try {
      const res = await this.#s3.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.#tenantPrefix(tenant) + key }),
      );
      const { live, expires } = this.#live(res.Metadata);
      if (!live) {
        await res.Body?.transformToByteArray().catch(() => {});
        return null;
      }
      const bytes = Buffer.from((await res.Body?.transformToByteArray()) ?? []);
      return { key, size: bytes.length, contentType: res.ContentType ?? "application/octet-stream", expires, bytes };
    } catch (err) {
      if (missing(err)) return null;
      throw unavailable("read a blob", err);
    }
  }

  async stat(tenant: string, key: string): Promise<BlobInfo | null> {
    checkScope(tenant);
    checkKey(key);
    try {
      const res = await this.#s3.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#tenantPrefix(tenant) + key }),
      );
      const { live, expires } = this.#live(res.Metadata);
      if (!live) return null;
      return { key, size: res.ContentLength ?? 0, contentType: res.ContentType ?? "application/octet-stream", expires };
    } catch (err) {
      if (missing(err)) return null;
      throw unavailable("read a blob's metadata", err);
    }
  }

  async #listRaw(prefix: string, each: (key: string, size: number) => boolean | undefined): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.#send("list blobs", () =>
        this.#s3.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token })),
      );
      for (const o of page.Contents ?? []) if (o.Key && each(o.Key, o.Size ?? 0) === false) return;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async list(tenant: string, prefix: string): Promise<Array<{ key: string; size: number }>> {
    checkScope(tenant);
    checkPrefix(prefix);
    const base = this.#tenantPrefix(tenant);
    const out: Array<{ key: string; size: number }> = [];
    await this.#listRaw(base + prefix, (key, size) => {
      out.push({ key: key.slice(base.length), size });
      return undefined;
    });
    return out;
  }

  async delete(tenant: string, key: string): Promise<void> {
    checkScope(tenant);
    checkKey(key);
    await this.#deleteObject("delete a blob", this.#tenantPrefix(tenant) + key);
  }

  async deletePrefix(tenant: string, prefix: string): Promise<number> {
    checkScope(tenant);
    checkPrefix(prefix);
    const keys: string[] = [];
    await this.#listRaw(this.#tenantPrefix(tenant) + prefix, (key) => {
      keys.push(key);
      return undefined;
    });
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const res = await this.#send("delete blobs", () =>
        this.#s3.send(
          new DeleteObjectsCommand({
            Bucket: this.#bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        ),
      );
      const failed = res.Errors?.find((e) => e.Code !== "NoSuchKey");
      if (failed) throw unavailable("delete blobs", new Error(failed.Code ?? "DeleteObjects error"));
    }
    return keys.length;
  }

  async sweep(limit = 500): Promise<number> {
    checkSystem("sweep");
    const now = this.#now();
    const base = `${this.#prefix}${MARKERS}`;
    const due: Array<{ marker: string; blob: string }> = [];
    await this.#listRaw(base, (marker) => {
      const m = /^(\d{15})\/([^/]+)\/(.+)$/.exec(marker.slice(base.length));
      if (m && Number(m[1]) > now) return false;
      due.push({ marker, blob: m ? `${this.#prefix}t/${m[2]}/${m[3]}` : "" });
      return due.length < limit;
    });
    let deleted = 0;
    for (const { marker, blob } of due) {
      if (blob) {
        let expired = false;
        try {
          const head = await this.#s3.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: blob }));
          expired = !this.#live(head.Metadata).live;
        } catch (err) {
          if (!missing(err)) throw unavailable("read a blob's metadata", err);
        }
        if (expired) {
          await this.#deleteObject("delete a blob", blob);
          deleted++;
        }
      }
      await this.#deleteObject("delete an expiry marker", marker);
    }
    return deleted;
  }
}
