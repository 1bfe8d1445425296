/**
 * @module web/test/sites
 * Local servers for the web service's tests, on loopback (reached through the SSRF guard's test-only
 * escape hatch, WEB_ALLOW_LOOPBACK): a small site with an article, redirects, robots.txt rules,
 * a script-rendered page, slow and hanging pages, a page with an accessibility problem; and a search
 * engine speaking SearXNG's JSON API (`/search?q=…&format=json`) whose results point at the site.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Site {
  base: string;
  port: number;
  /** Requests seen, as `METHOD path`. */
  hits: string[];
  close(): Promise<void>;
}

const ARTICLE = `<!doctype html><html lang="en"><head><title>Solar panels in 2026</title>
<meta name="author" content="Ada Lovelace"><meta property="article:published_time" content="2026-03-01T09:00:00Z">
<meta name="description" content="How rooftop solar panels pay back.">
<script>window.analytics = 1;</script></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article>
<h1>Solar panels in 2026</h1>
<p class="byline">By Ada Lovelace</p>
<p>Rooftop solar panels now cost about 1,000 euros per kilowatt installed in most of Europe. A typical
household system of four kilowatts pays back its price in seven to nine years, depending on how much of
the power the household uses itself.</p>
<p>The feed-in tariff in Germany was cut to 8.1 cents per kilowatt hour for small systems, which makes
self-consumption with a home battery more attractive than exporting power to the grid. See the
<a href="/tariffs">tariff table</a> and the <a href="https://example.org/report#summary">EU report</a>.</p>
<h2>Maintenance</h2>
<p>Panels need little maintenance: a yearly visual check and cleaning when dust or pollen builds up. Inverters
usually have to be replaced once during the life of the panels, after ten to fifteen years.</p>
<p>Module degradation is about half a percent per year, so after twenty-five years a panel still delivers
close to ninety percent of its rated output under the same conditions.</p>
<h2>Financing</h2>
<p>Many households finance a system with a green loan over ten years. With interest rates around four percent,
the monthly instalment is often lower than the electricity bill it replaces, so the system is cash positive
from the first month in sunny regions.</p>
<p>Leasing is an alternative where the installer keeps ownership and maintenance, and the household pays a fixed
monthly fee; over twenty years leasing usually costs more than buying outright.</p>
</article>
<footer>© 2026 Example Energy — <a href="/privacy">Privacy</a></footer>
</body></html>`;

const HEAT_PUMPS = `<!doctype html><html lang="en"><head><title>Heat pumps explained</title></head><body><main>
<h1>Heat pumps explained</h1>
<p>A heat pump moves heat from outside air into the house. Its coefficient of performance is typically three
to four, so one kilowatt hour of electricity gives three to four kilowatt hours of heat.</p>
<p>Combined with rooftop solar panels, a heat pump can run largely on self-produced power in spring and
autumn, though winter demand still comes mostly from the grid.</p>
<p>Installation costs vary widely between countries and building types, and subsidies change every year.</p>
</main></body></html>`;

const SCRIPTED = `<!doctype html><html lang="en"><head><title>Loading…</title></head><body><div id="app"></div>
<script>
document.title = "Rendered by script";
const app = document.getElementById("app");
app.innerHTML = "<article><h1>Rendered by script</h1><p>" +
  "This paragraph exists only after JavaScript ran in a real browser. ".repeat(6) +
  "</p><p>Second paragraph about wind turbines and offshore parks, also written by the script.</p></article>";
</script></body></html>`;

const CHECKED = `<!doctype html><html><head><title>Book</title></head><body>
<h1>Book an appointment</h1>
<form id="booking"><input type="text" name="who"><button type="submit">Book</button></form>
<img src="/pixel.png">
<p style="display:none">Hidden text here</p>
<script>console.error("boom from the page"); setTimeout(() => { throw new Error("late failure"); }, 0);</script>
</body></html>`;

const CLEAN = `<!doctype html><html lang="en"><head><title>Clean</title></head><body><main>
<h1>All good</h1><p>Nothing to see.</p></main></body></html>`;

function send(
  res: http.ServerResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": type, ...extra });
  res.end(body);
}

/** The test site. `/hang` and `/slow-body` never finish; everything else answers at once. */
export async function startSite(): Promise<Site> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://local");
    hits.push(`${req.method} ${u.pathname}`);
    switch (u.pathname) {
      case "/robots.txt":
        return send(res, 200, "text/plain", "User-agent: *\nDisallow: /private\n\nUser-agent: EvilBot\nDisallow: /\n");
      case "/article":
        return send(res, 200, "text/html; charset=utf-8", ARTICLE);
      case "/heat-pumps":
        return send(res, 200, "text/html; charset=utf-8", HEAT_PUMPS);
      case "/scripted":
        return send(res, 200, "text/html; charset=utf-8", SCRIPTED);
      case "/checked":
        return send(res, 200, "text/html; charset=utf-8", CHECKED);
      case "/clean":
        return send(res, 200, "text/html; charset=utf-8", CLEAN);
      case "/notes.txt":
        return send(res, 200, "text/plain; charset=utf-8", "Plain notes.\nSecond line.");
      case "/image.png":
        return send(res, 200, "image/png", "\x89PNG....");
      case "/pixel.png":
        return send(res, 404, "text/plain", "no pixel");
      case "/private/page":
        return send(res, 200, "text/html", "<p>secret</p>");
      case "/r1":
        res.writeHead(301, { location: "/r2" });
        return res.end();
      case "/r2":
        res.writeHead(302, { location: "/article" });
        return res.end();
      case "/to-private":
        res.writeHead(302, { location: "http://10.0.0.1/admin" });
        return res.end();
      case "/to-private-https":
        res.writeHead(302, { location: "https://10.0.0.1/admin" });
        return res.end();
      case "/to-metadata":
        res.writeHead(302, { location: "http://[::ffff:169.254.169.254]/latest/meta-data/" });
        return res.end();
      case "/loop":
        res.writeHead(302, { location: `/loop?n=${Number(u.searchParams.get("n") ?? 0) + 1}` });
        return res.end();
      case "/big":
        return send(
          res,
          200,
          "text/html",
          `<html><body><article><p>${"word ".repeat(60_000)}</p></article></body></html>`,
        );
      case "/hang":
        // Headers, then nothing: the page never finishes loading.
        if (u.searchParams.get("as") === "script") {
          res.writeHead(200, { "content-type": "text/javascript" });
          res.write("var started = true;\n");
          return;
        }
        res.writeHead(200, { "content-type": "text/html" });
        res.write("<!doctype html><html><head><title>Hanging</title></head><body><p>Start of a page");
        return;
      case "/hang-sub":
        // The document loads, but a subresource hangs, so `load` never fires.
        return send(
          res,
          200,
          "text/html",
          `<!doctype html><html><head><title>Sub</title></head><body><p>Waiting</p><img src="/hang"></body></html>`,
        );
      case "/scripted-hang":
        // Little text and a script (so it goes to the browser), and a script that never arrives, so
        // `load` never fires: the page is still loading at its deadline.
        return send(
          res,
          200,
          "text/html",
          `<!doctype html><html><head><title>Slow</title><script>document.title = "Slow app";</script></head><body><p>Loading</p><script src="/hang?as=script"></script></body></html>`,
        );
      case "/leaks": {
        // A page that tries to reach `target` (a non-public address) from the browser: an image, a
        // fetch over http and one over https (a CONNECT tunnel through the proxy).
        const target = u.searchParams.get("target") ?? "http://10.0.0.1:8080";
        const tls = target.replace(/^http:/, "https:");
        return send(
          res,
          200,
          "text/html",
          `<!doctype html><html><head><title>Leaks</title></head><body><h1>Leaks</h1><img src="${target}/img.png">
<script>Promise.allSettled([fetch("${target}/secret"), fetch("${tls}/secret")]).then((r) => {
  document.title = r.every((x) => x.status === "rejected") ? "blocked" : "LEAKED";
});</script></body></html>`,
        );
      }
      case "/":
        return send(res, 200, "text/html", CLEAN);
      default:
        return send(res, 404, "text/html", "<h1>Not found</h1>");
    }
  });
  return listen(server, hits);
}

export interface SearchEngine extends Site {
  /** Queries received, with their parameters. */
  queries: URLSearchParams[];
}

/** A search engine speaking SearXNG's JSON API, answering every query with `results(query)`. */
export async function startSearxng(
  results: (q: URLSearchParams) => { url: string; title?: string; content?: string; publishedDate?: string | null }[],
): Promise<SearchEngine> {
  const hits: string[] = [];
  const queries: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://local");
    hits.push(`${req.method} ${u.pathname}`);
    if (u.pathname !== "/search") return send(res, 404, "text/plain", "not found");
    if (u.searchParams.get("format") !== "json") return send(res, 403, "text/html", "<h1>403 Forbidden</h1>");
    queries.push(u.searchParams);
    const q = u.searchParams.get("q") ?? "";
    const list = results(u.searchParams).map((r, i) => ({
      url: r.url,
      title: r.title ?? "",
      content: r.content ?? "",
      publishedDate: r.publishedDate ?? null,
      engine: "local",
      engines: ["local"],
      positions: [i + 1],
      score: 1 / (i + 1),
      category: "general",
      parsed_url: ["http", new URL(r.url).host, new URL(r.url).pathname, "", "", ""],
    }));
    send(
      res,
      200,
      "application/json",
      JSON.stringify({
        query: q,
        number_of_results: list.length,
        results: list,
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
  const site = await listen(server, hits);
  return { ...site, queries };
}

async function listen(server: http.Server, hits: string[]): Promise<Site> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
