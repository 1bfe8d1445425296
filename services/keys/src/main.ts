/**
 * @module keys/main
 * The keys service: key resolution for the gateway, the bootstrap admin key, the audit log writer,
 * and (issue #3) the key.* abilities.
 */
import { main, type BaseConfig } from "@gantry/kit";
import { createDb, type PrismaClient } from "./db.ts";
import { ensureAdminKey } from "./bootstrap.ts";
import { resolverService } from "./resolver.ts";
import { startAuditConsumer } from "./audit-consumer.ts";

interface KeysConfig extends BaseConfig {
  GANTRY_ADMIN_KEY?: string;
}

let db: PrismaClient;
let audit: { stop: () => Promise<void> } | undefined;

main<KeysConfig>({
  name: "keys",
  env: {
    GANTRY_ADMIN_KEY: { type: "string", description: "admin key to register at start (gk_…); generated and printed once when unset" },
  },
  init: async (deps) => {
    db = createDb(deps);
    await ensureAdminKey(db, deps.pool!, deps.config.GANTRY_ADMIN_KEY, deps.log);
    audit = startAuditConsumer(deps.nats, db, deps.log);
  },
  abilities: () => ({}),
  grpcServices: (deps) => [resolverService(db, deps.log)],
  close: async () => {
    await audit?.stop();
    await db?.$disconnect();
  },
});
