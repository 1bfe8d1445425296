/**
 * @module kit/signed-links
 * Links a service hands out for files served without an API key through the gateway's
 * `GET /v1/files/<service>/…` (kit/src/ingress.ts): `<base>/…/<id>…?expires=<unix ms>&sig=<hex>`,
 * where `sig` is HMAC-SHA256 over `<id>.<expires>` with the service's signing key, compared in
 * constant time, so a link can be neither extended nor pointed at another file. One scheme for
 * every service (content's documents, web's screenshots).
 *
 * @example
 * const signer = new LinkSigner(linkSigningKey("web", "WEB_SIGNING_KEY", config.WEB_SIGNING_KEY, config.NODE_ENV).key);
 * const url = `${filesBase(call.baseUrl, "web")}/screenshots/${id}.png?expires=${exp}&sig=${signer.sign(id, exp)}`;
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { ConfigError } from "./config.ts";

export class LinkSigner {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  /** The signature of (id, expires), hex. */
  sign(id: string, expires: number): string {
    return createHmac("sha256", this.#key).update(`${id}.${expires}`).digest("hex");
  }

  /** Whether `sig` is the signature of (id, expires); constant-time. */
  verify(id: string, expires: number, sig: string): boolean {
    const want = Buffer.from(this.sign(id, expires), "hex");
    const got = Buffer.from(/^[0-9a-f]{64}$/.test(sig) ? sig : "", "hex");
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

/**
 * The signing key from `variable` (at least 32 characters). Required when NODE_ENV=production:
 * links must outlive a restart and verify on every replica. Elsewhere an unset key is a random
 * per-process one (`random: true`: say so in a warning).
 */
export function linkSigningKey(
  service: string,
  variable: string,
  configured: string | undefined,
  nodeEnv: string | undefined,
): { key: Buffer; random: boolean } {
  if (configured) {
    if (configured.length < 32) throw new ConfigError(`${service}: ${variable} must be at least 32 characters`);
    return { key: Buffer.from(configured, "utf8"), random: false };
  }
  if (nodeEnv === "production")
    throw new ConfigError(
      `${service}: ${variable} is required when NODE_ENV=production (links must survive restarts and agree across replicas)`,
    );
  return { key: randomBytes(32), random: true };
}

/** Where a service's public files are, as the caller's gateway serves them (no trailing slash). */
export function filesBase(baseUrl: string | undefined, service: string): string {
  return `${(baseUrl ?? "").replace(/(?<!\/)\/+$/, "")}/v1/files/${service}`;
}
