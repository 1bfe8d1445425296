/**
 * @module connections/abilities/connection.authorize
 * Actor-bound consent for a tenant's external account: `start` (default) returns the provider's
 * authorization URL (OAuth 2.0 code + PKCE S256 + state) and the pending connection; `complete`
 * finishes it for the principal that started it; `revoke` revokes the account at the provider and
 * here (with `shareId`: ends one share instead); `share` grants another principal the use of chosen
 * tools of the connection until `expiresAt` (src/shares.ts).
 */
import { ability } from "../context.ts";
import { completeConsent, startConsent } from "../consent.ts";
import { revokeConnection } from "../connections.ts";
import { connectionNotFound, connectionOut } from "../records.ts";
import { createShare, revokeShare } from "../shares.ts";

export default ability("connection.authorize", async (input, call, ctx) => {
  if ("service" in input) return startConsent(ctx, call, input);
  switch (input.action) {
    case "complete":
      return completeConsent(ctx, call, input);
    case "revoke": {
      if (input.shareId !== undefined) {
        const { connection, share } = await revokeShare(ctx, call, input.connectionId, input.shareId);
        return { action: "revoke" as const, connection: connectionOut(connection), share };
      }
      const row = await ctx.db.connection.findFirst({ where: { id: input.connectionId, tenant: call.tenant } });
      if (!row) throw connectionNotFound(input.connectionId);
      return {
        action: "revoke" as const,
        connection: connectionOut(await revokeConnection(ctx, call, row)),
        share: null,
      };
    }
    case "share":
      return { action: "share" as const, share: await createShare(ctx, call, input) };
  }
});
