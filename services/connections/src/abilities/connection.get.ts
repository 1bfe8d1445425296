/**
 * @module connections/abilities/connection.get
 * The tenant's connection for one service (the live one, else the latest revoked one, else null)
 * and whose account the service's abilities use now (`credentialSource`, what ResolveCredential
 * answers). A service key no provider or platform account is configured for, and that the tenant
 * never connected, is refused with 400 naming `/input/service`.
 */
import { ability } from "../context.ts";
import { connectionForService } from "../connections.ts";
import { connectionOut, credentialSource, unknownService } from "../records.ts";

export default ability("connection.get", async (input, call, ctx) => {
  const row = await connectionForService(ctx, call.tenant, input.service);
  if (!row && !ctx.providers.has(input.service) && !ctx.platform.has(input.service))
    throw unknownService(ctx, input.service);
  return {
    service: input.service,
    credentialSource: credentialSource(ctx, input.service, row),
    connection: row ? connectionOut(row) : null,
  };
});
