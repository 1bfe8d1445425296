/**
 * @module bench/lib/scale-report
 * Renders a `--scale` run (scale.ts) as the `bench:scale` block of docs/benchmarks.md (a summary,
 * then a table per curve with its promised complexity, its note and what was skipped) and as
 * docs/benchmarks-scale.svg: rows on a log x axis, p50 on a log y axis with p99 whiskers, one line
 * per curve. Plain SVG with text labels, readable without scripts, as report.ts draws its charts.
 */
import fs from "node:fs";
import { fmtInt, fmtX } from "./format.ts";
import type { Machine } from "./machine.ts";
import { esc, replaceBlock, svgHead } from "./report.ts";
import type { ScaleCurve } from "./scale-curve.ts";

export const SCALE_CHART = "benchmarks-scale.svg";

/** One `--scale` run, as saved in .gantry/bench/results/ and rendered into the docs. */
export interface ScaleReport {
  date: string;
  command: string;
  commit: string;
  machine: Machine;
  sizes: number[];
  parts: string[];
  curves: ScaleCurve[];
  /** Parts that threw: their curves are missing, and why. */
  failed: { part: string; why: string }[];
  /** Seconds each part took, seeding included. */
  partSec: Record<string, number>;
  totalSec: number;
}

const fmtT = (n: number) =>
  Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3)) : "–";
const fmtRows = (n: number) =>
  n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : fmtInt(n);
const fmtExtra = (v: number) => (Number.isInteger(v) ? fmtInt(v) : fmtT(v));

/** p50 at the largest size measured ÷ p50 at the smallest: 1× is flat. */
function growth(c: ScaleCurve): number {
  const [a, b] = [c.points[0], c.points.at(-1)];
  return a && b && a !== b ? b.p50 / a.p50 : NaN;
}

export function renderScaleMarkdown(rep: ScaleReport, chartFile: string): string {
  const m = rep.machine;
  const L: string[] = [];
  L.push(`Run of ${rep.date} · commit \`${rep.commit}\` · \`${rep.command}\``);
  L.push("");
  L.push(
    `Machine: ${m.nproc} cores (${m.cpu}), ${m.memGiB.toFixed(0)} GiB, Node ${m.node}, load average at start ${m.loadavg.map((x) => x.toFixed(2)).join(" / ")}. ` +
      `Sizes: ${rep.sizes.map(fmtRows).join(", ")} rows of one tenant. Parts: ${rep.parts.map((p) => `${p} ${Math.round(rep.partSec[p] ?? 0)} s`).join(", ")} (seeding included); whole run ${Math.round(rep.totalSec)} s.`,
  );
  L.push("");
  L.push(
    "> Each curve times one operation again and again at each size, one call at a time, on a shared machine: compare a curve's points with each other (is it flat?), not absolute numbers across machines or runs.",
  );
  L.push("");
  if (rep.curves.length) {
    L.push(`![p50 (and p99) of each operation against the tenant's rows, log-log](${chartFile})`);
    L.push("");
    L.push("| curve | promised | p50 at the smallest size | p50 at the largest | largest ÷ smallest |");
    L.push("|---|---|---:|---:|---:|");
    for (const c of rep.curves) {
      const [a, b] = [c.points[0], c.points.at(-1)];
      L.push(
        `| ${c.label} | ${c.expected} | ${a ? `${fmtT(a.p50)} ${c.unit} at ${fmtRows(a.rows)}` : "–"} | ${b ? `${fmtT(b.p50)} ${c.unit} at ${fmtRows(b.rows)}` : "–"} | ${fmtX(growth(c))} |`,
      );
    }
    L.push("");
  }
  for (const c of rep.curves) {
    const extras = [...new Set(c.points.flatMap((p) => Object.keys(p.extra ?? {})))];
    L.push(`#### ${c.label} (\`${c.id}\`), promised ${c.expected}`);
    L.push("");
    L.push(`| rows | p50 ${c.unit} | p99 ${c.unit} | samples |${extras.map((e) => ` ${e} |`).join("")}`);
    L.push(`|---:|---:|---:|---:|${extras.map(() => "---:|").join("")}`);
    for (const p of c.points)
      L.push(
        `| ${fmtInt(p.rows)} | ${fmtT(p.p50)} | ${fmtT(p.p99)} | ${fmtInt(p.samples)} |${extras.map((e) => ` ${p.extra?.[e] === undefined ? "–" : fmtExtra(p.extra[e])} |`).join("")}`,
      );
    L.push("");
    L.push(c.note);
    for (const s of c.skipped ?? []) L.push(`- *skipped* ${fmtInt(s.rows)} rows: ${s.why}`);
    L.push("");
  }
  for (const f of rep.failed) L.push(`- **${f.part} failed**, its curves are missing: ${f.why}`);
  if (rep.failed.length) L.push("");
  return L.join("\n").trimEnd();
}

const COLORS = ["#2f855a", "#c05621", "#2b6cb0", "#805ad5", "#b7791f", "#c53030", "#319795", "#4a5568", "#d53f8c"];

/** The chart: log-x rows, log-y milliseconds (µs curves converted), p50 lines, p99 whiskers. */
export function renderScaleSvg(rep: ScaleReport): string {
  const curves = rep.curves.filter((c) => c.points.length);
  const ms = (c: ScaleCurve, v: number) => (c.unit === "µs" ? v / 1000 : v);
  const rows = curves.flatMap((c) => c.points.map((p) => p.rows));
  const times = curves.flatMap((c) => c.points.flatMap((p) => [ms(c, p.p50), ms(c, p.p99)])).filter((v) => v > 0);
  const [left, top, plotW, plotH] = [70, 60, 620, 360];
  const legendH = 20 * curves.length;
  const width = left + plotW + 40;
  const height = top + plotH + 60 + legendH + 24;
  const s = svgHead(
    width,
    height,
    "Cost of one operation against a tenant's rows (log-log): p50 lines with p99 whiskers",
    "Costs as a tenant's data grows (p50, whiskers to p99)",
  );
  s.push(
    `<text x="12" y="40" fill="#444">${esc(rep.date.slice(0, 16).replace("T", " "))} UTC · ${rep.machine.nproc} cores · Node ${esc(rep.machine.node)} · commit ${esc(rep.commit)}</text>`,
  );
  if (!curves.length) {
    s.push(`<text x="${left}" y="${top + 20}">No curve was measured.</text>`, "</svg>");
    return s.join("\n");
  }
  const x0 = Math.floor(Math.log10(Math.min(...rows)));
  const x1 = Math.max(x0 + 1, Math.ceil(Math.log10(Math.max(...rows))));
  const y0 = Math.floor(Math.log10(Math.min(...times)));
  const y1 = Math.max(y0 + 1, Math.ceil(Math.log10(Math.max(...times))));
  const X = (r: number) => left + ((Math.log10(r) - x0) / (x1 - x0)) * plotW;
  const Y = (v: number) => top + plotH - ((Math.log10(Math.max(v, 10 ** y0)) - y0) / (y1 - y0)) * plotH;
  s.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  for (let e = x0; e <= x1; e++) {
    const x = X(10 ** e).toFixed(1);
    s.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${top + plotH}" stroke="#e2e8f0"/>`);
    s.push(`<text x="${x}" y="${top + plotH + 16}" text-anchor="middle">${fmtRows(10 ** e)}</text>`);
  }
  for (let e = y0; e <= y1; e++) {
    const y = Y(10 ** e).toFixed(1);
    s.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#e2e8f0"/>`);
    s.push(`<text x="${left - 6}" y="${(Number(y) + 4).toFixed(1)}" text-anchor="end">${fmtT(10 ** e)}</text>`);
  }
  s.push(
    `<text x="${left + plotW / 2}" y="${top + plotH + 36}" text-anchor="middle">rows of the tenant (log scale)</text>`,
    `<text x="16" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotH / 2})">ms per operation (log scale)</text>`,
  );
  curves.forEach((c, i) => {
    const color = COLORS[i % COLORS.length];
    // Whiskers a little apart per curve, so curves at the same sizes do not hide each other's.
    const dx = (i - (curves.length - 1) / 2) * 3;
    const pts = c.points.map((p) => `${(X(p.rows) + dx).toFixed(1)},${Y(ms(c, p.p50)).toFixed(1)}`);
    s.push(`<polyline points="${pts.join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of c.points) {
      const x = (X(p.rows) + dx).toFixed(1);
      const [yp50, yp99] = [Y(ms(c, p.p50)).toFixed(1), Y(ms(c, p.p99)).toFixed(1)];
      s.push(
        `<line x1="${x}" y1="${yp50}" x2="${x}" y2="${yp99}" stroke="${color}" stroke-width="1"/>`,
        `<line x1="${(Number(x) - 3).toFixed(1)}" y1="${yp99}" x2="${(Number(x) + 3).toFixed(1)}" y2="${yp99}" stroke="${color}"/>`,
        `<circle cx="${x}" cy="${yp50}" r="3" fill="${color}"><title>${esc(c.label)} at ${fmtInt(p.rows)} rows: p50 ${fmtT(p.p50)} ${c.unit}, p99 ${fmtT(p.p99)} ${c.unit}</title></circle>`,
      );
    }
    const ly = top + plotH + 56 + i * 20;
    s.push(
      `<line x1="${left}" y1="${ly - 4}" x2="${left + 24}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${left + 30}" y="${ly}">${esc(c.label)}: promised ${esc(c.expected)}, ${fmtX(growth(c))} from ${fmtRows(c.points[0]!.rows)} to ${fmtRows(c.points.at(-1)!.rows)}</text>`,
    );
  });
  s.push(
    `<text x="12" y="${height - 10}" fill="#555">One call at a time on one shared machine; compare a curve's points with each other. See docs/benchmarks.md.</text>`,
    "</svg>",
  );
  return s.join("\n");
}

/** Writes the `bench:scale` block of `docFile` and the chart, leaving everything else alone. */
export function writeScaleDoc(docFile: string, chartFile: string, rep: ScaleReport): void {
  const doc = fs.readFileSync(docFile, "utf8");
  fs.writeFileSync(
    docFile,
    replaceBlock(doc, "scale", () => renderScaleMarkdown(rep, SCALE_CHART)),
  );
  fs.writeFileSync(chartFile, `${renderScaleSvg(rep)}\n`);
}
