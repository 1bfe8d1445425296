/**
 * Test helpers for integration tests: a whole stack (real Postgres, NATS, services, gateway) per
 * test file, and keys inserted straight into the keys service's table so these tests do not depend
 * on key.issue.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import request from "supertest";
import { generateKey, hashKey, keyPrefix, newKeyId } from "@gantry/kit";
import { startStack, type Stack, type StackOptions } from "../runner/stack.ts";

export interface TestStack {
  stack: Stack;
  url: string;
  adminKey: string;
  db: pg.Pool;
  /** POST /v1/abilities/{id} */
  call: (ability: string, body: unknown, key?: string) => request.Test;
  insertKey: (fields?: Partial<KeyFields>) => Promise<{ id: string; key: string }>;
  stop: () => Promise<void>;
}

export interface KeyFields {
  tenant: string;
  name: string;
  scopes: string[];
  collections: string[];
  products: string[];
  admin: boolean;
  subTenants: boolean;
  rateLimit: number | null;
  rateWindowSeconds: number | null;
  expiresAt: Date | null;
}

export async function startTestStack(opts: Partial<StackOptions> = {}): Promise<TestStack> {
  const dataDir = mkdtempSync(join(tmpdir(), "gantry-test-"));
  const adminKey = generateKey();
  const stack = await startStack({
    port: 0,
    dataDir,
    quiet: true,
    ...opts,
    env: { GANTRY_ADMIN_KEY: adminKey, LOG_LEVEL: "info", GANTRY_CHECK_RESULTS: "1", ...opts.env },
  });
  const db = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 4 });
  // Postgres may be stopped on purpose by a test (an outage); idle clients then error, harmlessly.
  db.on("error", () => {});
  const url = stack.baseUrl;
  return {
    stack,
    url,
    adminKey,
    db,
    call: (ability, body, key = adminKey) =>
      request(url)
        .post(`/v1/abilities/${ability}`)
        .set("Authorization", `Bearer ${key}`)
        .send(body as object),
    insertKey: async (fields = {}) => {
      const key = generateKey();
      const id = newKeyId();
      const f: KeyFields = {
        tenant: "acme",
        name: "test",
        scopes: ["*"],
        collections: [],
        products: [],
        admin: false,
        subTenants: false,
        rateLimit: null,
        rateWindowSeconds: null,
        expiresAt: null,
        ...fields,
      };
      await db.query(
        `INSERT INTO keys.api_keys (id, tenant, name, prefix, secret_hash, scopes, collections, products, admin, sub_tenants, rate_limit, rate_window_seconds, expires_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
        [
          id,
          f.tenant,
          f.name,
          keyPrefix(key),
          hashKey(key),
          f.scopes,
          f.collections,
          f.products,
          f.admin,
          f.subTenants,
          f.rateLimit,
          f.rateWindowSeconds,
          f.expiresAt,
        ],
      );
      return { id, key };
    },
    stop: async () => {
      await db.end().catch(() => {});
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
}
