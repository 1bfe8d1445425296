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
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { LinkSigner } from "@gantry/kit";

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
  readonly objects: ObjectStore;
  readonly signer: LinkSigner;

  constructor(objects: ObjectStore, key: Buffer) {
    this.objects = objects;
    this.signer = new LinkSigner(key);
  }

  /** The signed download URL of an artifact under `base` (kit `filesBase`), valid until `expires` (unix ms). */
  url(base: string, id: string, filename: string, expires: number): string {
    return `${base}/artifacts/${id}/${encodeURIComponent(filename)}?expires=${expires}&sig=${this.signer.sign(id, expires)}`;
  }
}
