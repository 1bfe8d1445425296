/**
 * @module bench/web-extract
 * Where the web service's CPU goes per page on web.browse's HTTP path, stage by stage, in one process,
 * for each DOM (WEB_DOM): the bench's article (bench/lib/gantry.ts `benchArticle`, the bytes
 * `npm run bench` serves to web.browse) parsed,
 * read by Readability, serialised, walked for text, written as Markdown, its links listed; fetched over
 * loopback through the SSRF guard; then pages/s through the page reader's worker processes.
 *
 *   node bench/web-extract.ts [--pages 300] [--concurrency 8] [--reader-only]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/web-extract.ts   (a profile too)
 *
 * CPU is this process's (user + system) per page; the reader rows also count the workers' CPU (from
 * /proc), so "CPU ms/page" there is the whole machine's cost of a page outside the gateway.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";
import { SsrfGuard } from "@gantry/kit";
import { Readability } from "@mozilla/readability";
import { JSDOM, VirtualConsole } from "jsdom";
import { parseHTML } from "linkedom";
import Turndown from "turndown";
import { blockText, type DomName, extractHtml } from "../services/web/src/extract.ts";
import { pageReader } from "../services/web/src/reader.ts";
import { benchArticle } from "./lib/gantry.ts";

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "300" },
    concurrency: { type: "string", default: "8" },
    "reader-only": { type: "boolean", default: false },
  },
});
const PAGES = Number(values.pages);
const CONCURRENCY = Number(values.concurrency);

const HTML = benchArticle();
const URL_ = "http://127.0.0.1/article";

const turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });

/** CPU ms (this process) and wall ms per call of `fn`, after a warm-up. */
async function perPage(name: string, fn: () => unknown, n = PAGES): Promise<void> {
  for (let i = 0; i < Math.min(50, n); i++) await fn();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const wall = (performance.now() - t0) / n;
  const c = process.cpuUsage(c0);
  row(name, (c.user + c.system) / 1000 / n, `${wall.toFixed(3)} ms wall`);
}

function row(name: string, cpuMs: number, extra: string): void {
  console.log(`${name.padEnd(52)} ${cpuMs.toFixed(3).padStart(8)} ms CPU  ${extra}`);
}

const parsers: Record<DomName, () => Document> = {
  jsdom: () => new JSDOM(HTML, { url: URL_, virtualConsole: new VirtualConsole() }).window.document,
  linkedom: () => parseHTML(HTML).document as unknown as Document,
};

console.log(`page: ${HTML.length} bytes; ${PAGES} pages per row; node ${process.version}`);
for (const dom of values["reader-only"] ? [] : (["jsdom", "linkedom"] as const)) {
  const parse = parsers[dom];
  await perPage(`${dom}: parse`, () => (dom === "jsdom" ? parse().defaultView?.close() : parse()));
  await perPage(`${dom}: parse + Readability`, () =>
    new Readability<Element>(parse(), { serializer: (el) => el as Element }).parse(),
  );
  const root = new Readability<Element>(parse(), { serializer: (el) => el as Element }).parse()?.content as Element;
  await perPage(`${dom}: article HTML (innerHTML)`, () => root.innerHTML);
  await perPage(`${dom}: text (blockText)`, () => blockText(root));
  await perPage(`${dom}: Markdown (turndown of the element)`, () => turndown.turndown(root as unknown as HTMLElement));
  await perPage(`${dom}: links (querySelectorAll a[href])`, () => root.querySelectorAll("a[href]").length);
  await perPage(`${dom}: extractHtml, all of it`, () => extractHtml(HTML, URL_, dom));
}

const server = http.createServer((_req, res) =>
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(HTML),
);
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
const page = `http://127.0.0.1:${(server.address() as { port: number }).port}/article`;
const guard = new SsrfGuard({ allowLoopback: true, log: { warn: () => {} } });
// The loopback server's CPU is in this process too: plain fetch first, to tell the guard's share.
if (!values["reader-only"])
  await perPage("fetch over loopback (plain fetch + the server)", async () => {
    await (await fetch(page)).arrayBuffer();
  });
if (!values["reader-only"]) await perPage("fetch through the SSRF guard (+ the server)", () => guard.fetch(page));
server.close();

/** CPU seconds of a process so far, from /proc (Linux). */
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}
function children(): number[] {
  const kids = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim();
  return kids ? kids.split(" ").map(Number) : [];
}

for (const [dom, workers] of [
  ["jsdom", 1],
  ["linkedom", 1],
  ["linkedom", 2],
] as const) {
  const reader = pageReader(0, { dom, workers });
  await Promise.all(Array.from({ length: workers * 2 }, () => reader.call({ html: HTML, url: URL_ })));
  const pids = children();
  const w0 = pids.map(cpuOf);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let left = PAGES;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await reader.call({ html: HTML, url: URL_ });
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const service = (c.user + c.system) / 1000 / PAGES;
  const workerMs = ((pids.map(cpuOf).reduce((a, b) => a + b, 0) - w0.reduce((a, b) => a + b, 0)) * 1000) / PAGES;
  row(
    `reader, ${dom}, ${workers} worker(s), ${CONCURRENCY} at once: service side`,
    service,
    `+ ${workerMs.toFixed(3)} ms in the workers; ${(PAGES / seconds).toFixed(0)} pages/s`,
  );
  // An idle worker does not hold the event loop, nor does its exit: a timer keeps this script alive to see it end.
  const alive = setInterval(() => {}, 1000);
  await reader.close();
  clearInterval(alive);
}
