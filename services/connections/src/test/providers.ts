/**
 * Provider APIs for the tool-execution tests, on loopback ports:
 *
 * - `startStripeMock()`: Stripe's own stripe-mock (the binary at STRIPE_MOCK_BIN; null when the
 *   variable is unset, and the tests skip with that reason): Stripe's real wire format (form-encoded
 *   bodies, bearer secret keys, its request validation).
 * - `startPrism(document)`: Stoplight Prism mocking a provider's published OpenAPI description.
 * - `startGithubApi()`: a GitHub REST stand-in speaking its wire format for the operations the
 *   github toolkit has (issues create/list, repos get) and `GET /user` (the token check, with a
 *   classic token's `X-OAuth-Scopes`), which answers only the bearer token it is
 *   told is current (anything else gets GitHub's 401 "Bad credentials"), records every request, and
 *   has special repos: `slow` (answers after 5 s), `echo` (answers the request headers it got),
 *   `missing` (404) and `moved` (a 307 to `redirectTo`).
 * - `startSlackApi()`: a Slack Web API stand-in (`auth.test`, `chat.postMessage`) with Slack's
 *   refusal of a bad token (HTTP 200, `ok: false`, `invalid_auth`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { repoRoot } from "@gantry/kit";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const STRIPE_MOCK_SKIP = process.env.STRIPE_MOCK_BIN
  ? false
  : "STRIPE_MOCK_BIN is unset (CI builds stripe-mock and exports its path; locally: ~/.cache/gantry/bin/stripe-mock-v0.203.0)";

export interface StripeMock {
  url: string;
  stop: () => Promise<void>;
}

export async function startStripeMock(): Promise<StripeMock | null> {
  const bin = process.env.STRIPE_MOCK_BIN;
  if (!bin) return null;
  return startOnFreePort("stripe-mock", bin, (port) => ["-http-port", String(port)], {
    ready: (url) => fetch(`${url}/v1/charges`).then((r) => r.status === 401),
  });
}

export type Prism = StripeMock;

/**
 * Stoplight Prism (a dev dependency) mocking an OpenAPI document: it validates each request against
 * the document (paths, methods, parameters, security) and answers the document's own examples. It
 * serves the paths at the root, without the `servers` URL's path (`/auth.test`, not `/api/auth.test`).
 */
export function startPrism(document: string): Promise<Prism> {
  const bin = join(repoRoot(), "node_modules", ".bin", "prism");
  return startOnFreePort("prism", bin, (port) => ["mock", "-h", "127.0.0.1", "-p", String(port), document], {
    // Any answer means it listens; loading GitHub's 5.7 MB description takes Prism seconds.
    ready: (url) => fetch(`${url}/`).then(() => true),
    timeoutMs: 240_000,
  });
}

/** Starts a server process on a free loopback port, waits until `ready(url)`, retries on a lost port race. */
async function startOnFreePort(
  name: string,
  bin: string,
  args: (port: number) => string[],
  opts: { ready: (url: string) => Promise<boolean>; timeoutMs?: number },
): Promise<StripeMock> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(bin, args(port), { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (d) => {
      output = (output + d).slice(-4000);
    });
    child.stderr?.on("data", (d) => {
      output = (output + d).slice(-4000);
    });
    const url = `http://127.0.0.1:${port}`;
    const end = Date.now() + (opts.timeoutMs ?? 15_000);
    while (Date.now() < end && child.exitCode === null) {
      if (await opts.ready(url).catch(() => false))
        return {
          url,
          stop: async () => {
            if (child.exitCode !== null) return;
            child.kill("SIGTERM");
            await new Promise((resolve) => child.once("exit", resolve));
          },
        };
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGKILL");
    if (attempt >= 2) throw new Error(`${name} did not start on ${port}: ${output}`);
  }
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface GithubApi {
  url: string;
  requests: RecordedRequest[];
  /** The only bearer token accepted now. */
  token: string | null;
  /** What `GET /user` answers for it: the login, and the `X-OAuth-Scopes` header (a classic token's; null: none). */
  user: { login: string; scopes: string | null };
  /** Where repo `moved` redirects (307), e.g. another origin. */
  redirectTo: string | null;
  stop: () => Promise<void>;
}

export async function startGithubApi(): Promise<GithubApi> {
  const api: GithubApi = {
    url: "",
    requests: [],
    token: null,
    user: { login: "octo-standin", scopes: null },
    redirectTo: null,
    stop: async () => {},
  };
  let issues = 0;
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    api.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(value));
    };
    if (req.url?.endsWith("/moved") && api.redirectTo) {
      res.writeHead(307, { location: api.redirectTo });
      return res.end();
    }
    if (!api.token || req.headers.authorization !== `Bearer ${api.token}`)
      return send(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/user") {
      const scopes = api.user.scopes === null ? {} : { "x-oauth-scopes": api.user.scopes };
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", ...scopes });
      return res.end(JSON.stringify({ login: api.user.login, id: 583231, type: "User" }));
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)(\/issues)?$/.exec(url.pathname);
    if (!m) return send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    const [, owner, repo, issuesPath] = m;
    if (repo === "slow") await new Promise((r) => setTimeout(r, 5_000));
    if (repo === "echo") return send(200, { headers: req.headers });
    if (repo === "missing")
      return send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    if (!issuesPath) return send(200, { id: 1, name: repo, full_name: `${owner}/${repo}`, private: false });
    if (req.method === "GET")
      return send(200, [{ number: 1, title: "First", state: url.searchParams.get("state") ?? "open" }]);
    const input = JSON.parse(body || "{}");
    issues++;
    return send(201, {
      id: 1000 + issues,
      number: issues,
      title: input.title,
      body: input.body ?? null,
      labels: (input.labels ?? []).map((name: string) => ({ name })),
      state: "open",
      html_url: `https://github.com/${owner}/${repo}/issues/${issues}`,
    });
  });
  Object.assign(api, await listen(server));
  return api;
}

export interface SlackApi {
  url: string;
  requests: RecordedRequest[];
  /** The only bot token accepted now. */
  token: string | null;
  stop: () => Promise<void>;
}

/**
 * A Slack Web API stand-in for `auth.test` and `chat.postMessage`, in Slack's wire format: every
 * answer is HTTP 200 with `ok`, and a bearer token other than the current one gets
 * `{"ok": false, "error": "invalid_auth"}` (what Slack answers a revoked or mistyped token).
 */
export async function startSlackApi(): Promise<SlackApi> {
  const api: SlackApi = { url: "", requests: [], token: null, stop: async () => {} };
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    api.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    const send = (value: Record<string, unknown>) => {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(value));
    };
    if (!req.headers.authorization) return send({ ok: false, error: "not_authed" });
    if (!api.token || req.headers.authorization !== `Bearer ${api.token}`)
      return send({ ok: false, error: "invalid_auth" });
    if (req.url === "/auth.test")
      return send({
        ok: true,
        url: "https://standin-team.slack.com/",
        team: "Standin Team",
        user: "gantrybot",
        team_id: "T0STANDIN",
        user_id: "U0STANDIN",
        bot_id: "B0STANDIN",
        is_enterprise_install: false,
      });
    if (req.url === "/chat.postMessage") {
      const input = JSON.parse(body || "{}");
      return send({ ok: true, channel: input.channel, ts: "1700000000.000100", message: { text: input.text } });
    }
    return send({ ok: false, error: "unknown_method" });
  });
  Object.assign(api, await listen(server));
  return api;
}

/** Listens on a free loopback port; `stop` also ends kept-alive connections. */
async function listen(server: Server): Promise<{ url: string; stop: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
