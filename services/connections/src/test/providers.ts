/**
 * Provider APIs for the tool-execution tests, on loopback ports:
 *
 * - `startStripeMock()`: Stripe's own stripe-mock (the binary at STRIPE_MOCK_BIN; null when the
 *   variable is unset, and the tests skip with that reason): Stripe's real wire format (form-encoded
 *   bodies, bearer secret keys, its request validation).
 * - `startGithubApi()`: a GitHub REST stand-in speaking its wire format for the operations the
 *   github toolkit has (issues create/list, repos get), which answers only the bearer token it is
 *   told is current (anything else gets GitHub's 401 "Bad credentials"), records every request, and
 *   has special repos: `slow` (answers after 5 s), `echo` (answers the request headers it got),
 *   `missing` (404) and `moved` (a 307 to `redirectTo`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(bin, ["-http-port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout?.on("data", (d) => {
      output += d;
    });
    child.stderr?.on("data", (d) => {
      output += d;
    });
    const url = `http://127.0.0.1:${port}`;
    const end = Date.now() + 15_000;
    while (Date.now() < end && child.exitCode === null) {
      const ok = await fetch(`${url}/v1/charges`).then(
        (r) => r.status === 401,
        () => false,
      );
      if (ok)
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
    if (attempt >= 2) throw new Error(`stripe-mock did not start on ${port}: ${output}`);
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
  /** Where repo `moved` redirects (307), e.g. another origin. */
  redirectTo: string | null;
  stop: () => Promise<void>;
}

export async function startGithubApi(): Promise<GithubApi> {
  const api: GithubApi = { url: "", requests: [], token: null, redirectTo: null, stop: async () => {} };
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
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.stop = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}
