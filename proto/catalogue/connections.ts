/**
 * @module catalogue/connections
 * External-account connections and integrations, owned by the connections service
 * (spec §2.5 Connection, §3, §4.3 connection.*, integration.execute, integration.search; §5.10).
 */
import type { AbilityEntry } from "./types.ts";
import { abilities as connection } from "./connections/connection.ts";
import { abilities as integration } from "./connections/integration.ts";

export { CONNECTION_STATUSES, CONNECTION_RESULT_STATUSES, SHARE_STATUSES } from "./connections/shared.ts";

/** The service's entries, area by area (one file per area under `./connections/`). */
export const abilities = [...connection, ...integration] as const satisfies readonly AbilityEntry[];
