/**
 * @module keys/legacy
 * The legacy credential store: keys given through the environment variable `GANTRY_LEGACY_KEYS` so
 * deployments that predate stored keys keep working while they migrate. They are held in memory by
 * the SHA-256 of their secret (the raw secret is dropped after parsing), resolved by `ResolveKey`
 * after the database (or instead of it, for bearers that are not `gk_` keys), and every request
 * authenticated with one is counted (`legacy_usage`, shown to admins by key.list).
 *
 * Two formats, told apart by the first character:
 *
 * - JSON array: `[{"tenant":"acme","secret":"s3cr3t-…","scopes":["contact.*"],"name":"old app",
 *   "collections":["support"],"products":["shop"],"subTenants":false,"admin":false}]`
 *   (`tenant`, `secret`, `scopes` required; the rest optional).
 * - Compact: `tenant:secret:scope1|scope2` entries separated by `;` or newlines, e.g.
 *   `acme:s3cr3t-0123456789:contact.*|task.create;globex:an0ther-s3cret-xyz:*`. Secrets containing
 *   `:`, `;`, `|` or whitespace need the JSON form.
 *
 * Rules (a violation stops the service at start with the entry's number, never its secret): tenant
 * like any tenant id; secret 16–512 printable ASCII characters without whitespace, unique; a secret
 * starting with `gk_` must be a well-formed Gantry key; scopes 1..200 well-formed scopes. Ids are
 * `key_legacy_<hash of tenant and name>` (name defaults to `legacy <n>`, so give names for ids that
 * survive reordering). Legacy keys never expire and use the deployment's default rate limit; they are
 * retired by removing them from the variable (key.revoke / key.rotate refuse them).
 *
 * @example
 * const store = LegacyStore.fromEnv("acme:s3cr3t-0123456789abc:contact.*");
 * store.byHash(hashKey("s3cr3t-0123456789abc"))?.tenant; // "acme"
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  hashKey,
  isLegacySecretShape,
  isWellFormedKey,
  KEY_PREFIX,
  LEGACY_SECRET_MAX_LENGTH,
  type KeyRecord,
} from "@gantry/kit";
import { isWellFormedScope } from "@gantry/proto/catalogue";
import { TENANT_PATTERN, COLLECTION_PATTERN, SLUG_PATTERN, grantPattern } from "@gantry/proto/catalogue/schema.ts";

export const LEGACY_ENV = "GANTRY_LEGACY_KEYS";
export const LEGACY_ID_PREFIX = "key_legacy_";

export interface LegacyKey {
  id: string;
  tenant: string;
  name: string;
  /** First characters of the secret, enough to recognise it. */
  prefix: string;
  secretHash: string;
  scopes: string[];
  collections: string[];
  products: string[];
  admin: boolean;
  subTenants: boolean;
}

interface RawEntry {
  tenant?: unknown;
  secret?: unknown;
  scopes?: unknown;
  name?: unknown;
  collections?: unknown;
  products?: unknown;
  subTenants?: unknown;
  admin?: unknown;
}

const ENTRY_FIELDS = new Set(["tenant", "secret", "scopes", "name", "collections", "products", "subTenants", "admin"]);

/** Parses `GANTRY_LEGACY_KEYS`; throws an Error naming the entry (never the secret) on a bad value. */
export function parseLegacyKeys(value: string | undefined): LegacyKey[] {
  const text = value?.trim() ?? "";
  if (text === "") return [];
  let entries: RawEntry[];
  if (text.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(
        `${LEGACY_ENV}: not valid JSON (a JSON array of {tenant, secret, scopes, …} objects, or the compact tenant:secret:scope1|scope2;… form)`,
      );
    }
    if (!Array.isArray(parsed) || parsed.some((e) => e === null || typeof e !== "object" || Array.isArray(e))) {
      throw new Error(`${LEGACY_ENV}: the JSON form must be an array of objects`);
    }
    entries = parsed as RawEntry[];
  } else {
    entries = text
      .split(/[;\n]/)
      .map((s) => s.trim())
      .filter((s) => s !== "")
      .map((s, i) => {
        const parts = s.split(":");
        if (parts.length !== 3)
          throw new Error(`${LEGACY_ENV}: entry ${i + 1} must be tenant:secret:scope1|scope2 (exactly two colons)`);
        return { tenant: parts[0], secret: parts[1], scopes: parts[2].split("|").filter((x) => x !== "") };
      });
  }

  const out: LegacyKey[] = [];
  const seenHashes = new Set<string>();
  const seenIds = new Map<string, number>();
  entries.forEach((e, i) => {
    const n = i + 1;
    const where = `${LEGACY_ENV}: entry ${n}`;
    for (const k of Object.keys(e))
      if (!ENTRY_FIELDS.has(k))
        throw new Error(`${where}: unknown field "${k}" (allowed: ${[...ENTRY_FIELDS].join(", ")})`);
    if (typeof e.tenant !== "string" || !new RegExp(TENANT_PATTERN).test(e.tenant) || e.tenant.length > 128)
      throw new Error(`${where}: tenant must be a tenant id (letters, digits, . _ -, nested with /)`);
    if (typeof e.secret !== "string" || !isLegacySecretShape(e.secret))
      throw new Error(
        `${where}: secret must be 16-${LEGACY_SECRET_MAX_LENGTH} printable ASCII characters without whitespace`,
      );
    if (e.secret.startsWith(KEY_PREFIX) && !isWellFormedKey(e.secret))
      throw new Error(
        `${where}: a secret starting with ${KEY_PREFIX} must be a well-formed Gantry key (checksum); it could never authenticate`,
      );
    const scopes = stringList(e.scopes, `${where}: scopes`, 200, isWellFormedScope);
    if (scopes.length === 0) throw new Error(`${where}: scopes must list at least one scope`);
    const collections =
      e.collections === undefined
        ? []
        : stringList(e.collections, `${where}: collections`, 100, (s) =>
            new RegExp(grantPattern(COLLECTION_PATTERN)).test(s),
          );
    const products =
      e.products === undefined
        ? []
        : stringList(e.products, `${where}: products`, 100, (s) => new RegExp(grantPattern(SLUG_PATTERN)).test(s));
    if (
      e.name !== undefined &&
      (typeof e.name !== "string" || e.name.length === 0 || e.name.length > 100 || /[\r\n]/.test(e.name))
    )
      throw new Error(`${where}: name must be one line of 1-100 characters`);
    for (const f of ["subTenants", "admin"] as const)
      if (e[f] !== undefined && typeof e[f] !== "boolean") throw new Error(`${where}: ${f} must be a boolean`);
    const name = (e.name as string | undefined) ?? `legacy ${n}`;
    const secretHash = hashKey(e.secret);
    if (seenHashes.has(secretHash)) throw new Error(`${where}: the same secret appears twice`);
    seenHashes.add(secretHash);
    const id = LEGACY_ID_PREFIX + createHash("sha256").update(`${e.tenant}\0${name}`).digest("hex").slice(0, 20);
    const other = seenIds.get(id);
    if (other !== undefined)
      throw new Error(`${where}: same tenant and name as entry ${other}; give each a distinct name`);
    seenIds.set(id, n);
    out.push({
      id,
      tenant: e.tenant,
      name,
      prefix: e.secret.slice(0, 4),
      secretHash,
      scopes,
      collections,
      products,
      admin: e.admin === true,
      subTenants: e.subTenants === true,
    });
  });
  return out;
}

function stringList(value: unknown, what: string, max: number, ok: (s: string) => boolean): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new Error(`${what} must be a list of strings`);
  if (value.length > max) throw new Error(`${what}: at most ${max}`);
  const bad = (value as string[]).findIndex((v) => !ok(v));
  if (bad >= 0) throw new Error(`${what}: item ${bad + 1} is not well formed`);
  return [...new Set(value as string[])];
}

export class LegacyStore {
  private readonly hashes = new Map<string, LegacyKey>();
  private readonly ids = new Map<string, LegacyKey>();
  readonly keys: readonly LegacyKey[];

  constructor(keys: LegacyKey[]) {
    this.keys = keys;
    for (const k of keys) {
      this.hashes.set(k.secretHash, k);
      this.ids.set(k.id, k);
    }
  }

  static fromEnv(value: string | undefined): LegacyStore {
    return new LegacyStore(parseLegacyKeys(value));
  }

  get size(): number {
    return this.keys.length;
  }

  /** The legacy key with this secret hash. The map finds the candidate; the final comparison is constant-time. */
  byHash(secretHash: string): LegacyKey | undefined {
    const k = this.hashes.get(secretHash);
    if (!k) return undefined;
    const a = Buffer.from(k.secretHash);
    const b = Buffer.from(secretHash);
    return a.length === b.length && timingSafeEqual(a, b) ? k : undefined;
  }

  byId(id: string): LegacyKey | undefined {
    return this.ids.get(id);
  }
}

export function isLegacyId(id: string): boolean {
  return id.startsWith(LEGACY_ID_PREFIX);
}

export function legacyToWire(k: LegacyKey): KeyRecord {
  return {
    id: k.id,
    tenant: k.tenant,
    name: k.name,
    prefix: k.prefix,
    status: "active",
    scopes: k.scopes,
    collections: k.collections,
    products: k.products,
    admin: k.admin,
    sub_tenants: k.subTenants,
    expires_at_ms: 0,
    created_at_ms: 0,
    rate_limit: null,
    source: "legacy",
    sunset_at_ms: 0,
  };
}
