/**
 * @module kit/blob/types
 * What a blob store promises (store.ts describes the store and chooses the driver). Apart from
 * store.ts so that the drivers, which store.ts loads, need not import it back.
 */
export interface BlobInfo {
  key: string;
  size: number;
  contentType: string;
  /** Unix ms after which the blob is gone, or null when it does not expire. */
  expires: number | null;
}

export interface Blob extends BlobInfo {
  bytes: Buffer;
}

export interface PutOptions {
  /** Default `application/octet-stream`. */
  contentType?: string;
  /** Unix ms; after it the blob is not served and the sweep deletes it. */
  expires?: number | null;
}

export interface BlobStore {
  readonly driver: "postgres" | "s3";
  /** Stores `bytes` under (tenant, key), replacing what was there. */
  put(tenant: string, key: string, bytes: Buffer, options?: PutOptions): Promise<void>;
  /** The blob, or null when there is none or it has expired. */
  get(tenant: string, key: string): Promise<Blob | null>;
  /** What `get` would answer, without the bytes. */
  stat(tenant: string, key: string): Promise<BlobInfo | null>;
  /** The tenant's keys starting with `prefix`, in key order (a blob past its expiry may be listed until swept). */
  list(tenant: string, prefix: string): Promise<Array<{ key: string; size: number }>>;
  /** Deletes one blob; deleting what is not there is not an error. */
  delete(tenant: string, key: string): Promise<void>;
  /** Deletes every blob of the tenant whose key starts with `prefix`; answers how many. */
  deletePrefix(tenant: string, prefix: string): Promise<number>;
  /**
   * Deletes up to `limit` expired blobs of every tenant (system scope); answers how many it found
   * (with S3, two replicas sweeping at once may both count one blob).
   */
  sweep(limit?: number): Promise<number>;
}
