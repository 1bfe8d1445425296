/**
 * @module catalogue/connections
 * External-account connections and integrations, owned by the connections service
 * (spec §2.5 Connection, §3, §4.3 connection.*, integration.execute, integration.search; §5.10).
 */
import type { AbilityEntry } from "./types.ts";
import {
  array,
  constant,
  cursor,
  dateTime,
  freeObject,
  id,
  idempotencyKey,
  limit,
  line,
  object,
  oneOfValues,
  serviceKey,
  slug,
  text,
  url,
} from "./schema.ts";

/** Connection statuses (spec §2.5, §3). */
export const CONNECTION_STATUSES = ["pending", "connected", "revoked"] as const;

/** Toolkit (app) slugs and tool slugs of the integration catalogue. */
const TOOLKIT_PATTERN = "^[a-z0-9][a-z0-9_-]*$";
const TOOL_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.@-]*$";

function toolkit(description: string) {
  return text(description, 64, { pattern: TOOLKIT_PATTERN });
}

function connectionId(
  description = "Id of the connection (from connection.authorize, connection.list or integration.search).",
) {
  return id(description);
}

export const abilities = [
  {
    id: "connection.authorize",
    summary:
      "Start or complete actor-bound consent for an external account, revoke it, or share it with an expiring grant.",
    inputSource: "spec",
    input: {
      type: "object",
      description:
        "One of four variants, selected by `action`: start (default when `action` is omitted), complete, revoke, share.",
      oneOf: [
        object(
          {
            action: constant("`start` (may be omitted): begin consent for a service.", "start"),
            service: serviceKey("Service key to connect (e.g. `payments`, `email`, `whatsapp`)."),
            returnUrl: url("Where the consent flow sends the user back to afterwards."),
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
            sessionUri: text("Session URI returned by the provider's consent redirect.", 4096, { format: "uri" }),
          },
          ["action", "connectionId", "state", "sessionUri"],
          { title: "complete", description: "Finish consent; the connection becomes connected." },
        ),
        object(
          {
            action: constant("`revoke`: revoke the account behind a connection.", "revoke"),
            connectionId: connectionId(),
          },
          ["action", "connectionId"],
          {
            title: "revoke",
            description: "Revoke the connection; payment.* and message.send fall back to the platform account.",
          },
        ),
        object(
          {
            action: constant("`share`: grant another principal use of a connection for named tools.", "share"),
            connectionId: connectionId(),
            principalId: id("Principal (user or agent) the connection is shared with."),
            toolIds: array(
              "Tools the principal may run through this connection.",
              text("A tool id.", 200, { pattern: TOOL_PATTERN }),
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
    },
    example: { service: "payments", returnUrl: "https://app.example.com/settings/connections" },
  },
  {
    id: "connection.get",
    summary: "Get the tenant's connection for one service.",
    inputSource: "spec",
    input: object({ service: serviceKey("Service key (e.g. `payments`, `email`).") }, ["service"]),
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
    example: { status: "connected", limit: 20 },
  },
  {
    id: "connection.revoke",
    summary:
      "Revoke the tenant's connection for a service; payment and message abilities then use the platform account.",
    inputSource: "spec",
    input: object({ service: serviceKey("Service key whose connection is revoked.") }, ["service"]),
    example: { service: "payments" },
  },
  {
    id: "integration.app.connect",
    summary: "Connect an account of an integration app (toolkit) through OAuth or API-key credentials.",
    inputSource: "ours",
    input: object(
      {
        toolkit: toolkit("Toolkit (app) to connect, from integration.app.toolkits (e.g. `github`)."),
        returnUrl: url("Where an OAuth flow sends the user back to."),
        label: line("Your label for this account, to tell several accounts of one app apart.", 100),
        credentials: {
          type: "object",
          description:
            "For toolkits that use API-key auth instead of OAuth: the credential fields the toolkit asks for. Stored encrypted; never echoed, listed or logged.",
          minProperties: 1,
          maxProperties: 20,
          propertyNames: { type: "string", maxLength: 64, pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" },
          additionalProperties: { type: "string", minLength: 1, maxLength: 4096 },
        },
        idempotencyKey: idempotencyKey("the connection"),
      },
      ["toolkit"],
    ),
    example: { toolkit: "github", returnUrl: "https://app.example.com/integrations/done", label: "Engineering org" },
  },
  {
    id: "integration.app.connections",
    summary: "List the principal's connected integration-app accounts.",
    inputSource: "ours",
    input: object({
      toolkit: toolkit("Only accounts of this toolkit."),
      status: oneOfValues("Only accounts in this status.", CONNECTION_STATUSES),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { toolkit: "github" },
  },
  {
    id: "integration.app.execute",
    summary: "Run one integration-app tool by slug on a connected account.",
    inputSource: "ours",
    input: object(
      {
        tool: text("Tool slug from integration.app.tools (e.g. `GITHUB_CREATE_ISSUE`).", 200, {
          pattern: TOOL_PATTERN,
        }),
        arguments: freeObject("Tool arguments, validated against the tool's own input schema."),
        connectionId: connectionId(
          "Account to run on. Omit to use the principal's only connected account of the tool's toolkit (refused when there are several).",
        ),
        idempotencyKey: idempotencyKey("the tool's side effect"),
      },
      ["tool", "arguments"],
    ),
    example: {
      tool: "GITHUB_CREATE_ISSUE",
      arguments: { owner: "acme", repo: "website", title: "Checkout button misaligned on mobile" },
      idempotencyKey: "issue-checkout-button-2026-05-02",
    },
  },
  {
    id: "integration.app.toolkits",
    summary: "List the integration apps (toolkits) available to connect.",
    inputSource: "ours",
    input: object({
      query: text("Search toolkit names and descriptions.", 200),
      category: slug("Only toolkits in this category (e.g. `crm`, `developer-tools`)."),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { query: "issue tracker", limit: 10 },
  },
  {
    id: "integration.app.tools",
    summary: "List the tools of one integration app, with their input schemas.",
    inputSource: "ours",
    input: object(
      {
        toolkit: toolkit("Toolkit whose tools are listed (e.g. `github`)."),
        query: text("Search tool names and descriptions.", 200),
        limit: limit(),
        cursor: cursor(),
      },
      ["toolkit"],
    ),
    example: { toolkit: "github", query: "issue" },
  },
  {
    id: "integration.execute",
    summary: "Execute one version-pinned tool through an explicit owned or shared connection, under server policy.",
    inputSource: "spec",
    input: object(
      {
        connectionId: connectionId("Owned or shared connection to execute through."),
        toolId: text("Version-pinned tool id (from integration.search), e.g. `github.create_issue@1`.", 200, {
          pattern: TOOL_PATTERN,
        }),
        arguments: freeObject("Tool arguments, validated against the pinned tool version's schema."),
        idempotencyKey: idempotencyKey("the tool's side effect"),
      },
      ["connectionId", "toolId", "arguments"],
    ),
    example: {
      connectionId: "con_01J9Z4A1B2C3D4E5F6G7H8J9K0",
      toolId: "github.create_issue@1",
      arguments: { owner: "acme", repo: "website", title: "Checkout button misaligned on mobile" },
      idempotencyKey: "issue-checkout-button-2026-05-02",
    },
  },
  {
    id: "integration.search",
    summary: "Discover approved tools on a connection, or list the principal's connections.",
    inputSource: "spec",
    input: {
      type: "object",
      description:
        "One of two variants, selected by `action`: `connections` lists connections; `tools` (default when `action` is omitted) discovers tools on a connection.",
      oneOf: [
        object(
          { action: constant("`connections`: list the principal's owned and shared connections.", "connections") },
          ["action"],
          { title: "connections listing", description: "List the connections the principal may execute through." },
        ),
        object(
          {
            action: constant("`tools` (may be omitted): discover tools on a connection.", "tools"),
            connectionId: connectionId("Connection whose approved tools are searched."),
            query: text("What the tool should do; omit to list all approved tools.", 500),
          },
          ["connectionId"],
          {
            title: "tool discovery",
            description: "Approved, version-pinned tools on the connection, ranked by the query.",
          },
        ),
      ],
    },
    example: { connectionId: "con_01J9Z4A1B2C3D4E5F6G7H8J9K0", query: "create an issue" },
  },
] as const satisfies readonly AbilityEntry[];
