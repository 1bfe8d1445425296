/**
 * Shared by the workspace integration tests: one stack (keys + workspace + gateway) per test file,
 * tenant keys, and small call helpers that assert the envelope.
 */
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

export type { TestStack };

export async function startWorkspaceStack(env: Record<string, string> = {}): Promise<TestStack> {
  return startTestStack({ services: ["keys", "workspace"], env, healthTimeoutMs: 120_000 });
}

export interface Keys {
  acme: string;
  beta: string;
  /** acme key with the sub-tenant flag: addresses `acme/<x>` through context.tenantId. */
  acmeParent: string;
  /** A key whose tenant is the sub-tenant itself. */
  shop1: string;
  /** acme key limited to reading contacts. */
  readOnly: string;
}

export async function tenantKeys(t: TestStack): Promise<Keys> {
  const [acme, beta, acmeParent, shop1, readOnly] = await Promise.all([
    t.insertKey({ tenant: "acme", scopes: ["*"] }),
    t.insertKey({ tenant: "beta", scopes: ["*"] }),
    t.insertKey({ tenant: "acme", scopes: ["*"], subTenants: true }),
    t.insertKey({ tenant: "acme/shop1", scopes: ["*"] }),
    t.insertKey({ tenant: "acme", scopes: ["contact.get", "contact.list"] }),
  ]);
  return { acme: acme.key, beta: beta.key, acmeParent: acmeParent.key, shop1: shop1.key, readOnly: readOnly.key };
}

/** Calls an ability and expects 200; returns `result`. */
export async function ok(
  t: TestStack,
  ability: string,
  input: unknown,
  key: string,
  context?: Record<string, string>,
): Promise<any> {
  const res = await t.call(ability, context ? { input, context } : { input }, key);
  assert.equal(res.status, 200, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.ok, true);
  assert.equal(res.body.ability, ability);
  return res.body.result;
}

/** Calls an ability and expects `status`; returns the error body. */
export async function fails(
  t: TestStack,
  ability: string,
  input: unknown,
  key: string,
  status: number,
  context?: Record<string, string>,
): Promise<any> {
  const res = await t.call(ability, context ? { input, context } : { input }, key);
  assert.equal(res.status, status, `${ability} → ${res.status} ${JSON.stringify(res.body)}, expected ${status}`);
  assert.equal(res.body.ok, false);
  assert.equal(typeof res.body.error, "string");
  return res.body;
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
