/**
 * @module connections/abilities/integration.app.connect
 * Connects an account of a toolkit (`kind: "app"`, `service` = the toolkit slug; a principal may
 * connect several accounts of one toolkit, told apart by `label`):
 *
 * - `api_key` toolkits: `credentials` must hold exactly the toolkit's `credentialFields`; they are
 *   checked with the provider (the toolkit's `verify` tool; 401/403 is 400 `/input/credentials`),
 *   then sealed like OAuth tokens (src/credentials.ts: the fields as one JSON value under the row's
 *   data key) and the account is `connected` at once: no redirect.
 * - `token` (github, slack: src/tokens.ts): a token the user made at the provider, for when the
 *   deployment has no OAuth app for the toolkit. Checked with the provider (GitHub `GET /user`, Slack
 *   `auth.test`), then sealed exactly as an OAuth access token (auth scheme `token`, never refreshed)
 *   and `connected` at once; tools then run with it as with an OAuth grant.
 * - `oauth2` toolkits otherwise: consent as connection.authorize `start` (src/consent.ts) for a new
 *   `pending` account, with the toolkit's OAuth app from CONNECTIONS_PROVIDERS (keyed by the toolkit
 *   slug); it is completed with connection.authorize `complete`.
 *
 * Accounts given their credential at once: `idempotencyKey` makes a retry return the same account
 * without asking the provider again; the idempotency record holds a hash of the secret, never it.
 */
import { createHash } from "node:crypto";
import { type CallContext, canonicalJson, GantryError, idempotentCreate } from "@gantry/kit";
import type { InputOf, OutputOf } from "@gantry/proto/catalogue";
import { startConsent } from "../consent.ts";
import { ability, type Context } from "../context.ts";
import { sealTokens } from "../credentials.ts";
import { SCHEMA } from "../db.ts";
import { enqueue, recordEvent } from "../events.ts";
import { verifyCredential } from "../execute.ts";
import { newId } from "../ids.ts";
import { connectionOut, invalidField } from "../records.ts";
import { type Toolkit, toolkitOf } from "../toolkits.ts";
import { TOKEN_KINDS, tokenKindOf, type VerifiedToken, verifyToken } from "../tokens.ts";

type Input = InputOf<"integration.app.connect">;
type Output = OutputOf<"integration.app.connect">;

export default ability("integration.app.connect", async (input, call, ctx) => {
  const toolkit = toolkitOf(ctx.toolkits, input.toolkit);
  if (input.token !== undefined) {
    const token = input.token;
    tokenKindOf(toolkit, token);
    for (const [field, given] of [
      ["credentials", input.credentials],
      ["returnUrl", input.returnUrl],
    ] as const)
      if (given !== undefined)
        throw invalidField(
          `/input/${field}`,
          "must be omitted with `token`: the token is the credential",
          "not_applicable",
        );
    return storeAccount(ctx, call, input, { ...input, token: sha256(token) }, toolkit, {
      authScheme: "token",
      secret: token,
      verify: () => verifyToken(ctx, toolkit, token),
    });
  }
  if (toolkit.out.authScheme === "oauth2") {
    if (input.credentials !== undefined)
      throw invalidField(
        "/input/credentials",
        `must be omitted: ${toolkit.out.name} connects through OAuth consent (returnUrl)${TOKEN_KINDS[toolkit.out.slug] ? ", or with `token`" : ""}`,
        "not_applicable",
      );
    const kind = TOKEN_KINDS[toolkit.out.slug];
    if (kind && !ctx.providers.has(toolkit.out.slug))
      throw invalidField(
        "/input/token",
        `is required: this deployment has no OAuth app for ${toolkit.out.name} (CONNECTIONS_PROVIDERS["${toolkit.out.slug}"]). Give ${kind.what}, made at ${kind.makeAt}`,
        "required",
      );
    const started = await startConsent(
      ctx,
      call,
      { service: toolkit.out.slug, ...(input.returnUrl !== undefined ? { returnUrl: input.returnUrl } : {}) },
      { kind: "app", label: input.label ?? null, servicePath: "/input/toolkit" },
    );
    return {
      connection: started.connection,
      authorizationUrl: started.authorizationUrl,
      state: started.state,
      expires: started.expires,
    };
  }

  const fields = toolkit.out.credentialFields;
  if (input.returnUrl !== undefined)
    throw invalidField(
      "/input/returnUrl",
      `must be omitted: ${toolkit.out.name} connects with credentials, without a redirect`,
      "not_applicable",
    );
  const credentials = input.credentials;
  if (!credentials)
    throw invalidField(
      "/input/credentials",
      `is required for ${toolkit.out.name}: give ${fields.join(", ")}`,
      "required",
    );
  const missing = fields.filter((f) => !credentials[f]);
  const extra = Object.keys(credentials).filter((f) => !fields.includes(f));
  if (missing.length || extra.length)
    throw new GantryError(
      "validation_failed",
      `/input/credentials must hold exactly ${fields.join(", ")} for ${toolkit.out.name}.`,
      {
        details: [
          ...missing.map((f) => ({
            path: `/input/credentials/${f}`,
            message: `/input/credentials/${f} is required by ${toolkit.out.name}`,
            code: "required",
          })),
          ...extra.map((f) => ({
            path: `/input/credentials/${f}`,
            message: `/input/credentials/${f} is not a credential field of ${toolkit.out.name} (${fields.join(", ")})`,
            code: "additionalProperties",
          })),
        ],
      },
    );

  const hashed = { ...input, credentials: sha256(canonicalJson(credentials)) };
  return storeAccount(ctx, call, input, hashed, toolkit, {
    authScheme: "api_key",
    secret: JSON.stringify(credentials),
    verify: async () => {
      await verifyCredential(ctx, toolkit, credentials);
      return { externalRef: null, name: null, scopes: [], detail: { verified: toolkit.verify !== null } };
    },
  });
});

/** How an account given its credential at once is stored: what the provider said and the sealed secret. */
interface GivenCredential {
  authScheme: "api_key" | "token";
  /** Sealed as the access token: the API key's fields as JSON, or the token itself. */
  secret: string;
  verify: () => Promise<Pick<VerifiedToken, "scopes" | "detail"> & { externalRef: string | null; name: string | null }>;
}

/**
 * Checks the credential with the provider, then stores a `connected` account with it sealed like an
 * OAuth token (src/credentials.ts). With `idempotencyKey` a retry answers the same account without
 * asking the provider again; the idempotency record holds `stored` (the input with the secret hashed).
 */
async function storeAccount(
  ctx: Context,
  call: CallContext,
  input: Input,
  stored: Record<string, unknown>,
  toolkit: Toolkit,
  given: GivenCredential,
): Promise<Output> {
  const replay = async (id: string) => {
    const row = await ctx.db.connection.findFirstOrThrow({ where: { id, tenant: call.tenant } });
    return { connection: connectionOut(row), authorizationUrl: null, state: null, expires: null };
  };
  const existing = input.idempotencyKey
    ? await ctx.db.$queryRawUnsafe<{ record_id: string }[]>(
        `SELECT record_id FROM "${SCHEMA}"."idempotency_records" WHERE tenant = $1 AND ability = $2 AND key = $3`,
        call.tenant,
        "integration.app.connect",
        input.idempotencyKey,
      )
    : [];
  // A retry is answered by idempotentCreate without asking the provider again.
  const verified = existing.length === 0 ? await given.verify() : null;
  const nowMs = ctx.now();
  const now = new Date(nowMs);
  const id = newId("connection", nowMs);
  const { result, created } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "integration.app.connect",
    input: stored,
    recordId: id,
    create: async (tx) => {
      // Only a retry whose first call stored nothing can get here unverified: check it now.
      const said = verified ?? (await given.verify());
      const row = await tx.connection.create({
        data: {
          id,
          tenant: call.tenant,
          kind: "app",
          service: toolkit.out.slug,
          label: input.label ?? said.name,
          status: "connected",
          authScheme: given.authScheme,
          principalId: call.keyId,
          externalRef: said.externalRef,
          scopes: said.scopes,
          tokenType: given.authScheme === "token" ? "bearer" : null,
          ...sealTokens(ctx, { tenant: call.tenant, id }, { access: given.secret, refresh: null }),
          connectedAt: now,
          createdAt: now,
          updatedAt: now,
        },
      });
      const detail = { authScheme: given.authScheme, ...said.detail };
      await recordEvent(tx, {
        connection: row,
        type: "connected",
        at: now,
        principalId: call.keyId,
        requestId: call.requestId,
        detail,
      });
      await enqueue(tx, "connected", row, { requestId: call.requestId, detail, at: now });
      return { connection: connectionOut(row), authorizationUrl: null, state: null, expires: null };
    },
    replay,
  });
  if (created) await ctx.outbox.flush();
  return result;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
