/**
 * @module catalogue/connections/connection
 * The connections service's abilities of the `connection` area (Connections: external-account connections of a tenant: consent, read, list, revoke, time-limited share).
 * `proto/catalogue/connections.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { enumOf, fields, page, str, timestamp } from "../output.ts";
import {
  array,
  constant,
  cursor,
  dateTime,
  id,
  limit,
  nullable,
  object,
  oneOfValues,
  serviceKey,
  text,
  union,
  url,
} from "../schema.ts";
import { CONNECTION_STATUSES, TOOL_ID_MAX, TOOL_PATTERN, connectionId, connection, share } from "./shared.ts";

/** The consent a caller must complete (connection.authorize start, integration.app.connect with OAuth). */
function consentProps() {
  return {
    authorizationUrl: str(
      "The provider's authorization URL (OAuth 2.0 authorization code with PKCE S256 and `state`): send the user there; after consent the provider redirects the user to `returnUrl` (or the service's first registered redirect URI) with `code` and `state`, and that page passes the URL it was opened with to connection.authorize `complete` as `sessionUri`.",
      { format: "uri" },
    ),
    state: str(
      "Anti-forgery value bound to this consent session and to the calling principal; connection.authorize `complete` must present it.",
    ),
    expires: timestamp("When the consent session expires (RFC 3339; 10 minutes after start)."),
  };
}

/** What a service uses now: connection.get and connection.revoke. */
function serviceConnection(description: string) {
  return fields(
    {
      service: str("Service key asked about."),
      credentialSource: enumOf(
        "Whose account payment.* and message.send use for this service now (what the internal ResolveCredential answers): `tenant` (this connection, connected), `platform` (the platform account: no usable connection), or `none` (no usable connection and no platform account is configured for the service: abilities that need it fail).",
        ["tenant", "platform", "none"],
      ),
      connection: nullable(
        connection(),
        "The tenant's connection for the service (any status), or null when it has never connected one.",
      ),
    },
    [],
    { description },
  );
}

export const abilities = [
  {
    id: "connection.authorize",
    summary:
      "Start or complete actor-bound consent for an external account, revoke it, or share it with an expiring grant.",
    inputSource: "spec",
    input: union(
      [
        object(
          {
            action: constant("`start` (may be omitted): begin consent for a service.", "start"),
            service: serviceKey("Service key to connect (e.g. `payments`, `email`, `whatsapp`)."),
            returnUrl: url(
              "Where the provider sends the user back after consent: one of the redirect URIs registered for the service (default: the first). That page passes the full URL it was opened with to `complete` as `sessionUri`.",
            ),
          },
          ["service"],
          {
            title: "start",
            description: "Begin consent; returns the consent URL, the pending connectionId and a state value.",
          },
        ),
        object(
          {
            action: constant("`complete`: finish a consent started with `start`.", "complete"),
            connectionId: connectionId("Pending connection returned by the start variant."),
            state: text("The state value returned by the start variant (anti-forgery check).", 2048),
            sessionUri: text(
              "The full URL the provider redirected the user to after consent (the redirect URI with `code` and `state`, or `error`).",
              4096,
              { format: "uri" },
            ),
          },
          ["action", "connectionId", "state", "sessionUri"],
          { title: "complete", description: "Finish consent; the connection becomes connected." },
        ),
        object(
          {
            action: constant("`revoke`: revoke the account behind a connection, or one share of it.", "revoke"),
            connectionId: connectionId(),
            shareId: id(
              "A share (`shr_…`) of the connection to revoke instead of the connection: only that grant ends (the owner's account stays connected).",
            ),
          },
          ["action", "connectionId"],
          {
            title: "revoke",
            description:
              "Revoke the connection (and every share of it); payment.* and message.send fall back to the platform account. With `shareId`, revoke only that share.",
          },
        ),
        object(
          {
            action: constant("`share`: grant another principal use of a connection for named tools.", "share"),
            connectionId: connectionId(),
            principalId: id("Principal (user or agent) the connection is shared with."),
            toolIds: array(
              "Tools the principal may run through this connection.",
              text("A tool id.", TOOL_ID_MAX, { pattern: TOOL_PATTERN }),
              100,
              1,
              true,
            ),
            expiresAt: dateTime("When the share ends (RFC 3339). Omit for a share that lasts until revoked."),
          },
          ["action", "connectionId", "principalId", "toolIds"],
          { title: "share", description: "Create an explicit, optionally expiring share of the connection." },
        ),
      ],
      {
        type: "object",
        description:
          "One of four variants, selected by `action`: start (default when `action` is omitted), complete, revoke, share.",
      },
    ),
    output: union(
      [
        fields(
          {
            action: enumOf("The variant that ran.", ["start"]),
            connection: connection("The pending connection; its `id` is the connectionId `complete` needs."),
            ...consentProps(),
          },
          [],
          { title: "start", description: "Consent started: send the user to `authorizationUrl`." },
        ),
        fields(
          {
            action: enumOf("The variant that ran.", ["complete"]),
            connection: connection("The connection, now `connected`."),
          },
          [],
          { title: "complete", description: "Consent completed by the principal that started it." },
        ),
        fields(
          {
            action: enumOf("The variant that ran.", ["revoke"]),
            connection: connection(
              "The connection, now `revoked` (revoking again returns it unchanged); with `shareId`, the connection unchanged.",
            ),
            share: nullable(
              share(),
              "With `shareId`: the share, now `revoked` (revoking again returns it unchanged); null when the connection was revoked.",
            ),
          },
          [],
          {
            title: "revoke",
            description:
              "The account's tokens were revoked at the provider (where it supports revocation) and deleted; payment.* and message.send use the platform account from now on.",
          },
        ),
        fields({ action: enumOf("The variant that ran.", ["share"]), share: share("The share created.") }, [], {
          title: "share",
          description: "The share; every execution through it is checked against it.",
        }),
      ],
      { description: "One result per input variant, told apart by `action`." },
    ),
    example: { service: "payments", returnUrl: "https://app.example.com/settings/connections" },
  },
  {
    id: "connection.get",
    summary: "Get the tenant's connection for one service.",
    inputSource: "spec",
    input: object({ service: serviceKey("Service key (e.g. `payments`, `email`).") }, ["service"]),
    output: serviceConnection(
      "The tenant's connection for the service and whose account the service's abilities use now.",
    ),
    example: { service: "email" },
  },
  {
    id: "connection.list",
    summary: "List the tenant's external-account connections: service, status and external reference.",
    inputSource: "ours",
    input: object({
      service: serviceKey("Only connections of this service key."),
      status: oneOfValues("Only connections in this status.", CONNECTION_STATUSES),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Connections, newest first.", connection()),
    example: { status: "connected", limit: 20 },
  },
  {
    id: "connection.revoke",
    summary:
      "Revoke the tenant's connection for a service; payment and message abilities then use the platform account.",
    inputSource: "spec",
    input: object({ service: serviceKey("Service key whose connection is revoked.") }, ["service"]),
    output: serviceConnection(
      "The revoked connection (revoking again returns it unchanged); `credentialSource` is now `platform` (or `none` without a platform account).",
    ),
    example: { service: "payments" },
  },
] as const satisfies readonly AbilityEntry[];
