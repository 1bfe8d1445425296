/**
 * @module connections/context
 * What every handler of the service (and the CredentialResolver RPC) receives as `ctx`, built once by
 * `init` in service.ts: the Prisma client over the kit's tenant-scoped pool, the parsed configuration,
 * the master keys that unwrap credential data keys, the configured OAuth providers and platform
 * accounts, NATS, the logger, the clock (test-shiftable, kit/src/clock.ts), the single-flight table
 * of refreshes in progress, and the background work to stop on shutdown.
 *
 * @example
 * // src/abilities/connection.get.ts
 * export default ability("connection.get", async (input, call, ctx) => …);
 */
import { abilityOf, type Clock, type Logger, type Nats, type OutboxRelay, type SsrfGuard } from "@gantry/kit";
import type { ConnectionsConfig } from "./config.ts";
import type { MasterKeys } from "./crypto.ts";
import type { Connection, PrismaClient } from "./db.ts";
import type { OAuthProvider } from "./oauth.ts";
import type { ToolMeaning } from "./tool-meaning.ts";
import type { Registry } from "./toolkits.ts";

export interface Context {
  db: PrismaClient;
  config: ConnectionsConfig;
  keys: MasterKeys;
  /** OAuth providers by service key (CONNECTIONS_PROVIDERS). */
  providers: ReadonlyMap<string, OAuthProvider>;
  /** Platform account credentials by service key (CONNECTIONS_PLATFORM_ACCOUNTS). */
  platform: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** The toolkit registry (toolkits/<slug>/: OpenAPI 3 documents, version-pinned tools), loaded at start. */
  toolkits: Registry;
  /** integration.search's re-ranking by the sentence model; null when CONNECTIONS_TOOL_MEANING is off. */
  meaning: ToolMeaning | null;
  /** The kit's SSRF guard every tool execution's request goes through (time and size caps). */
  guard: SsrfGuard;
  nats: Nats;
  /** The outbox relay: events written in a change's transaction, published once it commits. */
  outbox: OutboxRelay;
  log: Logger;
  now: Clock;
  /** Refreshes in progress in this process, by connection id: concurrent uses share one. */
  refreshing: Map<string, Promise<Connection>>;
  /** The refresh sweep started by init; stopped by the close hook. */
  background: { stop: () => Promise<void> };
}

/** `ability(id, run)`: declares the handler of one ability (one file per ability under abilities/). */
export const ability = abilityOf<Context>();
