/**
 * @module connections/abilities/connection.revoke
 * Revokes the tenant's connection for a service (at the provider and here; see
 * connections.ts `revokeConnection`); the service's abilities then use the platform account.
 * Revoking again returns the revoked connection unchanged; a service the tenant never connected is
 * 404 naming `/input/service`.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { connectionForService, revokeConnection } from "../connections.ts";
import { connectionOut, credentialSource } from "../records.ts";

export default ability("connection.revoke", async (input, call, ctx) => {
  const row = await connectionForService(ctx, call.tenant, input.service);
  if (!row)
    throw new GantryError("not_found", `This tenant has no connection for ${input.service}.`, {
      details: [
        {
          path: "/input/service",
          message: `/input/service names a service this tenant never connected`,
          code: "record_not_found",
        },
      ],
    });
  const revoked = await revokeConnection(ctx, call, row);
  return {
    service: input.service,
    credentialSource: credentialSource(ctx, input.service, null),
    connection: connectionOut(revoked),
  };
});
