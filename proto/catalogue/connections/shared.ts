/**
 * @module catalogue/connections/shared
 * The value lists and schema builders that more than one of the connections service's areas use; each
 * area's own builders sit in its file beside its entries.
 */
import { enumOf, fields, list, nullableStr, nullableTimestamp, str, timestamp } from "../output.ts";
import { id } from "../schema.ts";

/**
 * Connection statuses (spec §2.5, §3: pending, connected, revoked) plus `needs_reauth` (issue 14):
 * the provider refused a token refresh (`invalid_grant`), consent must be given again. List filters
 * accept every status results can show.
 */
export const CONNECTION_STATUSES = ["pending", "connected", "needs_reauth", "revoked"] as const;

export const TOOL_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.@-]*$";

/**
 * Longest tool id an input takes. A directory tool's `toolkit.tool` is at most 198 characters
 * (services/connections/scripts/build-directory.ts), and every update may add a version: 200 left
 * room for `@1`–`@9` only, so `@10` of a long name could not be named; this leaves room for 7 digits.
 */
export const TOOL_ID_MAX = 206;

/** Category slugs of toolkits: the directory's (APIs.guru) vocabulary, `payment`, `developer_tools`, `messaging`, … */
export const CATEGORY_PATTERN = "^[a-z0-9][a-z0-9_-]*$";

export function connectionId(
  description = "Id of the connection (from connection.authorize, connection.list or integration.search).",
) {
  return id(description);
}

// ---- Results ----------------------------------------------------------------------------------

/**
 * Connection statuses as results show them (issue 14): the spec's pending, connected, revoked plus
 * `needs_reauth` (the provider refused a refresh with `invalid_grant`; consent must be given again).
 * Moves: pending → connected → needs_reauth | revoked; needs_reauth → connected (new consent) | revoked.
 */
export const CONNECTION_RESULT_STATUSES = CONNECTION_STATUSES;

/** Share statuses: `expired` once `expires` has passed, `revoked` when withdrawn early. */
export const SHARE_STATUSES = ["active", "expired", "revoked"] as const;

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
export function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

export function connectionIdOut(description = "Connection id (`con_…`).") {
  return prefixedId("con", description);
}

/** Properties of a connection record (shared by connection.*, integration.app.* and integration.search). */
export function connectionProps() {
  return {
    id: connectionIdOut("Connection id (`con_…`): the `connectionId` of connection.authorize, integration.execute."),
    tenant: str("Tenant that owns the connection."),
    kind: enumOf(
      "`service`: the tenant's account for a service that payment.* and message.send use (connection.*); `app`: an integration-app account (integration.app.*), run through integration tools.",
      ["service", "app"],
    ),
    service: str(
      "Service key (e.g. `payments`, `email`, `whatsapp`); for an integration-app account, its toolkit slug (e.g. `github`).",
    ),
    label: nullableStr("Your label for the account (integration.app.connect `label`), or null."),
    status: enumOf(
      "pending: consent started, not completed; connected: usable; needs_reauth: the provider refused a token refresh (`invalid_grant`), consent must be given again; revoked: final. Moves pending → connected → needs_reauth | revoked.",
      CONNECTION_RESULT_STATUSES,
    ),
    authScheme: enumOf(
      "How the account is authorised: `oauth2` (authorization code with PKCE), `api_key` (credentials given once) or `token` (a token the user made at the provider, given once to integration.app.connect `token`: a GitHub personal access token, a Slack bot token; never refreshed).",
      ["oauth2", "api_key", "token"],
    ),
    externalRef: nullableStr(
      "The provider's reference to the connected account (its account id, login or workspace id); null until connected. Never a credential.",
    ),
    scopes: list("OAuth scopes the provider granted; empty for API-key accounts and while pending.", str("A scope.")),
    principalId: str("Principal (the API key id, `key_…`) that gave consent and owns the connection."),
    created: timestamp("When consent was started or the account added (RFC 3339)."),
    updated: timestamp("Last change of status, label or credentials (RFC 3339)."),
    connected: nullableTimestamp("When consent completed (RFC 3339); null while pending."),
    revoked: nullableTimestamp("When the connection was revoked (RFC 3339); null unless revoked."),
    credentialExpires: nullableTimestamp(
      "When the current access token expires (RFC 3339); it is refreshed ahead of this. Null for credentials that do not expire (API keys) and while pending.",
    ),
    lastRefreshed: nullableTimestamp("When the access token was last refreshed (RFC 3339); null if never."),
    lastUsed: nullableTimestamp("When a call last used the connection's credentials (RFC 3339); null if never."),
  };
}

/** A connection as stored: credentials are never part of it. */
export function connection(description = "A connection. Tokens and API keys are never included.") {
  return fields(connectionProps(), [], { description });
}

/** An explicit, optionally expiring share of a connection with another principal. */
export function share(description = "A share of a connection.") {
  return fields(
    {
      id: prefixedId("shr", "Share id (`shr_…`)."),
      connectionId: connectionIdOut("Connection shared (`con_…`)."),
      principalId: str("Principal the connection is shared with."),
      toolIds: list(
        "Tools the principal may run through the connection (every other tool is refused with 403).",
        str("A tool id."),
      ),
      status: enumOf(
        "active: usable; expired: `expires` has passed (executions are refused with 403); revoked: withdrawn.",
        SHARE_STATUSES,
      ),
      grantedBy: str("Principal (API key id) that created the share: the connection's owner."),
      created: timestamp("When the share was created (RFC 3339)."),
      expires: nullableTimestamp("When the share ends (RFC 3339); null for a share that lasts until revoked."),
      revoked: nullableTimestamp("When the share was revoked (RFC 3339); null unless revoked."),
    },
    [],
    { description },
  );
}
