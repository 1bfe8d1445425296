/**
 * @module connections/abilities/integration.app.connect
 * Connects an account of a toolkit (`kind: "app"`, `service` = the toolkit slug; a principal may
 * connect several accounts of one toolkit, told apart by `label`):
 *
 * - `api_key` toolkits: `credentials` must hold exactly the toolkit's `credentialFields`; they are
 *   checked with the provider (the toolkit's `verify` tool; 401/403 is 400 `/input/credentials`),
 *   then sealed like OAuth tokens (src/credentials.ts: the fields as one JSON value under the row's
 *   data key) and the account is `connected` at once: no redirect. `idempotencyKey` makes a retry
 *   return the same account; the idempotency record holds a hash of the credentials, never them.
 * - `oauth2` toolkits: consent as connection.authorize `start` (src/consent.ts) for a new `pending`
 *   account, with the toolkit's OAuth app from CONNECTIONS_PROVIDERS (keyed by the toolkit slug);
 *   it is completed with connection.authorize `complete`.
 */
import { createHash } from "node:crypto";
import { canonicalJson, GantryError, idempotentCreate } from "@gantry/kit";
import { startConsent } from "../consent.ts";
import { ability } from "../context.ts";
import { sealTokens } from "../credentials.ts";
import { SCHEMA } from "../db.ts";
import { enqueue, recordEvent } from "../events.ts";
import { verifyCredential } from "../execute.ts";
import { newId } from "../ids.ts";
import { connectionOut, invalidField } from "../records.ts";
import { toolkitOf } from "../toolkits.ts";

export default ability("integration.app.connect", async (input, call, ctx) => {
  const toolkit = toolkitOf(ctx.toolkits, input.toolkit);
  if (toolkit.out.authScheme === "oauth2") {
    if (input.credentials !== undefined)
      throw invalidField(
        "/input/credentials",
        `must be omitted: ${toolkit.out.name} connects through OAuth consent (returnUrl)`,
        "not_applicable",
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

  // The idempotency record stores its input: there, the credentials are only a hash.
  const hashed = {
    ...input,
    credentials: createHash("sha256").update(canonicalJson(credentials)).digest("hex"),
  };
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
  if (existing.length === 0) await verifyCredential(ctx, toolkit, credentials);
  const nowMs = ctx.now();
  const now = new Date(nowMs);
  const id = newId("connection", nowMs);
  const { result, created } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "integration.app.connect",
    input: hashed,
    recordId: id,
    create: async (tx) => {
      const row = await tx.connection.create({
        data: {
          id,
          tenant: call.tenant,
          kind: "app",
          service: toolkit.out.slug,
          label: input.label ?? null,
          status: "connected",
          authScheme: "api_key",
          principalId: call.keyId,
          scopes: [],
          ...sealTokens(ctx, { tenant: call.tenant, id }, { access: JSON.stringify(credentials), refresh: null }),
          connectedAt: now,
          createdAt: now,
          updatedAt: now,
        },
      });
      await recordEvent(tx, {
        connection: row,
        type: "connected",
        at: now,
        principalId: call.keyId,
        requestId: call.requestId,
        detail: { authScheme: "api_key", verified: toolkit.verify !== null },
      });
      await enqueue(tx, "connected", row, { requestId: call.requestId, detail: { authScheme: "api_key" }, at: now });
      return { connection: connectionOut(row), authorizationUrl: null, state: null, expires: null };
    },
    replay,
  });
  if (created) await ctx.outbox.flush();
  return result;
});
