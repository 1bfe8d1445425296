/**
 * @module connections/oauth
 * OAuth 2.0 against the configured providers, through `oauth4webapi` (a maintained, certified client
 * library): authorization code with PKCE (S256) and `state`, the token exchange, refresh, and token
 * revocation (RFC 7009). Each provider is one {@link ProviderConfig}; its authorization-server
 * metadata comes from discovery (RFC 8414 / OpenID Connect Discovery) when it names an `issuer`,
 * with explicitly configured endpoints taking precedence, and is fetched once per process.
 *
 * Provider failures become Gantry errors here, once: an OAuth error response is a
 * {@link ProviderRefusal} (its `error` code, e.g. `invalid_grant`, decides what the caller does);
 * an unreachable or misbehaving provider is 502 `upstream_failed`, a slow one 504 `timeout`.
 * No token or secret is ever part of a message.
 */
import * as oauth from "oauth4webapi";
import { GantryError } from "@gantry/kit";
import type { ProviderConfig } from "./config.ts";

/** What a token endpoint granted, normalised. */
export interface TokenSet {
  accessToken: string;
  /** Absent when the provider did not issue (or rotate) one. */
  refreshToken?: string;
  tokenType: string;
  /** Seconds from now, when the provider said. */
  expiresIn?: number;
  /** Granted scopes, when the provider said (else what was asked for applies). */
  scopes?: string[];
  /** The provider's reference to the account (ID token `sub` or the configured token-response field). */
  externalRef?: string;
}

/** The provider answered with an OAuth error (RFC 6749 §5.2 / §4.1.2.1). */
export class ProviderRefusal extends Error {
  readonly error: string;
  readonly description?: string;
  constructor(error: string, description?: string) {
    super(`the provider refused: ${error}${description ? ` (${description})` : ""}`);
    this.name = "ProviderRefusal";
    this.error = error;
    this.description = description;
  }
}

export interface OAuthOptions {
  /** Allow plain http to loopback endpoints (tests and local development). */
  allowHttpLoopback: boolean;
  timeoutMs: number;
}

/** One configured provider: its metadata (discovered once) and client. */
export class OAuthProvider {
  readonly config: ProviderConfig;
  readonly #options: OAuthOptions;
  readonly #client: oauth.Client;
  readonly #auth: oauth.ClientAuth;
  #metadata?: Promise<oauth.AuthorizationServer>;

  constructor(config: ProviderConfig, options: OAuthOptions) {
    this.config = config;
    this.#options = options;
    this.#client = { client_id: config.clientId };
    this.#auth =
      config.clientAuth === "client_secret_post"
        ? oauth.ClientSecretPost(config.clientSecret ?? "")
        : config.clientAuth === "client_secret_basic"
          ? oauth.ClientSecretBasic(config.clientSecret ?? "")
          : oauth.None();
  }

  /** Options every request to the provider carries: a timeout, and http only where allowed. */
  #request() {
    return {
      signal: AbortSignal.timeout(this.#options.timeoutMs),
      [oauth.allowInsecureRequests]: this.#options.allowHttpLoopback,
    };
  }

  /** The authorization server's metadata: discovered once (retried after a failure), explicit endpoints win. */
  metadata(): Promise<oauth.AuthorizationServer> {
    this.#metadata ??= this.#discover().catch((err) => {
      this.#metadata = undefined;
      throw err;
    });
    return this.#metadata;
  }

  async #discover(): Promise<oauth.AuthorizationServer> {
    const c = this.config;
    let discovered: oauth.AuthorizationServer | undefined;
    if (c.issuer) {
      discovered = await this.#call("discovery", async () => {
        let res = await oauth.discoveryRequest(c.issuer as URL, { algorithm: "oidc", ...this.#request() });
        if (res.status === 404)
          res = await oauth.discoveryRequest(c.issuer as URL, { algorithm: "oauth2", ...this.#request() });
        return oauth.processDiscoveryResponse(c.issuer as URL, res);
      });
    }
    const as: oauth.AuthorizationServer = {
      ...discovered,
      issuer: discovered?.issuer ?? (c.issuer ?? (c.authorizationEndpoint as URL)).origin,
      authorization_endpoint: c.authorizationEndpoint?.href ?? discovered?.authorization_endpoint,
      token_endpoint: c.tokenEndpoint?.href ?? discovered?.token_endpoint,
      revocation_endpoint: c.revocationEndpoint?.href ?? discovered?.revocation_endpoint,
    };
    if (!as.authorization_endpoint || !as.token_endpoint)
      throw new GantryError(
        "upstream_failed",
        `The ${c.service} provider's metadata names no authorization or token endpoint.`,
      );
    return as;
  }

  /** Whether the provider can revoke tokens (it has a revocation endpoint). */
  async canRevoke(): Promise<boolean> {
    return Boolean((await this.metadata()).revocation_endpoint);
  }

  /** The URL to send the user to: authorization code, PKCE S256, state. */
  async authorizationUrl(p: { redirectUri: string; state: string; codeVerifier: string }): Promise<URL> {
    const as = await this.metadata();
    const url = new URL(as.authorization_endpoint as string);
    for (const [k, v] of Object.entries(this.config.authorizationParams)) url.searchParams.set(k, v);
    url.searchParams.set("client_id", this.config.clientId);
    url.searchParams.set("redirect_uri", p.redirectUri);
    url.searchParams.set("response_type", "code");
    if (this.config.scopes.length) url.searchParams.set("scope", this.config.scopes.join(" "));
    url.searchParams.set("state", p.state);
    url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(p.codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    return url;
  }

  /**
   * Validates the redirect the provider sent the user to (state; an error it carries is a
   * ProviderRefusal) and exchanges its code, with the PKCE verifier, for tokens.
   */
  async exchangeCode(p: {
    callback: URL;
    state: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<TokenSet> {
    const as = await this.metadata();
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, this.#client, p.callback, p.state);
    } catch (err) {
      if (err instanceof oauth.AuthorizationResponseError) throw new ProviderRefusal(err.error, err.error_description);
      throw new ProviderRefusal("invalid_request", (err as Error).message);
    }
    return this.#call("token", async () => {
      const res = await oauth.authorizationCodeGrantRequest(
        as,
        this.#client,
        this.#auth,
        params,
        p.redirectUri,
        p.codeVerifier,
        this.#request(),
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, this.#client, res);
      return this.#tokenSet(tokens);
    });
  }

  /** Uses a refresh token; the answer may carry a rotated refresh token. */
  async refresh(refreshToken: string): Promise<TokenSet> {
    const as = await this.metadata();
    return this.#call("refresh", async () => {
      const res = await oauth.refreshTokenGrantRequest(as, this.#client, this.#auth, refreshToken, this.#request());
      return this.#tokenSet(await oauth.processRefreshTokenResponse(as, this.#client, res));
    });
  }

  /** Revokes a token at the provider (RFC 7009). False when the provider has no revocation endpoint. */
  async revoke(token: string, hint: "access_token" | "refresh_token"): Promise<boolean> {
    const as = await this.metadata();
    if (!as.revocation_endpoint) return false;
    await this.#call("revocation", async () => {
      const res = await oauth.revocationRequest(as, this.#client, this.#auth, token, {
        additionalParameters: { token_type_hint: hint },
        ...this.#request(),
      });
      await oauth.processRevocationResponse(res);
    });
    return true;
  }

  #tokenSet(t: oauth.TokenEndpointResponse): TokenSet {
    const field = this.config.externalRefField;
    let externalRef: string | undefined;
    if (field) {
      const v = t[field];
      if (typeof v === "string" || typeof v === "number") externalRef = String(v);
    } else {
      const sub = oauth.getValidatedIdTokenClaims(t)?.sub;
      if (sub) externalRef = sub;
    }
    return {
      accessToken: t.access_token,
      refreshToken: t.refresh_token,
      tokenType: t.token_type,
      expiresIn: typeof t.expires_in === "number" && t.expires_in > 0 ? t.expires_in : undefined,
      scopes: typeof t.scope === "string" ? t.scope.split(" ").filter(Boolean) : undefined,
      externalRef,
    };
  }

  /** Runs one exchange with the provider, mapping its failures to Gantry errors. */
  async #call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const service = this.config.service;
    try {
      return await fn();
    } catch (err) {
      if (err instanceof GantryError || err instanceof ProviderRefusal) throw err;
      if (err instanceof oauth.ResponseBodyError) throw new ProviderRefusal(err.error, err.error_description);
      const name = (err as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError")
        throw new GantryError("timeout", `The ${service} provider did not answer the ${what} request in time.`, {
          cause: err,
        });
      throw new GantryError("upstream_failed", `The ${service} provider's ${what} request failed.`, { cause: err });
    }
  }
}

/** Random values for a consent: the state and the PKCE verifier. */
export function consentSecrets(): { state: string; codeVerifier: string } {
  return { state: oauth.generateRandomState(), codeVerifier: oauth.generateRandomCodeVerifier() };
}
