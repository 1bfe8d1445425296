/**
 * @module connections/abilities/connection.authorize
 * Actor-bound consent for a tenant's external account: `start` (default) returns the provider's
 * authorization URL (OAuth 2.0 code + PKCE S256 + state) and the pending connection; `complete`
 * finishes it for the principal that started it; `revoke` revokes the account at the provider and
 * here. `share` (explicit, expiring grants of a connection's tools to another principal) belongs to
 * the tool registry, which is not wired yet: it answers 501.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { completeConsent, startConsent } from "../consent.ts";
import { revokeConnection } from "../connections.ts";
import { connectionNotFound, connectionOut } from "../records.ts";

export default ability("connection.authorize", async (input, call, ctx) => {
  if ("service" in input) return startConsent(ctx, call, input);
  switch (input.action) {
    case "complete":
      return completeConsent(ctx, call, input);
    case "revoke": {
      const row = await ctx.db.connection.findFirst({ where: { id: input.connectionId, tenant: call.tenant } });
      if (!row) throw connectionNotFound(input.connectionId);
      return { action: "revoke" as const, connection: connectionOut(await revokeConnection(ctx, call, row)) };
    }
    case "share":
      throw new GantryError("not_implemented", "connection.authorize share is declared but not wired yet.", {
        reason:
          "Shares grant another principal chosen tools of a connection; they arrive with the tool registry (integration.*).",
      });
  }
});
