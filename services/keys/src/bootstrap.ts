/**
 * @module keys/bootstrap
 * Makes sure an admin key exists at start. `GANTRY_ADMIN_KEY`, when set, is registered (idempotently)
 * as an admin key of tenant `platform` holding everything (FIRST_KEY_GRANT: scope, collections and
 * products `*`, sub-tenants), so the first steps need no second key. When unset, a key is generated the first time
 * only, stored as its hash, and printed once: there is no way to show it again, only to set
 * `GANTRY_ADMIN_KEY` or rotate.
 *
 * Runs from the service's `init`, in system scope: it looks the key up by hash across tenants and
 * writes a row of tenant `platform`.
 */
import {
  generateKey,
  hashKey,
  isUniqueViolation,
  isWellFormedKey,
  keyPrefix,
  newKeyId,
  type Logger,
} from "@gantry/kit";
import type pg from "pg";
import type { PrismaClient } from "./db.ts";

export const PLATFORM_TENANT = "platform";

/**
 * What the first admin key holds: every ability, every memory collection, every product and the
 * sub-tenant flag. Keys it issues are narrowed by their own input. Bootstrap keys made before this
 * grant existed are widened by the migration 20261228000000_bootstrap_key_grants.
 */
export const FIRST_KEY_GRANT = {
  scopes: ["*"],
  collections: ["*"],
  products: ["*"],
  subTenants: true,
  admin: true,
} as const;

export async function ensureAdminKey(
  db: PrismaClient,
  pool: pg.Pool,
  configured: string | undefined,
  log: Logger,
): Promise<void> {
  if (configured !== undefined) {
    if (!isWellFormedKey(configured)) {
      throw new Error(
        "GANTRY_ADMIN_KEY is not a well-formed Gantry key (gk_ + 36 base62 characters with a valid checksum); generate one with `npm run new-key`",
      );
    }
    const secretHash = hashKey(configured);
    const existing = await db.apiKey.findFirst({ where: { secretHash } });
    if (existing) {
      if (existing.status !== "active")
        log.warn({ keyId: existing.id }, "GANTRY_ADMIN_KEY is registered but revoked; it will not authenticate");
      return;
    }
    await db.apiKey
      .create({
        data: {
          id: newKeyId(),
          tenant: PLATFORM_TENANT,
          name: "admin (GANTRY_ADMIN_KEY)",
          prefix: keyPrefix(configured),
          secretHash,
          ...grant(),
          origin: "bootstrap-env",
          events: { create: { kind: "issued", reason: "registered from GANTRY_ADMIN_KEY at start" } },
        },
      })
      .catch((err: unknown) => {
        // Another replica registered it between our read and write.
        if (!isUniqueViolation(err)) throw err;
      });
    log.info({ prefix: keyPrefix(configured) }, "admin key from GANTRY_ADMIN_KEY registered");
    return;
  }
  // Replicas starting together must not each mint a key: serialise on an advisory lock.
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('gantry-admin-bootstrap'))");
    const existing = await db.apiKey.findFirst({ where: { origin: "bootstrap" } });
    if (existing) {
      log.info(
        { keyId: existing.id, prefix: existing.prefix },
        "admin key exists (it was printed when it was generated; set GANTRY_ADMIN_KEY to choose your own)",
      );
      return;
    }
    const raw = generateKey();
    const id = newKeyId();
    await db.apiKey.create({
      data: {
        id,
        tenant: PLATFORM_TENANT,
        name: "admin (generated)",
        prefix: keyPrefix(raw),
        secretHash: hashKey(raw),
        ...grant(),
        origin: "bootstrap",
        events: { create: { kind: "issued", reason: "generated at first start" } },
      },
    });
    // The only time this secret is ever written anywhere. It bypasses the logger's redaction on
    // purpose, on stdout only, so the operator can copy it.
    process.stdout.write(
      `${JSON.stringify({
        level: "warn",
        service: "keys",
        time: new Date().toISOString(),
        msg: "generated admin key (shown once; store it now)",
        adminKey: raw,
        keyId: id,
      })}\n`,
    );
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext('gantry-admin-bootstrap'))").catch(() => {});
    client.release();
  }
}

/** FIRST_KEY_GRANT with mutable lists, as the Prisma client takes them. */
function grant() {
  const g = FIRST_KEY_GRANT;
  return { ...g, scopes: [...g.scopes], collections: [...g.collections], products: [...g.products] };
}
