/**
 * @module infra/scripts/fuzz
 * `npm run fuzz`: Schemathesis (PyPI `schemathesis`) against the `/openapi.json` of a whole local
 * stack (Postgres, NATS, every service, the gateway) started here on free ports, with
 * `GANTRY_CHECK_RESULTS=1` (every result is checked against its ability's output schema) and an
 * admin key that may call every ability. Every operation of the document is exercised (the 79
 * ability paths, `/abilities/execute`, discovery, docs, MCP, health) with the checks
 * `not_a_server_error`, `status_code_conformance`, `content_type_conformance` and
 * `response_schema_conformance`. Exits with Schemathesis's code (0: no failures).
 *
 * Bounds (so it fits in CI, about 5 minutes on 2 cores): at most {@link MAX_EXAMPLES} generated test
 * cases per operation and phase, phases `examples,coverage,fuzzing` (no stateful phase: the
 * document declares no links), and a total budget of {@link MAX_TIME_SECONDS} s for the
 * Schemathesis run (`--max-time`); each request may take {@link REQUEST_TIMEOUT_SECONDS} s.
 *
 * The key: the stack's admin key issues (with key.issue) an admin key with scope `*`, the sub-tenant
 * flag (so a generated `context.tenantId` is honoured, not refused), the memory collections and the
 * guide product the catalogue examples name — a key that may call everything, so the run reaches
 * every handler instead of stopping at 403. Its rate limits are lifted (`RATE_LIMIT_DEFAULT`,
 * `AUTH_FAILURES_PER_MINUTE`): the limiters are tested elsewhere, and 429s would only hide the
 * behaviour under test.
 *
 * 501: an ability the catalogue declares but whose service has no handler yet answers
 * `501 not_implemented` by design (README: "an ability either does its real work or answers 501").
 * For exactly those abilities `GET /v1/abilities` says answer 501 when the run starts (status
 * `not_wired` or `needs_configuration`, or a part listed in `needs`, such as message.send's channel
 * sms) and for `/abilities/execute` (which may name them), `not_a_server_error` accepts 501; any
 * other 5xx of any operation, and a 501 from a live ability's own path, is a failure.
 *
 * Schemathesis is found at `SCHEMATHESIS_BIN`, else in the virtualenv `.ci/run` keeps
 * (`~/.cache/gantry/bin/schemathesis-<version>/bin/schemathesis`; `$GANTRY_TOOLS_CACHE/…` when that
 * is set), else on PATH. To install it locally:
 *
 *   python3 -m venv ~/.cache/gantry/bin/schemathesis-4.32.5
 *   ~/.cache/gantry/bin/schemathesis-4.32.5/bin/pip install schemathesis==4.32.5
 *
 * Options (environment): FUZZ_MAX_EXAMPLES, FUZZ_MAX_TIME (seconds), FUZZ_SEED, FUZZ_WORKERS,
 * FUZZ_REPORT_DIR (where the JUnit report, the stack's log and Schemathesis's output go; default
 * a temporary directory, printed). Arguments after `--` go to `schemathesis run` (e.g.
 * `npm run fuzz -- --include-path-regex contact`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateKey } from "@gantry/kit";
import { TOOLS_CACHE, which } from "../runner/binaries.ts";
import { startStack, type Stack } from "../runner/stack.ts";
import { runChild } from "./run-child.ts";

/** The Schemathesis release `.ci/run` installs and this script was written against. */
export const SCHEMATHESIS_VERSION = "4.32.5";
export const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_schema_conformance",
] as const;
/** Generated test cases per operation (and phase). */
export const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 10);
/** Time budget of the Schemathesis run itself, in seconds (stack start-up comes on top: about 20 s). */
export const MAX_TIME_SECONDS = Number(process.env.FUZZ_MAX_TIME ?? 210);
const REQUEST_TIMEOUT_SECONDS = 30;
/** Collections and products the catalogue examples use (memory.*, guide.*), granted to the fuzz key. */
const COLLECTIONS = ["clinic-notes", "support", "notes"];
const PRODUCTS = ["clinic-desk"];
const SEED = process.env.FUZZ_SEED ?? "1313";
const WORKERS = process.env.FUZZ_WORKERS ?? "2";

/** Where Schemathesis is: SCHEMATHESIS_BIN, the virtualenv .ci/run caches, or PATH; undefined if none. */
export function findSchemathesis(): string | undefined {
  const candidates = [
    process.env.SCHEMATHESIS_BIN,
    path.join(TOOLS_CACHE, `schemathesis-${SCHEMATHESIS_VERSION}`, "bin", "schemathesis"),
  ];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  return which("schemathesis");
}

async function call(baseUrl: string, key: string, ability: string, input: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/v1/abilities/${ability}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  const body = (await res.json()) as { result: Record<string, unknown> };
  if (res.status !== 200) throw new Error(`${ability} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.result;
}

/** The ability statuses once no owner is `unavailable` any more (services warm up), or after 30 s. */
interface Discovered {
  id: string;
  status: string;
  needs: { part: string | null; message: string }[];
}

async function statuses(baseUrl: string, key: string): Promise<Discovered[]> {
  const until = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${baseUrl}/v1/abilities`, { headers: { authorization: `Bearer ${key}` } });
    const list = (await res.json()) as { abilities: Discovered[] };
    if (!list.abilities.some((a) => a.status === "unavailable") || Date.now() > until) return list.abilities;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Wired abilities with an action that still answers 501 by design, each with where it is tracked.
 * Remove an entry when the action is built: its 501 then fails the run again.
 */
/** Schemathesis configuration: `not_a_server_error` also accepts 501 on the not-wired abilities' paths. */
export function configToml(notWired: readonly string[]): string {
  if (notWired.length === 0) return "";
  const paths = [...notWired.map((id) => `/v1/abilities/${id}`), "/abilities/execute"];
  const regex = `^(${paths.map(escapeRegex).join("|")})$`;
  return [
    "# Written by infra/scripts/fuzz.ts: abilities declared but not wired answer 501 by design.",
    "[[operations]]",
    `include-path-regex = ${JSON.stringify(regex)}`,
    'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]',
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const bin = findSchemathesis();
  if (!bin) {
    console.error(
      `schemathesis not found: set SCHEMATHESIS_BIN, or install it:\n` +
        `  python3 -m venv ~/.cache/gantry/bin/schemathesis-${SCHEMATHESIS_VERSION}\n` +
        `  ~/.cache/gantry/bin/schemathesis-${SCHEMATHESIS_VERSION}/bin/pip install schemathesis==${SCHEMATHESIS_VERSION}`,
    );
    return 2;
  }
  const reportDir = path.resolve(process.env.FUZZ_REPORT_DIR || fs.mkdtempSync(path.join(os.tmpdir(), "gantry-fuzz-")));
  fs.mkdirSync(reportDir, { recursive: true });
  const adminKey = generateKey();
  const started = Date.now();
  console.log(`fuzz: starting a stack (report and logs in ${reportDir})`);
  let stack: Stack | undefined;
  const stop = async () => {
    if (!stack) return;
    fs.writeFileSync(path.join(reportDir, "stack.log"), stack.logs());
    await stack.stop();
    stack = undefined;
  };
  try {
    stack = await startStack({
      port: 0,
      quiet: true,
      healthTimeoutMs: 120_000,
      env: {
        GANTRY_ADMIN_KEY: adminKey,
        GANTRY_CHECK_RESULTS: "1",
        RATE_LIMIT_DEFAULT: "10000000",
        // Its auth checks send keyless and made-up keys from one address on purpose.
        AUTH_FAILURES_PER_MINUTE: "100000",
        LOG_LEVEL: "info",
      },
    });
    console.log(`fuzz: stack up at ${stack.baseUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const issued = await call(stack.baseUrl, adminKey, "key.issue", {
      name: "schemathesis (npm run fuzz)",
      scopes: ["*"],
      admin: true,
      subTenants: true,
      collections: COLLECTIONS,
      products: PRODUCTS,
    });
    const key = issued.key as string;
    const abilities = await statuses(stack.baseUrl, key);
    const answers501 = abilities.filter((a) => a.status === "not_wired" || a.status === "needs_configuration");
    const partly = abilities.filter((a) => a.status === "live" && a.needs.length > 0);
    const notWired = [...answers501, ...partly].map((a) => a.id);
    const unavailable = abilities.filter((a) => a.status === "unavailable").map((a) => a.id);
    const why = [...answers501, ...partly].map(
      (a) => `${a.id}: ${a.needs.map((n) => (n.part ? `${n.part}: ${n.message}` : n.message)).join(" ") || a.status}`,
    );
    console.log(
      `fuzz: ${abilities.length} abilities: ${abilities.length - notWired.length - unavailable.length} live, ${notWired.length} not wired, needing configuration or partly wired (501 accepted on their paths, as discovery says: ${why.join("; ")})${unavailable.length ? `, ${unavailable.length} UNAVAILABLE: ${unavailable.join(", ")}` : ""}`,
    );
    const configFile = path.join(reportDir, "schemathesis.toml");
    fs.writeFileSync(configFile, configToml(notWired));
    const argv = [
      "--config-file",
      configFile,
      "run",
      `${stack.baseUrl}/openapi.json`,
      "--checks",
      CHECKS.join(","),
      "--header",
      `Authorization: Bearer ${key}`,
      "--phases",
      "examples,coverage,fuzzing",
      "--max-examples",
      String(MAX_EXAMPLES),
      "--max-time",
      String(MAX_TIME_SECONDS),
      "--request-timeout",
      String(REQUEST_TIMEOUT_SECONDS),
      "--workers",
      WORKERS,
      "--seed",
      SEED,
      "--generation-database",
      "none",
      "--no-color",
      "--report",
      "junit",
      "--report-dir",
      reportDir,
      ...process.argv.slice(2).filter((a) => a !== "--"),
    ];
    console.log(`fuzz: ${bin} ${argv.join(" ").replace(key, "gk_…")}`);
    const env = { ...process.env, SCHEMATHESIS_TELEMETRY: "false", NO_COLOR: "1" };
    // In the report directory: Schemathesis keeps its crash cache (`.schemathesis/`) in its working directory.
    const code = await runChild(bin, argv, { env, cwd: reportDir, logFile: path.join(reportDir, "schemathesis.log") });
    console.log(
      `fuzz: schemathesis exited ${code} after ${((Date.now() - started) / 1000).toFixed(1)} s; report and logs in ${reportDir}`,
    );
    return code;
  } finally {
    await stop();
  }
}

if (import.meta.main) process.exit(await main());
