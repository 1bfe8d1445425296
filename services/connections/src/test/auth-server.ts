/**
 * A real OAuth 2.0 authorization server for the tests: `oidc-provider` (a certified OpenID Provider)
 * on a loopback port, with one confidential client that must use PKCE, refresh tokens that rotate on
 * every use (a rotated-away token used again revokes the whole grant, as strict providers do), and
 * token revocation (RFC 7009). `consent()` plays the user: it follows the authorization URL through
 * the provider's own login and consent pages (its development interactions) over HTTP with a cookie
 * jar and returns the URL the provider redirects to (redirect URI + `code` + `state`), which is what a
 * real browser would land on.
 *
 * It also counts what the provider did: token grants by type, refresh failures, revocations.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export const CLIENT_ID = "gantry-connections-test";
export const CLIENT_SECRET = "test-client-secret-not-a-real-one-0123456789";

export interface AuthServer {
  issuer: string;
  /** Redirect URIs registered for the client (nothing listens there: the test reads the redirect). */
  redirectUris: string[];
  provider: Provider;
  /** Successful token grants by grant_type. */
  grants: Record<string, number>;
  /** Failed token requests by OAuth error (e.g. invalid_grant). */
  grantErrors: Record<string, number>;
  /** Grants the provider revoked (revocation endpoint, or refresh-token reuse). */
  revokedGrants: number;
  /** `CONNECTIONS_PROVIDERS` entry for this server under a service key. */
  providerConfig: (overrides?: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Plays the user through login and consent for `authorizationUrl`; returns the redirect the
   * provider answered (redirect URI with code and state, or with an error when `deny`).
   */
  consent: (authorizationUrl: string, opts?: { login?: string; deny?: boolean }) => Promise<string>;
  /** Calls the provider's userinfo endpoint with an access token; returns the HTTP status. */
  userinfo: (accessToken: string) => Promise<number>;
  stop: () => Promise<void>;
}

export interface AuthServerOptions {
  /** Access token lifetime in seconds (default 3600). */
  accessTokenTtl?: number;
}

export async function startAuthServer(opts: AuthServerOptions = {}): Promise<AuthServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const redirectUris = ["http://127.0.0.1:1/oauth/callback", "http://127.0.0.1:1/settings/connections/done"];
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    // PKCE for every client, not only public ones (oidc-provider supports only S256).
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
    },
    scopes: ["openid", "offline_access"],
    rotateRefreshToken: true,
    ttl: { AccessToken: opts.accessTokenTtl ?? 3600, AuthorizationCode: 60, RefreshToken: 14 * 86400 },
    cookies: { keys: ["gantry-connections-test-cookie-key"] },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
  const grants: Record<string, number> = {};
  const grantErrors: Record<string, number> = {};
  const out = { revokedGrants: 0 };
  provider.on("grant.success", (ctx) => {
    const type = String(ctx.oidc.params?.grant_type ?? "unknown");
    grants[type] = (grants[type] ?? 0) + 1;
  });
  provider.on("grant.error", (_ctx, err) => {
    const code = String((err as { error?: string }).error ?? "unknown");
    grantErrors[code] = (grantErrors[code] ?? 0) + 1;
  });
  provider.on("grant.revoked", () => {
    out.revokedGrants++;
  });
  // oidc-provider warns about its development-only features on the console; the tests know.
  server.on("request", provider.callback());

  const consent = async (authorizationUrl: string, o: { login?: string; deny?: boolean } = {}) => {
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const remember = (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair.indexOf("=");
        jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
    };
    const isRedirect = (url: string) => redirectUris.some((r) => url.startsWith(r));
    let url = authorizationUrl;
    let body: URLSearchParams | undefined;
    for (let hop = 0; hop < 20; hop++) {
      const res = await fetch(url, {
        method: body ? "POST" : "GET",
        redirect: "manual",
        headers: {
          cookie: cookieHeader(),
          ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        },
        body,
      });
      remember(res);
      body = undefined;
      if (res.status >= 300 && res.status < 400) {
        const next = new URL(res.headers.get("location") as string, url).href;
        await res.arrayBuffer();
        if (isRedirect(next)) return next;
        url = next;
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) throw new Error(`authorization server answered ${res.status}: ${html.slice(0, 500)}`);
      // A development interaction page: the login form, then the consent form.
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`unexpected page from the authorization server: ${html.slice(0, 500)}`);
      if (o.deny) {
        url = new URL(`${new URL(action, url).pathname}/abort`, url).href;
        continue;
      }
      url = new URL(action, url).href;
      body = new URLSearchParams(
        prompt === "login" ? { prompt, login: o.login ?? "alice", password: "irrelevant" } : { prompt },
      );
    }
    throw new Error("too many redirects at the authorization server");
  };

  return {
    issuer,
    redirectUris,
    provider,
    grants,
    grantErrors,
    get revokedGrants() {
      return out.revokedGrants;
    },
    providerConfig: (overrides = {}) => ({
      issuer,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scopes: ["openid", "offline_access"],
      redirectUris,
      authorizationParams: { prompt: "consent" },
      ...overrides,
    }),
    consent,
    userinfo: async (accessToken) => {
      const res = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      await res.arrayBuffer();
      return res.status;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
