/**
 * @module connections/consent
 * Actor-bound OAuth consent (connection.authorize `start` and `complete`).
 *
 * `start` opens a consent session for the tenant's connection to a service (a new `pending`
 * connection, or the live one, which keeps working until the new consent completes): a random
 * `state` (only its SHA-256 is stored), a PKCE verifier (sealed like any credential), the redirect
 * URI, the principal (API key id) that started it, and an expiry (10 minutes by default). It answers
 * the provider's authorization URL (code flow, S256 challenge, state).
 *
 * `complete` succeeds only for the session whose `state` is presented, for the connection named,
 * not yet used, not expired, by the same principal that started it (a different key of the same
 * tenant is refused with 403: consent is bound to the actor), with the redirect the provider sent the
 * user to (`sessionUri`, on the session's redirect URI). The session is consumed before the code is
 * exchanged, so a replay never reaches the provider. The tokens are sealed and the connection becomes
 * `connected` under its row lock, in one transaction with its trail.
 */
import { createHash } from "node:crypto";
import { type CallContext, GantryError, isUniqueViolation } from "@gantry/kit";
import type { InputOf } from "@gantry/proto/catalogue";
import type { Context } from "./context.ts";
import { sealTokens } from "./credentials.ts";
import { openValue, sealRecord } from "./crypto.ts";
import { SCHEMA, type Connection } from "./db.ts";
import { revokeAtProvider } from "./connections.ts";
import { enqueue, recordEvent } from "./events.ts";
import { newId } from "./ids.ts";
import { consentSecrets, ProviderRefusal } from "./oauth.ts";
import { connectionNotFound, connectionOut, invalidField, unknownService } from "./records.ts";
import { closeSessions } from "./sessions.ts";

type AuthorizeInput = InputOf<"connection.authorize">;
type StartInput = Extract<AuthorizeInput, { service: string }>;
type CompleteInput = Extract<AuthorizeInput, { action: "complete" }>;

const sha256 = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

/** `{origin}{pathname}` of a URL: what must match between the redirect URI and the provider's redirect. */
const endpointOf = (u: URL) => `${u.origin}${u.pathname}`;

/**
 * `app`: an integration-app account (integration.app.connect): always a new pending connection (a
 * principal may connect several accounts of one toolkit), with its label; `service` is the toolkit.
 */
export interface StartOptions {
  kind?: "service" | "app";
  label?: string | null;
  /** The field named when no OAuth provider is configured for the service. */
  servicePath?: string;
}

export async function startConsent(ctx: Context, call: CallContext, input: StartInput, opts: StartOptions = {}) {
  const kind = opts.kind ?? "service";
  const provider = ctx.providers.get(input.service);
  if (!provider) throw unknownService(ctx, input.service, opts.servicePath ?? "/input/service", true);
  const registered = provider.config.redirectUris;
  let redirectUri = registered[0] as string;
  if (input.returnUrl !== undefined) {
    const wanted = new URL(input.returnUrl).href;
    if (!registered.includes(wanted))
      throw invalidField(
        "/input/returnUrl",
        `is not a redirect URI registered for ${input.service}; the provider only redirects to: ${registered.join(", ")}`,
        "enum",
        { params: { allowedValues: registered } },
      );
    redirectUri = wanted;
  }
  const { state, codeVerifier } = consentSecrets();
  // Before any write: a provider whose metadata cannot be fetched leaves nothing behind.
  const authorizationUrl = await provider.authorizationUrl({ redirectUri, state, codeVerifier });
  const nowMs = ctx.now();
  const now = new Date(nowMs);
  const expires = new Date(nowMs + ctx.config.CONNECTIONS_SESSION_TTL_SECONDS * 1000);

  const open = async () =>
    ctx.db.$transaction(async (tx) => {
      let row =
        kind === "service"
          ? await tx.connection.findFirst({
              where: { tenant: call.tenant, service: input.service, kind: "service", status: { not: "revoked" } },
            })
          : null;
      row ??= await tx.connection.create({
        data: {
          id: newId("connection", nowMs),
          tenant: call.tenant,
          kind,
          label: opts.label ?? null,
          service: input.service,
          status: "pending",
          authScheme: "oauth2",
          principalId: call.keyId,
          scopes: [],
          createdAt: now,
          updatedAt: now,
        },
      });
      const sessionId = newId("session", nowMs);
      const sealed = sealRecord(ctx.keys, { tenant: call.tenant, id: sessionId }, { code_verifier: codeVerifier });
      await tx.oauthSession.create({
        data: {
          id: sessionId,
          tenant: call.tenant,
          connectionId: row.id,
          service: input.service,
          principalId: call.keyId,
          stateHash: sha256(state),
          codeVerifierEnc: new Uint8Array(sealed.values.code_verifier as Buffer),
          dataKeyEnc: new Uint8Array(sealed.wrappedKey),
          keyVersion: sealed.keyVersion,
          redirectUri,
          scopes: provider.config.scopes,
          expiresAt: expires,
          createdAt: now,
        },
      });
      await recordEvent(tx, {
        connection: row,
        type: "consent_started",
        at: now,
        principalId: call.keyId,
        requestId: call.requestId,
        detail: { redirectUri, expires: expires.toISOString() },
      });
      return row;
    });
  let row: Connection;
  try {
    row = await open();
  } catch (err) {
    // Two first consents for one service at once: the loser joins the connection the winner made.
    if (!isUniqueViolation(err)) throw err;
    row = await open();
  }
  return {
    action: "start" as const,
    connection: connectionOut(row),
    authorizationUrl: authorizationUrl.href,
    state,
    expires: expires.toISOString(),
  };
}

export async function completeConsent(ctx: Context, call: CallContext, input: CompleteInput) {
  const row = await ctx.db.connection.findFirst({ where: { id: input.connectionId, tenant: call.tenant } });
  if (!row) throw connectionNotFound(input.connectionId);
  const session = await ctx.db.oauthSession.findFirst({
    where: { tenant: call.tenant, stateHash: sha256(input.state) },
  });
  if (!session || session.connectionId !== row.id)
    throw invalidField(
      "/input/state",
      `does not match a consent session of connection ${row.id}; pass the state that connection.authorize start returned for it`,
      "consent_session",
    );
  if (session.principalId !== call.keyId)
    throw new GantryError(
      "forbidden",
      `This consent was started by another principal (${session.principalId}); only the key that started it may complete it.`,
      {
        reason: "Consent is bound to the principal that started it; start a new consent with this key instead.",
        details: [
          {
            path: "/input/state",
            message: `/input/state belongs to a consent started by ${session.principalId}`,
            code: "consent_session",
          },
        ],
      },
    );
  if (session.consumedAt)
    throw new GantryError("conflict", "/input/state names a consent session that was already used or closed.", {
      reason: "A consent session completes once; start a new consent.",
      details: [{ path: "/input/state", message: "/input/state was already used", code: "consent_session" }],
    });
  const nowMs = ctx.now();
  if (session.expiresAt.getTime() <= nowMs)
    throw invalidField(
      "/input/state",
      `names a consent session that expired at ${session.expiresAt.toISOString()}; start a new consent`,
      "consent_session",
    );
  let callback: URL;
  try {
    callback = new URL(input.sessionUri);
  } catch {
    throw invalidField("/input/sessionUri", "is not an absolute URL", "format");
  }
  if (endpointOf(callback) !== endpointOf(new URL(session.redirectUri)))
    throw invalidField(
      "/input/sessionUri",
      `is not a redirect to ${session.redirectUri}, the redirect URI this consent was started with`,
      "redirect_mismatch",
    );
  const redirectedState = callback.searchParams.get("state");
  if (redirectedState !== null && redirectedState !== input.state)
    throw invalidField(
      "/input/sessionUri",
      "carries another state than /input/state: it is not this consent's redirect",
      "redirect_mismatch",
    );
  const provider = ctx.providers.get(row.service);
  if (!provider)
    throw invalidField(
      "/input/connectionId",
      `names a connection to ${row.service}, whose provider is no longer configured`,
      "invalid_value",
    );

  // Consumed first: a replayed or concurrent completion never reaches the provider.
  const consumed = await ctx.db.oauthSession.updateMany({
    where: { id: session.id, tenant: call.tenant, consumedAt: null },
    data: { consumedAt: new Date(nowMs) },
  });
  if (consumed.count !== 1)
    throw new GantryError("conflict", "/input/state names a consent session that was already used or closed.", {
      details: [{ path: "/input/state", message: "/input/state was already used", code: "consent_session" }],
    });
  const codeVerifier = openValue(
    ctx.keys,
    { tenant: call.tenant, id: session.id },
    session.dataKeyEnc,
    session.keyVersion,
    "code_verifier",
    session.codeVerifierEnc,
  );
  let granted: Awaited<ReturnType<typeof provider.exchangeCode>>;
  try {
    granted = await provider.exchangeCode({
      callback,
      state: input.state,
      redirectUri: session.redirectUri,
      codeVerifier,
    });
  } catch (err) {
    if (!(err instanceof ProviderRefusal)) throw err;
    await ctx.db.connectionEvent.create({
      data: {
        tenant: call.tenant,
        connectionId: row.id,
        type: "consent_failed",
        principalId: call.keyId,
        requestId: call.requestId,
        detail: { error: err.error, ...(err.description ? { description: err.description } : {}) },
        at: new Date(ctx.now()),
      },
    });
    throw invalidField(
      "/input/sessionUri",
      `was refused by the ${row.service} provider (${err.error}${err.description ? `: ${err.description}` : ""}); start a new consent`,
      "provider_refused",
    );
  }

  const done = new Date(ctx.now());
  const detail: Record<string, unknown> = {
    scopes: granted.scopes ?? session.scopes,
    rotatedPrincipal: row.principalId !== call.keyId,
  };
  const timeout = ctx.config.CONNECTIONS_PROVIDER_TIMEOUT_MS * 4 + 5_000;
  const connected = await ctx.db.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(`SELECT 1 FROM "${SCHEMA}"."connections" WHERE id = $1 FOR UPDATE`, row.id);
      const locked = await tx.connection.findFirst({ where: { id: row.id, tenant: call.tenant } });
      if (!locked || locked.status === "revoked")
        throw new GantryError(
          "conflict",
          `Connection ${row.id} was revoked while consent was given; start a new consent.`,
          {
            details: [
              {
                path: "/input/connectionId",
                message: "/input/connectionId was revoked meanwhile",
                code: "connection_status",
              },
            ],
          },
        );
      // Consent given again on a connected account replaces its grant: the old one is revoked at the
      // provider, so no second live grant outlives this connection's tokens.
      if (locked.status === "connected") {
        const previous = await revokeAtProvider(ctx, locked);
        detail.previousGrantRevoked = previous.providerRevoked;
        if (previous.providerError) detail.providerError = previous.providerError;
      }
      const updated = await tx.connection.update({
        where: { id: row.id },
        data: {
          ...sealTokens(ctx, row, { access: granted.accessToken, refresh: granted.refreshToken ?? null }),
          tokenType: granted.tokenType,
          status: "connected",
          statusReason: null,
          principalId: session.principalId,
          scopes: granted.scopes ?? session.scopes,
          externalRef: granted.externalRef ?? locked.externalRef,
          credentialExpiresAt: granted.expiresIn ? new Date(done.getTime() + granted.expiresIn * 1000) : null,
          credentialIssuedAt: done,
          connectedAt: done,
          revokedAt: null,
          updatedAt: done,
          version: { increment: 1 },
        },
      });
      // Other consents opened for this connection are closed: this one decided.
      await closeSessions(tx, locked, done);
      await recordEvent(tx, {
        connection: row,
        type: "connected",
        at: done,
        principalId: call.keyId,
        requestId: call.requestId,
        detail,
      });
      await enqueue(tx, "connected", updated, { requestId: call.requestId, detail, at: done });
      return updated;
    },
    { timeout, maxWait: 10_000 },
  );
  await ctx.outbox.flush();
  return { action: "complete" as const, connection: connectionOut(connected) };
}
