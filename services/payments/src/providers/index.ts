/**
 * @module payments/providers
 * Which provider adapter serves a call, and with whose credential:
 *
 * 1. a provider without configuration (base URL + platform secret key) is the **sandbox**;
 * 2. otherwise, when PAYMENTS_TENANT_CREDENTIALS is on, the connections service is asked for the
 *    tenant's credential (service key `provider_a` / `provider_b`): the tenant's own connection
 *    (`credentialSource: tenant`) or the platform account configured there (`platform`);
 * 3. when connections answers `not_found` (no connection, no platform account there), the platform
 *    key of this service's configuration is used (`platform`). Any other failure of the lookup
 *    (connections unreachable) is refused with 503: money never moves on a guessed account.
 *
 * Records remember their mode: a sandbox record is always refreshed by the sandbox.
 */
import { GantryError, type CallContext } from "@gantry/kit";
import type { Context } from "../context.ts";
import { paystackProvider } from "./provider-b.ts";
import { sandboxProvider } from "./sandbox.ts";
import { stripeProvider } from "./provider-a.ts";
import type { CredentialSource, Mode, Provider, ProviderName } from "./types.ts";

interface Configured {
  url: string;
  secretKey: string;
}

function configured(ctx: Context, name: ProviderName): Configured | null {
  const c = ctx.config;
  const url = name === "provider_a" ? c.PAYMENTS_PROVIDER_A_URL : c.PAYMENTS_PROVIDER_B_URL;
  const secretKey = name === "provider_a" ? c.PAYMENTS_PROVIDER_A_SECRET_KEY : c.PAYMENTS_PROVIDER_B_SECRET_KEY;
  return url && secretKey ? { url, secretKey } : null;
}

/** Whether `name` is live (configured) in this deployment. */
export function isLive(ctx: Context, name: ProviderName): boolean {
  return configured(ctx, name) !== null;
}

interface Credential {
  secretKey: string;
  source: CredentialSource;
  /** provider_a: the tenant's connected account (`acct_…`, the connection's external ref). */
  connectedAccount?: string;
}

async function credential(
  ctx: Context,
  call: Pick<CallContext, "tenant" | "requestId">,
  name: ProviderName,
  platformKey: string,
): Promise<Credential> {
  if (!ctx.resolver) return { secretKey: platformKey, source: "platform" };
  try {
    const c = await ctx.resolver.resolve(call.tenant, name, call.requestId);
    // A Stripe Connect connection names the tenant's account: charge it directly with the
    // platform key (Stripe-Account header), so the platform can take its application fee.
    if (name === "provider_a" && c.credential_source === "tenant" && /^acct_[A-Za-z0-9]+$/.test(c.external_ref)) {
      return { secretKey: platformKey, source: "tenant", connectedAccount: c.external_ref };
    }
    const secretKey = c.credentials.secret_key || c.access_token;
    if (!secretKey) throw new GantryError("unavailable", `The ${name} credential holds no secret key.`);
    return { secretKey, source: c.credential_source };
  } catch (err) {
    if (err instanceof GantryError && err.code === "not_found") return { secretKey: platformKey, source: "platform" };
    if (err instanceof GantryError && err.code === "unavailable") throw err;
    throw new GantryError("unavailable", `The ${name} credential could not be looked up; retry shortly.`, {
      reason: "The connections service did not answer the credential lookup.",
      cause: err,
    });
  }
}

async function build(ctx: Context, name: ProviderName, cfg: Configured, c: Credential): Promise<Provider> {
  const opts = {
    baseUrl: cfg.url,
    secretKey: c.secretKey,
    credentialSource: c.source,
    timeoutMs: ctx.config.PAYMENTS_PROVIDER_TIMEOUT_MS,
    connectedAccount: c.connectedAccount,
    applicationFeeBps: ctx.config.PAYMENTS_APPLICATION_FEE_BPS,
  };
  return name === "provider_a" ? stripeProvider(opts) : paystackProvider(opts);
}

/** The adapter for a new operation of this tenant on `name`. */
export async function providerFor(
  ctx: Context,
  call: Pick<CallContext, "tenant" | "requestId">,
  name: ProviderName,
): Promise<Provider> {
  const cfg = configured(ctx, name);
  if (!cfg) return sandboxProvider(name);
  return build(ctx, name, cfg, await credential(ctx, call, name, cfg.secretKey));
}

/** The adapter that refreshes an existing record (same mode it was created in). */
export async function providerOf(
  ctx: Context,
  call: Pick<CallContext, "tenant" | "requestId">,
  record: { provider: string; mode: string; credentialSource: string },
): Promise<Provider> {
  const name = record.provider as ProviderName;
  if ((record.mode as Mode) === "sandbox") return sandboxProvider(name, record.credentialSource as CredentialSource);
  const cfg = configured(ctx, name);
  if (!cfg) {
    throw new GantryError("unavailable", `${name} is no longer configured; the record cannot be refreshed.`, {
      reason: `PAYMENTS_${name.toUpperCase()}_URL / _SECRET_KEY are unset in this deployment.`,
    });
  }
  if (record.credentialSource === "platform")
    return build(ctx, name, cfg, { secretKey: cfg.secretKey, source: "platform" });
  return build(ctx, name, cfg, await credential(ctx, call, name, cfg.secretKey));
}

/**
 * The secret key of the tenant's own `name` account, which signs that account's webhooks; null when
 * the tenant has no usable connection of its own (its events cannot be verified, so none is applied).
 */
export async function tenantSecretKey(
  ctx: Context,
  tenant: string,
  name: ProviderName,
  requestId: string,
): Promise<string | null> {
  const cfg = configured(ctx, name);
  if (!cfg || !ctx.resolver) return null;
  const c = await credential(ctx, { tenant, requestId }, name, cfg.secretKey);
  return c.source === "tenant" && !c.connectedAccount ? c.secretKey : null;
}
