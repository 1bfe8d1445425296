/**
 * @module catalogue/connections/integration
 * The connections service's abilities of the `integration` area (Integrations: approved third-party tools over owned or shared connections).
 * `proto/catalogue/connections.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import {
  bool,
  enumOf,
  fields,
  int,
  json,
  list,
  nullableStr,
  nullableTimestamp,
  num,
  page,
  str,
  timestamp,
} from "../output.ts";
import {
  constant,
  cursor,
  freeObject,
  idempotencyKey,
  limit,
  line,
  nullable,
  object,
  oneOfValues,
  text,
  typed,
  union,
  url,
} from "../schema.ts";
import {
  CONNECTION_STATUSES,
  CATEGORY_PATTERN,
  TOOL_ID_MAX,
  TOOL_PATTERN,
  connectionId,
  prefixedId,
  connectionIdOut,
  connectionProps,
  connection,
  share,
} from "./shared.ts";

/** Toolkit (app) slugs and tool slugs of the integration catalogue. */
const TOOLKIT_PATTERN = "^[a-z0-9][a-z0-9_-]*$";

function toolkit(description: string) {
  return text(description, 64, { pattern: TOOLKIT_PATTERN });
}

/** Idempotency of a tool run: only tools with side effects (not GET operations) are replayed. */
function toolIdempotencyKey() {
  return text(
    "Client-chosen key that makes retries safe for tools with side effects (every operation but GET): reusing it with the same input returns the first run's result without calling the provider again; with different input it is refused (409). Passed on (hashed) where the provider has its own idempotency header (Stripe's `Idempotency-Key`). Read-only (GET) tools run again.",
    255,
  );
}

function toolIdOut(description: string) {
  return str(description, { pattern: "^[a-z0-9][a-z0-9_-]*\\.[A-Za-z0-9_.-]+@[1-9][0-9]*$" });
}

/** Properties of a tool of the registry: one operation of a toolkit's OpenAPI document, pinned by version. */
function toolProps() {
  return {
    id: toolIdOut(
      "Version-pinned tool id `toolkit.tool@N` (e.g. `github.create_issue@1`): integration.execute runs exactly this version.",
    ),
    slug: str(
      "Tool slug (e.g. `GITHUB_CREATE_ISSUE`) for integration.app.execute, which runs the latest version of the tool.",
    ),
    toolkit: str("Toolkit (app) slug the tool belongs to."),
    name: str("Display name."),
    description: str("What the tool does."),
    version: int("Version number N of this tool (the `@N` of `id`)."),
    latest: bool("Whether this is the tool's latest version."),
    deprecated: bool("Whether the version is deprecated (still runs when named; prefer the latest)."),
    method: enumOf("HTTP method of the underlying operation.", ["GET", "POST", "PUT", "PATCH", "DELETE"]),
    path: str(
      "Path template of the operation in the toolkit's OpenAPI document (e.g. `/repos/{owner}/{repo}/issues`).",
    ),
    inputSchema: typed<Record<string, unknown>>({
      type: "object",
      description: "JSON Schema (draft 2020-12) that `arguments` must match for this version.",
    }),
  };
}

function tool(description = "A tool.") {
  return fields(toolProps(), [], { description });
}

/** A toolkit (app) of the registry: an OpenAPI 3 document plus an auth scheme. */
function toolkitOut() {
  return fields(
    {
      slug: str("Toolkit slug (e.g. `github`), the `toolkit` of integration.app.* inputs."),
      name: str("Display name."),
      description: str("What the app is."),
      categories: list(
        "Categories, one vocabulary for every toolkit (APIs.guru's: `payment`, `developer_tools`, `messaging`, …).",
        str("A category slug."),
      ),
      authScheme: enumOf(
        "How accounts connect: `oauth2` (via returnUrl; `github` and `slack` also take a `token` instead) or `api_key` (via `credentials`).",
        ["oauth2", "api_key"],
      ),
      credentialFields: list(
        "For `api_key` toolkits: the field names integration.app.connect `credentials` must contain; empty for `oauth2`.",
        str("A credential field name."),
      ),
      apiVersion: str(
        "Version of the provider API the tools were generated from (the OpenAPI document's `info.version`).",
      ),
      toolCount: int("Number of tools (latest versions) in the toolkit."),
      logoUrl: nullableStr("Logo image URL, or null."),
      docsUrl: nullableStr("The provider's API documentation URL, or null."),
    },
    [],
    { description: "A toolkit." },
  );
}

/** A tool execution: what the provider answered. */
function execution(description: string) {
  return fields(
    {
      id: prefixedId("exe", "Execution id (`exe_…`)."),
      toolId: toolIdOut("Exact tool version that ran (`toolkit.tool@N`)."),
      connectionId: connectionIdOut("Connection whose credentials were used (`con_…`)."),
      access: enumOf("Whether the caller ran it as the connection's `owner` or through a `share`.", [
        "owner",
        "shared",
      ]),
      status: int("HTTP status the provider answered."),
      successful: bool("Whether the provider answered 2xx."),
      contentType: nullableStr("Content-Type of the provider's response, or null when it sent none."),
      body: json(
        "The provider's response body: parsed JSON when it is JSON, otherwise the text; null when empty. Cut at the response size cap (see `truncated`).",
      ),
      truncated: bool(
        "Whether the body was cut at the response size cap (the text then ends early and is not parsed).",
      ),
      durationMs: int("Time the provider took to answer, in milliseconds."),
      requestId: str(
        "Request id (`req_…`) of the call that executed the tool: a receipt trust claims can cite. A replay with the same idempotencyKey returns the first call's result, so this is then the first call's id.",
      ),
      executed: timestamp("When the provider was called (RFC 3339)."),
    },
    [],
    { description },
  );
}

export const abilities = [
  {
    id: "integration.app.connect",
    summary:
      "Connect an account of an integration app (toolkit) through OAuth, API-key credentials, or a GitHub or Slack token.",
    inputSource: "ours",
    input: object(
      {
        toolkit: toolkit("Toolkit (app) to connect, from integration.app.toolkits (e.g. `github`)."),
        returnUrl: url("Where an OAuth flow sends the user back to."),
        label: line("Your label for this account, to tell several accounts of one app apart.", 100),
        credentials: typed<Record<string, string>>({
          type: "object",
          description:
            "For toolkits that use API-key auth instead of OAuth: the credential fields the toolkit asks for. Stored encrypted; never echoed, listed or logged.",
          minProperties: 1,
          maxProperties: 20,
          propertyNames: { type: "string", maxLength: 64, pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" },
          additionalProperties: { type: "string", minLength: 1, maxLength: 4096 },
        }),
        token: text(
          "For `github` and `slack`, instead of OAuth consent (no OAuth app needed): a GitHub personal access token (classic `ghp_…` or fine-grained `github_pat_…`) or a Slack bot token (`xoxb-…`). Checked with the provider (GitHub `GET /user`, Slack `auth.test`) before it is stored; stored encrypted; never echoed, listed or logged.",
          1024,
        ),
        idempotencyKey: idempotencyKey("the connection"),
      },
      ["toolkit"],
    ),
    output: fields(
      {
        connection: connection(
          "The account: `pending` for OAuth toolkits until consent completes, `connected` for API-key credentials and tokens (checked with the provider; a token's account has the provider's `externalRef`, GitHub's login or Slack's bot user id, and GitHub's `scopes` for a classic token).",
        ),
        authorizationUrl: nullableStr(
          "OAuth toolkits: the provider's authorization URL to send the user to (authorization code with PKCE); null for API-key credentials and tokens.",
        ),
        state: nullableStr(
          "OAuth toolkits: the consent session's anti-forgery value (for connection.authorize `complete`); null for API-key credentials and tokens.",
        ),
        expires: nullableTimestamp(
          "OAuth toolkits: when the consent session expires (RFC 3339); null for API-key credentials and tokens.",
        ),
      },
      [],
      { description: "The new account and, for OAuth toolkits, the consent to complete." },
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
    output: page("The principal's integration-app accounts (`kind` is `app`), newest first.", connection()),
    example: { toolkit: "github" },
  },
  {
    id: "integration.app.execute",
    summary: "Run one integration-app tool by slug on a connected account.",
    inputSource: "ours",
    input: object(
      {
        tool: text(
          "Tool slug from integration.app.tools (e.g. `GITHUB_CREATE_ISSUE`): its latest version runs. A version-pinned id (`github.create_issue@1`) runs exactly that version.",
          TOOL_ID_MAX,
          {
            pattern: TOOL_PATTERN,
          },
        ),
        arguments: freeObject("Tool arguments, validated against the tool's own input schema."),
        connectionId: connectionId(
          "Account to run on. Omit to use the principal's only connected account of the tool's toolkit (refused when there are several).",
        ),
        idempotencyKey: toolIdempotencyKey(),
      },
      ["tool", "arguments"],
    ),
    output: execution("What the tool's provider answered; the tool's latest version ran (see `toolId`)."),
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
      query: text(
        "What you want to do or reach (e.g. `send an sms`): toolkits ranked by relevance of their names, descriptions, categories and tools, best first, by meaning (a sentence model) fused with their words where the directory toolkits are on (by words alone, said in the log, when the model is unavailable); else any word of name, slug or description, by name.",
        200,
      ),
      category: text("Only toolkits in this category (e.g. `payment`, `developer_tools`; see `categories`).", 64, {
        pattern: CATEGORY_PATTERN,
      }),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Toolkits, by name; with `query`, best match first.", toolkitOut()),
    example: { query: "issue tracker", limit: 10 },
  },
  {
    id: "integration.app.tools",
    summary: "List the tools of one integration app, with their input schemas.",
    inputSource: "ours",
    input: object(
      {
        toolkit: toolkit(
          "Toolkit whose tools are listed (e.g. `github`). Omitted: `query` is required, and the tools of every toolkit are searched.",
        ),
        query: text(
          "What you want done (e.g. `send an sms`). Without `toolkit`, ranked across every toolkit, best first; with a directory `toolkit`, its tools ranked the same way (by meaning fused with words, including a few near by meaning that share no word); with a shipped `toolkit`, a filter on words of tool names and descriptions.",
          200,
        ),
        limit: limit(),
        cursor: cursor(),
      },
      [],
    ),
    output: page(
      "Tools of the toolkit (latest versions), by name (with `query` on a directory toolkit, best first); without `toolkit`, the best matches of `query` across every toolkit, best first.",
      tool(),
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
        toolId: text("Version-pinned tool id (from integration.search), e.g. `github.create_issue@1`.", TOOL_ID_MAX, {
          pattern: TOOL_PATTERN,
        }),
        arguments: freeObject(
          "Tool arguments, validated against the pinned tool version's `inputSchema` (each problem is a detail under `/input/arguments/…`): path and query parameters of the provider's operation and its request body fields.",
        ),
        idempotencyKey: toolIdempotencyKey(),
      },
      ["connectionId", "toolId", "arguments"],
    ),
    output: execution("What the tool's provider answered; exactly the version named ran."),
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
            query: text(
              "What the tool should do; omit to list all approved tools. Filters on tool names and descriptions; the matches are ranked by meaning (a sentence model) fused with their names and descriptions.",
              500,
            ),
          },
          ["connectionId"],
          {
            title: "tool discovery",
            description: "Approved, version-pinned tools on the connection, ranked by the query.",
          },
        ),
      ],
    },
    output: union(
      [
        fields(
          {
            action: enumOf("The variant that ran.", ["connections"]),
            connections: list(
              "Connections the principal may execute through: its own, then those shared with it.",
              fields(
                {
                  ...connectionProps(),
                  access: enumOf("`owner`: the principal's own; `shared`: shared with it (see `share`).", [
                    "owner",
                    "shared",
                  ]),
                  share: nullable(
                    share(),
                    "For `shared` connections, the share that grants access (which tools, until when); null for owned ones.",
                  ),
                },
                [],
                { description: "A connection and how the principal may use it." },
              ),
            ),
          },
          [],
          { title: "connections listing", description: "The principal's owned and shared connections." },
        ),
        fields(
          {
            action: enumOf("The variant that ran (also when `action` was omitted).", ["tools"]),
            connectionId: connectionIdOut("Connection searched (`con_…`)."),
            toolkit: str("Toolkit of the connection."),
            tools: list(
              "Approved tools the principal may run on the connection (for a share, only its tools), best match first.",
              fields(
                {
                  ...toolProps(),
                  score: nullable(
                    num("Relevance."),
                    "Relevance to `query` (higher is better, 0..1); null when no query was given.",
                  ),
                },
                [],
                { description: "A version-pinned tool." },
              ),
            ),
          },
          [],
          { title: "tool discovery", description: "Approved, version-pinned tools on the connection." },
        ),
      ],
      { description: "One result per input variant, told apart by `action`." },
    ),
    example: { connectionId: "con_01J9Z4A1B2C3D4E5F6G7H8J9K0", query: "create an issue" },
  },
] as const satisfies readonly AbilityEntry[];
