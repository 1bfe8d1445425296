/**
 * @module content/artifacts
 * Where rendered documents' bytes live, behind a small object-store interface (`put`, `get`,
 * `delete` by key) with a filesystem default under `<CONTENT_DATA_DIR>/artifacts/`, and the signed,
 * expiring download links that serve them without an API key.
 *
 * A link is `<gateway>/v1/files/content/artifacts/<id>/<filename>?expires=<unix ms>&sig=<hex>`, where `sig` is
 * HMAC-SHA256 over `<id>.<expires>` with the signing key: it cannot be extended or moved to another
 * artifact, it is compared in constant time, and it stops working at `expires` (and the sweep
 * deletes the bytes then).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigError } from "@gantry/kit";

export interface ObjectStore {
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes, or null when the key holds nothing. */
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/** The filesystem default: one file per key under `root`. Keys are ours (`<tenant hash>/<art id>`), checked anyway. */
export class FilesystemStore implements ObjectStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  #path(key: string): string {
    if (!KEY.test(key) || key.includes("..")) throw new Error(`invalid object key ${JSON.stringify(key)}`);
    return join(this.root, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.#path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }
}

export class ArtifactStore {
  readonly #key: Buffer;
  readonly objects: ObjectStore;

  constructor(objects: ObjectStore, key: Buffer) {
    this.objects = objects;
    this.#key = key;
  }

  #sig(id: string, expires: number): string {
    return createHmac("sha256", this.#key).update(`${id}.${expires}`).digest("hex");
  }

  /** The signed download URL of an artifact under `base` (files.ts `filesBase`), valid until `expires` (unix ms). */
  url(base: string, id: string, filename: string, expires: number): string {
    return `${base}/artifacts/${id}/${encodeURIComponent(filename)}?expires=${expires}&sig=${this.#sig(id, expires)}`;
  }

  /** Whether `sig` is the signature of (id, expires); constant-time. */
  verify(id: string, expires: number, sig: string): boolean {
    const want = Buffer.from(this.#sig(id, expires), "hex");
    const got = Buffer.from(/^[0-9a-f]{64}$/.test(sig) ? sig : "", "hex");
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

/** The signing key: CONTENT_SIGNING_KEY, required in production; elsewhere a random per-process key. */
export function signingKey(
  configured: string | undefined,
  nodeEnv: string | undefined,
): { key: Buffer; random: boolean } {
  if (configured) {
    if (configured.length < 32) throw new ConfigError("content: CONTENT_SIGNING_KEY must be at least 32 characters");
    return { key: Buffer.from(configured, "utf8"), random: false };
  }
  if (nodeEnv === "production")
    throw new ConfigError(
      "content: CONTENT_SIGNING_KEY is required when NODE_ENV=production (download links must survive restarts and agree across replicas)",
    );
  return { key: randomBytes(32), random: true };
}
