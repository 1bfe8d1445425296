/**
 * @module trust/config
 * The trust service's own environment (on top of the kit's base schema), and the signing keys it
 * loads from it at start, so a bad key stops the process with a message naming the variable:
 *
 * - `TRUST_SIGNING_KEY`: base64 of the 32-byte Ed25519 seed that signs receipts and checkpoints.
 *   Required unless NODE_ENV is `development` or `test`, where a public, clearly labelled
 *   development key is used (with a loud warning) when it is unset.
 * - `TRUST_PREVIOUS_PUBLIC_KEYS`: public keys of earlier signing keys, still served in the JWKS so
 *   receipts they signed stay verifiable after a rotation.
 */
import { createHash } from "node:crypto";
import { ConfigError, defineEnv, type ServiceConfig } from "@gantry/kit";
import { publicKeyFromRaw, keyIdOf, type SigningKeys, signingKey } from "./signing.ts";

export const TRUST_ENV = defineEnv({
  GANTRY_TEST_CLOCK_FILE: {
    type: "string",
    description: "tests only (NODE_ENV=test): file holding a clock offset in ms (kit/src/clock.ts)",
  },
  TRUST_SIGNING_KEY: {
    type: "string",
    description:
      "base64 of a 32-byte Ed25519 seed (`openssl rand -base64 32`): signs receipts and log checkpoints. Required unless NODE_ENV is development or test",
  },
  TRUST_PREVIOUS_PUBLIC_KEYS: {
    type: "string",
    default: "[]",
    description:
      "public keys of earlier signing keys, as a JSON array of base64url raw Ed25519 public keys (the JWKS `x`): kept in the JWKS so receipts they signed stay verifiable",
  },
  TRUST_PLAN_MODEL_URL: {
    type: "string",
    pattern: "^https?://",
    description:
      "base URL of an OpenAI-compatible API (…/v1) that drafts plans (plan.create method `model`); unset: plans are built deterministically from templates",
  },
  TRUST_PLAN_MODEL: { type: "string", default: "gpt-4o-mini", description: "model name sent to TRUST_PLAN_MODEL_URL" },
  TRUST_PLAN_MODEL_API_KEY: { type: "string", description: "bearer token for TRUST_PLAN_MODEL_URL, if it needs one" },
  TRUST_PLAN_MODEL_TIMEOUT_MS: {
    type: "integer",
    minimum: 1000,
    maximum: 120_000,
    default: 20_000,
    description: "timeout of one drafting request; on timeout the plan is built deterministically",
  },
  TRUST_RUN_TTL_SECONDS: {
    type: "integer",
    minimum: 60,
    maximum: 604_800,
    default: 3600,
    description: "lifetime of a run when trust.preflight names none (expiresInSeconds)",
  },
});

export type TrustConfig = ServiceConfig<typeof TRUST_ENV>;

export const DEVELOPMENT_KEY_LABEL = "gantry trust DEVELOPMENT signing key - public, never use in production";

export function loadSigningKeys(
  config: Pick<TrustConfig, "NODE_ENV" | "TRUST_SIGNING_KEY" | "TRUST_PREVIOUS_PUBLIC_KEYS">,
): SigningKeys {
  const problems: string[] = [];
  let seed: Buffer | undefined;
  let development = false;
  if (config.TRUST_SIGNING_KEY) {
    const text = config.TRUST_SIGNING_KEY.trim();
    const raw = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
      ? Buffer.from(text.replaceAll("-", "+").replaceAll("_", "/"), "base64")
      : undefined;
    if (raw?.length === 32) seed = raw;
    else problems.push("TRUST_SIGNING_KEY: must be base64 of exactly 32 bytes (`openssl rand -base64 32`)");
  } else if (config.NODE_ENV === "development" || config.NODE_ENV === "test") {
    seed = createHash("sha256").update(DEVELOPMENT_KEY_LABEL).digest();
    development = true;
  } else {
    problems.push(
      `TRUST_SIGNING_KEY: required (base64 of a 32-byte Ed25519 seed: \`openssl rand -base64 32\`); only NODE_ENV=development or test may run without it (NODE_ENV is ${config.NODE_ENV ? `"${config.NODE_ENV}"` : "unset"})`,
    );
  }
  const publicKeys = new Map<string, ReturnType<typeof publicKeyFromRaw>>();
  let previous: unknown;
  try {
    previous = JSON.parse(config.TRUST_PREVIOUS_PUBLIC_KEYS);
  } catch {
    previous = undefined;
  }
  if (!Array.isArray(previous)) problems.push("TRUST_PREVIOUS_PUBLIC_KEYS: must be a JSON array of base64url strings");
  else
    previous.forEach((value, i) => {
      try {
        if (typeof value !== "string") throw new Error("not a string");
        const key = publicKeyFromRaw(Buffer.from(value, "base64url"));
        publicKeys.set(keyIdOf(key), key);
      } catch {
        problems.push(`TRUST_PREVIOUS_PUBLIC_KEYS[${i}]: must be a base64url raw Ed25519 public key (32 bytes)`);
      }
    });
  if (problems.length || !seed) throw new ConfigError(`trust: invalid configuration\n  ${problems.join("\n  ")}`);
  const current = signingKey(seed);
  publicKeys.set(current.kid, current.publicKey);
  return { current, publicKeys, development };
}
