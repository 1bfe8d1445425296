/**
 * The deployment artefacts, checked with real tools (k8s/scripts/tools.ts installs them; without
 * them every test here fails and says how to install them):
 *  - the Helm chart under every CI value set (k8s/gantry/ci/*-values.yaml): `helm lint --strict`,
 *    `helm template`, every rendered object validated by kubeconform against the Kubernetes
 *    OpenAPI schemas (strict: unknown fields fail), and the rendered manifests hold what issue 8
 *    asks for: a Deployment + Service per area service and the gateway, gRPC and HTTP probes,
 *    migration hook Jobs, HPAs, PDBs, NetworkPolicies, locked-down pods, Secrets vs ConfigMaps;
 *    and what issue 19's scale-out asks for: a headless Service per area service that every
 *    caller's `*_ADDR` names (client-side round robin over every pod), replica counts as set, and
 *    the gateway replicas sharing rate limits through Redis;
 *  - the chart's refusals (bad values fail the render with a message naming the value);
 *  - the Dockerfile (hadolint) and infra/compose.yaml (the compose-spec JSON Schema).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { Ajv2020 } from "ajv/dist/2020.js";
import { AREA_SERVICES, GATEWAY_DEFAULT_PORT } from "@gantry/kit/topology.ts";
import { calleesOf, callersOf, deriveCallKey } from "@gantry/kit/call-auth.ts";
import { schemaRoleNames } from "@gantry/kit/postgres-roles.ts";
import {
  NATS_PUBLISHES,
  NATS_READS,
  NATS_STREAMS,
  NATS_SUBSCRIBES,
  NODE_PROCESS_ARGS,
  NODE_PROCESS_ENV,
  natsConfig,
  redisConfig,
} from "../infra/runner/stack.ts";
import {
  COMPOSE_SCHEMA,
  HADOLINT,
  HELM,
  KUBECONFORM,
  KUBERNETES_VERSION,
  ROOT,
  SCHEMA_LOCATION,
  missingTools,
} from "./scripts/tools.ts";
import { adjust, fileName } from "./scripts/openapi2jsonschema.ts";

const CHART = join(ROOT, "k8s", "gantry");
const CI_DIR = join(CHART, "ci");
const RELEASE = "gantry";
const NAMESPACE = "gantry";
const FULLNAME = "gantry"; // release "gantry" + chart "gantry" → "gantry"
const VALUE_SETS = readdirSync(CI_DIR)
  .filter((f) => f.endsWith("-values.yaml"))
  .sort();

type Obj = Record<string, any>;

function requireTools(): void {
  const missing = missingTools();
  if (missing.length) {
    assert.fail(
      `the deployment checks need tools that are not installed:\n  ${missing.join("\n  ")}\n` +
        "install them with `node k8s/scripts/tools.ts` (helm and kubeconform build with Go; .ci/run does this before npm test)",
    );
  }
}

function exec(cmd: string, args: string[], input?: string): { code: number | null; out: string; stdout: string } {
  const r = spawnSync(cmd, args, { cwd: ROOT, input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

function helmTemplate(valueArgs: string[]): { code: number | null; out: string; stdout: string } {
  return exec(HELM, [
    "template",
    RELEASE,
    CHART,
    "--namespace",
    NAMESPACE,
    "--kube-version",
    KUBERNETES_VERSION,
    ...valueArgs,
  ]);
}

function parseDocs(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`rendered YAML does not parse: ${d.errors[0].message}`);
      return d.toJS() as Obj | null;
    })
    .filter((d): d is Obj => d !== null && typeof d === "object");
}

function kubeconform(manifests: string): {
  code: number | null;
  summary: { valid: number; invalid: number; errors: number; skipped: number };
  problems: string[];
} {
  const r = exec(
    KUBECONFORM,
    [
      "-strict",
      "-summary",
      "-output",
      "json",
      "-kubernetes-version",
      KUBERNETES_VERSION,
      "-schema-location",
      SCHEMA_LOCATION,
      "-",
    ],
    manifests,
  );
  const report = JSON.parse(r.stdout) as {
    resources: Array<{ kind: string; name: string; status: string; msg: string }>;
    summary: { valid: number; invalid: number; errors: number; skipped: number };
  };
  return {
    code: r.code,
    summary: report.summary,
    problems: report.resources.map((x) => `${x.kind} ${x.name}: ${x.status} ${x.msg}`),
  };
}

/** The chart's merge rule (maps merge, anything else replaces), to know what a value set asks for. */
function merge(base: any, over: any): any {
  if (
    over &&
    typeof over === "object" &&
    !Array.isArray(over) &&
    base &&
    typeof base === "object" &&
    !Array.isArray(base)
  ) {
    const out: Obj = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = merge(base[k], v);
    return out;
  }
  return over === undefined ? base : over;
}

const DEFAULTS = parse(readFileSync(join(CHART, "values.yaml"), "utf8")) as Obj;

interface Rendered {
  set: string;
  values: Obj;
  text: string;
  docs: Obj[];
  find: (kind: string, name: string) => Obj | undefined;
  all: (kind: string) => Obj[];
}

/** A workload's effective settings under a value set. */
function workload(values: Obj, name: string): Obj {
  return merge(values.defaults, name === "gateway" ? values.gateway : values.services[name]);
}

function podTemplates(r: Rendered): Array<{ owner: string; spec: Obj }> {
  const out: Array<{ owner: string; spec: Obj }> = [];
  for (const d of r.docs) {
    if (["Deployment", "StatefulSet", "Job"].includes(d.kind))
      out.push({ owner: `${d.kind} ${d.metadata.name}`, spec: d.spec.template.spec });
    if (d.kind === "Pod") out.push({ owner: `Pod ${d.metadata.name}`, spec: d.spec });
  }
  return out;
}

test("values.yaml lists the area services of kit/src/topology.ts, with their ports and tables", () => {
  assert.deepEqual(Object.keys(DEFAULTS.services).sort(), AREA_SERVICES.map((s) => s.name).sort());
  for (const s of AREA_SERVICES) {
    assert.equal(DEFAULTS.services[s.name].port, s.defaultPort, `${s.name} port`);
    assert.equal(DEFAULTS.services[s.name].database === true, s.database, `${s.name} database`);
  }
  assert.equal(DEFAULTS.gateway.port, GATEWAY_DEFAULT_PORT);
});

test("openapi2jsonschema: kubeconform's file names, strict objects, int-or-string", () => {
  assert.equal(fileName({ group: "apps", version: "v1", kind: "Deployment" }), "deployment-apps-v1.json");
  assert.equal(
    fileName({ group: "networking.k8s.io", version: "v1", kind: "NetworkPolicy" }),
    "networkpolicy-networking-v1.json",
  );
  assert.equal(fileName({ group: "", version: "v1", kind: "Service" }), "service-v1.json");
  assert.deepEqual(
    adjust({
      type: "object",
      properties: { port: { type: "string", format: "int-or-string" }, format: { type: "string" } },
    }),
    {
      type: "object",
      properties: { port: { oneOf: [{ type: "string" }, { type: "integer" }] }, format: { type: "string" } },
      additionalProperties: false,
    },
  );
  assert.deepEqual(
    adjust({ type: "object", additionalProperties: { type: "string" } }),
    { type: "object", additionalProperties: { type: "string" } },
    "maps stay open",
  );
});

test("there are CI value sets for defaults, all features on and external dependencies", () => {
  for (const expected of ["defaults-values.yaml", "all-features-values.yaml", "external-values.yaml"])
    assert.ok(VALUE_SETS.includes(expected), `k8s/gantry/ci/${expected}`);
});

for (const set of VALUE_SETS) {
  describe(`value set ${basename(set, "-values.yaml")}`, () => {
    const file = join(CI_DIR, set);
    const values = merge(DEFAULTS, parse(readFileSync(file, "utf8")) ?? {});
    let rendered: Rendered | undefined;
    const render = (): Rendered => {
      requireTools();
      if (!rendered) {
        const r = helmTemplate(["-f", file]);
        assert.equal(r.code, 0, `helm template failed:\n${r.out}`);
        const docs = parseDocs(r.stdout);
        rendered = {
          set,
          values,
          text: r.stdout,
          docs,
          find: (kind, name) => docs.find((d) => d.kind === kind && d.metadata?.name === name),
          all: (kind) => docs.filter((d) => d.kind === kind),
        };
      }
      return rendered;
    };
    const enabledServices = AREA_SERVICES.filter((s) => values.services[s.name].enabled !== false);
    const workloads = ["gateway", ...enabledServices.map((s) => s.name)];

    test("helm lint --strict passes", () => {
      requireTools();
      const r = exec(HELM, ["lint", "--strict", "--kube-version", KUBERNETES_VERSION, CHART, "-f", file]);
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });

    test("every rendered object is valid against the Kubernetes schemas (kubeconform, strict)", () => {
      const r = render();
      const v = kubeconform(r.text);
      assert.equal(v.code, 0, v.problems.join("\n"));
      assert.deepEqual(v.summary, { valid: r.docs.length, invalid: 0, errors: 0, skipped: 0 }, v.problems.join("\n"));
    });

    test("a Deployment and a Service per enabled area service and the gateway, on the topology's ports", () => {
      const r = render();
      const DEPENDENCIES = ["postgres", "postgres-roles", "nats", "redis", "weaviate"];
      const deployments = r
        .all("Deployment")
        .filter((d) => !DEPENDENCIES.includes(d.metadata.labels["app.kubernetes.io/component"]));
      assert.deepEqual(deployments.map((d) => d.metadata.name).sort(), workloads.map((w) => `${FULLNAME}-${w}`).sort());
      for (const s of enabledServices) {
        const svc = r.find("Service", `${FULLNAME}-${s.name}`);
        assert.ok(svc, `Service ${s.name}`);
        assert.deepEqual(
          svc.spec.ports.map((p: Obj) => [p.name, p.port, p.targetPort]),
          [["grpc", s.defaultPort, "grpc"]],
        );
        const dep = r.find("Deployment", `${FULLNAME}-${s.name}`)!;
        const c = dep.spec.template.spec.containers[0];
        assert.deepEqual(c.args, [s.name], "the image entry point runs the service named in args");
        assert.equal(c.ports[0].containerPort, s.defaultPort);
        assert.deepEqual(svc.spec.selector, dep.spec.selector.matchLabels);
        // The headless twin: its DNS name answers with every ready pod's IP, so a caller's gRPC
        // client balances calls over the pods instead of riding one connection to one of them.
        const headless = r.find("Service", `${FULLNAME}-${s.name}-headless`);
        assert.ok(headless, `headless Service ${s.name}`);
        assert.equal(headless.spec.clusterIP, "None");
        assert.notEqual(headless.spec.publishNotReadyAddresses, true, "only ready pods are called");
        assert.deepEqual(headless.spec.selector, dep.spec.selector.matchLabels);
        assert.deepEqual(
          headless.spec.ports.map((p: Obj) => [p.name, p.port, p.targetPort, p.appProtocol]),
          [["grpc", s.defaultPort, "grpc", "kubernetes.io/h2c"]],
        );
      }
      assert.equal(r.find("Service", `${FULLNAME}-gateway-headless`), undefined, "the gateway is HTTP: no twin");
      const gw = r.find("Service", `${FULLNAME}-gateway`)!;
      assert.equal(gw.spec.ports[0].targetPort, "http");
      assert.equal(
        r.find("Deployment", `${FULLNAME}-gateway`)!.spec.template.spec.containers[0].ports[0].containerPort,
        GATEWAY_DEFAULT_PORT,
      );
    });

    test("area services are probed with grpc.health.v1 (native gRPC probes), the gateway with GET /health", () => {
      const r = render();
      for (const s of enabledServices) {
        const c = r.find("Deployment", `${FULLNAME}-${s.name}`)!.spec.template.spec.containers[0];
        for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
          assert.deepEqual(c[probe]?.grpc, { port: s.defaultPort }, `${s.name} ${probe}`);
        }
      }
      const gw = r.find("Deployment", `${FULLNAME}-gateway`)!.spec.template.spec.containers[0];
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"])
        assert.deepEqual(gw[probe]?.httpGet, { path: "/health", port: "http" }, `gateway ${probe}`);
    });

    test("each workload's ConfigMap says where everything is; secrets only come from Secrets", () => {
      const r = render();
      for (const w of workloads) {
        const cm = r.find("ConfigMap", `${FULLNAME}-${w}`);
        assert.ok(cm, `ConfigMap ${w}`);
        for (const s of AREA_SERVICES)
          assert.equal(cm.data[s.addrEnv], `${FULLNAME}-${s.name}-headless:${s.defaultPort}`, `${w} ${s.addrEnv}`);
        // The bundled NATS's URL holds the workload's login: only in its own Secret.
        if (values.nats.bundled.enabled) assert.equal(cm.data.NATS_URL, undefined, `${w}: NATS_URL in a ConfigMap`);
        else assert.match(cm.data.NATS_URL, /^nats:\/\//);
        if (w === "gateway") assert.equal(cm.data.PORT, String(GATEWAY_DEFAULT_PORT));
        else assert.equal(cm.data.GRPC_PORT, String(AREA_SERVICES.find((s) => s.name === w)!.defaultPort));
        for (const secret of ["DATABASE_URL", "GANTRY_ADMIN_KEY", ...Object.keys(values.secrets.providers ?? {})])
          assert.ok(!(secret in cm.data), `${secret} must not be in ConfigMap ${w}`);
        if (!values.redis.bundled.enabled)
          assert.ok(!("REDIS_URL" in cm.data), "an external Redis URL (may hold a password) stays in the Secret");
        const container = r.find("Deployment", `${FULLNAME}-${w}`)!.spec.template.spec.containers[0];
        assert.deepEqual(container.envFrom, [{ configMapRef: { name: `${FULLNAME}-${w}` } }]);
        const env = new Map<string, Obj>((container.env ?? []).map((e: Obj) => [e.name, e.valueFrom?.secretKeyRef]));
        const spec = AREA_SERVICES.find((s) => s.name === w);
        if (spec?.database)
          assert.deepEqual(
            env.get("DATABASE_URL"),
            {
              // The bundled Postgres: the service's own login; else the one URL of the main Secret.
              name: values.postgres.bundled.enabled
                ? `${FULLNAME}-${w}-database`
                : values.secrets.existingSecret || FULLNAME,
              key: "DATABASE_URL",
            },
            `${w} reads DATABASE_URL from a Secret`,
          );
        else assert.ok(!env.has("DATABASE_URL"), `${w} owns no tables and gets no DATABASE_URL`);
        if (values.nats.bundled.enabled)
          assert.deepEqual(env.get("NATS_URL"), { name: `${FULLNAME}-${w}-nats`, key: "NATS_URL" }, `${w} NATS_URL`);
        for (const name of workload(values, w).secretEnv ?? [])
          assert.deepEqual(
            env.get(name),
            { name: values.secrets.existingSecret || FULLNAME, key: name, optional: true },
            `${w} ${name}`,
          );
      }
      const keysEnv = r
        .find("Deployment", `${FULLNAME}-keys`)!
        .spec.template.spec.containers[0].env.map((e: Obj) => e.name);
      assert.ok(keysEnv.includes("GANTRY_ADMIN_KEY"), "the keys service reads the admin key from the Secret");
      for (const w of workloads.filter((x) => x !== "keys")) {
        const names = (r.find("Deployment", `${FULLNAME}-${w}`)!.spec.template.spec.containers[0].env ?? []).map(
          (e: Obj) => e.name,
        );
        assert.ok(!names.includes("GANTRY_ADMIN_KEY"), `${w} does not get the admin key`);
      }
      const chartSecret = r.find("Secret", FULLNAME);
      if (values.secrets.existingSecret)
        assert.equal(chartSecret, undefined, "no chart-made Secret with secrets.existingSecret");
      else {
        assert.ok(chartSecret, "the chart makes its Secret");
        if (values.secrets.adminKey) assert.equal(chartSecret.stringData.GANTRY_ADMIN_KEY, values.secrets.adminKey);
        if (!values.postgres.bundled.enabled) assert.equal(chartSecret.stringData.DATABASE_URL, values.postgres.url);
      }
    });

    test("migrations: as each schema's owner in the pods' init container (bundled Postgres), else a hook Job per service", () => {
      const r = render();
      const jobs = r.all("Job");
      const dbServices = enabledServices.filter((s) => s.database);
      if (values.postgres.bundled.enabled) {
        assert.deepEqual(jobs, [], "no migration Jobs: the bundled Postgres' owners migrate in the pods");
        for (const s of enabledServices) {
          const pod = r.find("Deployment", `${FULLNAME}-${s.name}`)!.spec.template.spec;
          if (!s.database) {
            assert.equal(pod.initContainers, undefined, s.name);
            continue;
          }
          const [init] = pod.initContainers;
          assert.equal(init.name, "migrate");
          assert.deepEqual(init.args, ["migrate", s.name]);
          assert.equal(init.image, pod.containers[0].image, `${s.name}: the migrations of the image it runs`);
          assert.deepEqual(init.env.find((e: Obj) => e.name === "DATABASE_URL").valueFrom.secretKeyRef, {
            name: `${FULLNAME}-${s.name}-database`,
            key: "MIGRATION_DATABASE_URL",
          });
        }
        return;
      }
      assert.deepEqual(
        jobs.map((j) => j.metadata.name).sort(),
        dbServices.map((s) => `${FULLNAME}-migrate-${s.name}`).sort(),
      );
      const hooks = "pre-install,pre-upgrade";
      for (const job of jobs) {
        const service = job.metadata.labels["gantry.dev/service"];
        assert.equal(job.metadata.annotations["helm.sh/hook"], hooks, job.metadata.name);
        assert.match(job.metadata.annotations["helm.sh/hook-delete-policy"], /before-hook-creation/);
        const pod = job.spec.template.spec;
        assert.equal(pod.restartPolicy, "Never");
        assert.equal(
          pod.serviceAccountName,
          undefined,
          "hook pods must not need the release's ServiceAccount (it does not exist before install)",
        );
        const c = pod.containers[0];
        assert.deepEqual(c.args, ["migrate", service]);
        const db = c.env.find((e: Obj) => e.name === "DATABASE_URL").valueFrom.secretKeyRef;
        if (values.secrets.existingSecret) assert.equal(db.name, values.secrets.existingSecret);
        else {
          // The release's Secret does not exist during pre-install: the hook reads a hook Secret made just before it.
          assert.equal(db.name, `${FULLNAME}-migrations`);
          const hookSecret = r.find("Secret", `${FULLNAME}-migrations`)!;
          assert.equal(hookSecret.metadata.annotations["helm.sh/hook"], hooks);
          assert.ok(
            Number(hookSecret.metadata.annotations["helm.sh/hook-weight"]) <
              Number(job.metadata.annotations["helm.sh/hook-weight"]),
          );
        }
      }
    });

    test("HorizontalPodAutoscalers and PodDisruptionBudgets per workload, as configured", () => {
      const r = render();
      for (const w of workloads) {
        const cfg = workload(values, w);
        const hpa = r.find("HorizontalPodAutoscaler", `${FULLNAME}-${w}`);
        const dep = r.find("Deployment", `${FULLNAME}-${w}`)!;
        if (cfg.autoscaling.enabled) {
          assert.ok(hpa, `HPA ${w}`);
          assert.deepEqual(hpa.spec.scaleTargetRef, {
            apiVersion: "apps/v1",
            kind: "Deployment",
            name: `${FULLNAME}-${w}`,
          });
          assert.equal(hpa.spec.minReplicas, cfg.autoscaling.minReplicas);
          assert.equal(hpa.spec.maxReplicas, cfg.autoscaling.maxReplicas);
          assert.equal(dep.spec.replicas, undefined, `${w}: the HPA owns the replica count`);
        } else {
          assert.equal(hpa, undefined, `no HPA for ${w}`);
          assert.equal(dep.spec.replicas, cfg.replicas, `${w} replicas`);
        }
        const pdb = r.find("PodDisruptionBudget", `${FULLNAME}-${w}`);
        if (cfg.pdb.enabled) {
          assert.ok(pdb, `PDB ${w}`);
          assert.deepEqual(pdb.spec.selector.matchLabels, dep.spec.selector.matchLabels);
          assert.equal(
            pdb.spec.minAvailable ?? pdb.spec.maxUnavailable,
            cfg.pdb.minAvailable !== "" ? cfg.pdb.minAvailable : cfg.pdb.maxUnavailable,
          );
        } else assert.equal(pdb, undefined, `no PDB for ${w}`);
      }
    });

    test("every pod runs as non-root, read-only, with no capabilities and the RuntimeDefault seccomp profile", () => {
      const r = render();
      const pods = podTemplates(r);
      assert.ok(pods.length >= workloads.length);
      for (const { owner, spec } of pods) {
        assert.equal(spec.securityContext?.runAsNonRoot, true, `${owner} runAsNonRoot`);
        assert.equal(spec.securityContext?.seccompProfile?.type, "RuntimeDefault", `${owner} seccomp`);
        assert.equal(spec.automountServiceAccountToken, false, `${owner} mounts no API token`);
        for (const c of spec.containers) {
          assert.equal(c.securityContext?.readOnlyRootFilesystem, true, `${owner}/${c.name} read-only root`);
          assert.equal(
            c.securityContext?.allowPrivilegeEscalation,
            false,
            `${owner}/${c.name} no privilege escalation`,
          );
          assert.deepEqual(c.securityContext?.capabilities?.drop, ["ALL"], `${owner}/${c.name} drops every capability`);
          assert.ok(
            c.resources?.requests && c.resources?.limits?.memory,
            `${owner}/${c.name} has requests and a memory limit`,
          );
        }
      }
      for (const w of workloads) {
        const spec = r.find("Deployment", `${FULLNAME}-${w}`)!.spec.template.spec;
        assert.equal(spec.securityContext.runAsUser, 1000);
        const tmp = spec.volumes.find((v: Obj) => v.name === "tmp");
        assert.ok(tmp?.emptyDir, `${w}: /tmp is an emptyDir`);
        assert.deepEqual(spec.containers[0].volumeMounts, [{ name: "tmp", mountPath: "/tmp" }]);
      }
    });

    test("NetworkPolicies: default deny; only the gateway reaches the services; services reach only their dependencies", () => {
      const r = render();
      const policies = r.all("NetworkPolicy");
      if (!values.networkPolicy.enabled) {
        assert.equal(policies.length, 0);
        return;
      }
      const np = (name: string) => {
        const p = r.find("NetworkPolicy", `${FULLNAME}-${name}`);
        assert.ok(p, `NetworkPolicy ${name}`);
        return p.spec as Obj;
      };
      const release = { "app.kubernetes.io/name": "gantry", "app.kubernetes.io/instance": RELEASE };
      const deny = np("default-deny");
      assert.deepEqual(deny.podSelector.matchLabels, release);
      assert.deepEqual(deny.policyTypes, ["Ingress", "Egress"]);
      assert.equal(deny.ingress, undefined);
      assert.equal(deny.egress, undefined);
      const component = (peer: Obj) => peer.podSelector?.matchLabels?.["app.kubernetes.io/component"];
      const portsOf = (rule: Obj) => (rule.ports ?? []).map((p: Obj) => p.port);
      const egressTo = (spec: Obj, port: number) => spec.egress.filter((e: Obj) => portsOf(e).includes(port));

      for (const s of enabledServices) {
        const spec = np(s.name);
        assert.deepEqual(spec.policyTypes, ["Ingress", "Egress"]);
        assert.equal(spec.ingress.length, 1);
        assert.deepEqual(portsOf(spec.ingress[0]), [s.defaultPort]);
        const callers = spec.ingress[0].from.map(component).sort();
        const expected = [
          "gateway",
          ...enabledServices.filter((o) => (workload(values, o.name).calls ?? []).includes(s.name)).map((o) => o.name),
        ].sort();
        assert.deepEqual(callers, expected, `${s.name} accepts calls from ${expected.join(", ")} only`);
        assert.ok(
          spec.ingress[0].from.every((p: Obj) => p.podSelector && !p.ipBlock && !p.namespaceSelector),
          `${s.name}: only pods of the release`,
        );
        const pg = egressTo(spec, values.postgres.port);
        assert.equal(pg.length > 0, s.database, `${s.name} ${s.database ? "reaches" : "does not reach"} Postgres`);
        if (s.database && values.postgres.bundled.enabled) assert.equal(component(pg[0].to[0]), "postgres");
        assert.equal(egressTo(spec, values.nats.port).length, 1, `${s.name} reaches NATS`);
        const weaviatePorts = [...new Set([values.weaviate.port, values.weaviate.grpcPort])];
        const wv = spec.egress.filter((e: Obj) =>
          values.weaviate.bundled.enabled
            ? (e.to ?? []).some((p: Obj) => component(p) === "weaviate")
            : JSON.stringify(portsOf(e)) === JSON.stringify(weaviatePorts) &&
              JSON.stringify(e.to ?? []) === JSON.stringify(values.weaviate.networkPeers ?? []),
        );
        assert.equal(wv.length > 0, s.name === "memory" && values.weaviate.enabled, `${s.name} and Weaviate`);
        for (const rule of spec.egress) {
          for (const peer of rule.to ?? []) {
            if (peer.ipBlock) {
              // Only "the internet" rules use ipBlocks (external dependencies use their networkPeers): private ranges excluded.
              const external = [
                ...["postgres", "nats", "redis", "weaviate"].map((d) => values[d].networkPeers ?? []),
                values.blobStore.s3.networkPeers ?? [],
              ].some((peers: Obj[]) => peers.some((x: Obj) => x.ipBlock?.cidr === peer.ipBlock.cidr));
              if (!external)
                assert.ok(
                  peer.ipBlock.except?.includes(peer.ipBlock.cidr.includes(":") ? "fc00::/7" : "10.0.0.0/8"),
                  `${s.name}: internet egress excludes private ranges`,
                );
            }
            if (component(peer) && !["postgres", "nats", "redis", "weaviate"].includes(component(peer))) {
              assert.ok(
                (workload(values, s.name).calls ?? []).includes(component(peer)),
                `${s.name} reaches ${component(peer)} only if it calls it`,
              );
            }
          }
        }
      }
      const gw = np("gateway");
      const serviceEgress = gw.egress.find((e: Obj) => (e.to ?? []).some((p: Obj) => component(p) === "keys"));
      assert.deepEqual(
        serviceEgress.to.map(component).sort(),
        enabledServices.map((s) => s.name).sort(),
        "the gateway reaches every area service",
      );
      assert.deepEqual(portsOf(serviceEgress).sort(), enabledServices.map((s) => s.defaultPort).sort());
      assert.deepEqual(portsOf(gw.ingress[0]), [GATEWAY_DEFAULT_PORT]);
      assert.equal(egressTo(gw, values.postgres.port).length, 0, "the gateway has no database access");
      if (values.redis.enabled) assert.equal(egressTo(gw, values.redis.port).length, 1, "the gateway reaches Redis");
      const dns = np("dns");
      assert.deepEqual(dns.egress[0].ports.map((p: Obj) => `${p.port}/${p.protocol}`).sort(), ["53/TCP", "53/UDP"]);
      if (values.postgres.bundled.enabled) {
        const clients = np("postgres").ingress[0].from.map(component).sort();
        assert.deepEqual(
          clients,
          [
            ...enabledServices.filter((s) => s.database).map((s) => s.name),
            // The roles pod; the migrations run in the database pods (init containers).
            "postgres-roles",
          ].sort(),
        );
      }
      if (values.postgres.bundled.enabled)
        assert.equal(egressTo(np("postgres-roles"), values.postgres.port).length, 1, "the roles pod reaches Postgres");
      else if (values.migrations.enabled)
        assert.equal(egressTo(np("migrations"), values.postgres.port).length, 1, "migration Jobs reach Postgres");
    });

    test("gateway replicas share rate limits through Redis whenever there can be more than one", () => {
      const r = render();
      const gw = workload(values, "gateway");
      const most = gw.autoscaling.enabled ? gw.autoscaling.maxReplicas : gw.replicas;
      if (most <= 1) return;
      assert.equal(values.redis.enabled, true, `${most} gateway replicas and no Redis`);
      const cm = r.find("ConfigMap", `${FULLNAME}-gateway`)!;
      const env = r.find("Deployment", `${FULLNAME}-gateway`)!.spec.template.spec.containers[0].env ?? [];
      if (values.redis.bundled.enabled) {
        assert.equal(cm.data.REDIS_URL, undefined, "the URL holds the gateway's password: not in a ConfigMap");
        assert.deepEqual(env.find((e: Obj) => e.name === "REDIS_URL")?.valueFrom?.secretKeyRef, {
          name: `${FULLNAME}-redis`,
          key: "REDIS_URL",
        });
        assert.ok(r.find("Deployment", `${FULLNAME}-redis`), "the bundled Redis runs");
      } else
        assert.deepEqual(env.find((e: Obj) => e.name === "REDIS_URL")?.valueFrom?.secretKeyRef, {
          name: values.secrets.existingSecret || FULLNAME,
          key: "REDIS_URL",
        });
    });

    test("the Ingress, when enabled, routes to the gateway only", () => {
      const r = render();
      const ingresses = r.all("Ingress");
      assert.equal(ingresses.length, values.ingress.enabled ? 1 : 0);
      for (const ing of ingresses) {
        for (const rule of ing.spec.rules)
          for (const p of rule.http.paths)
            assert.deepEqual(p.backend.service, { name: `${FULLNAME}-gateway`, port: { name: "http" } });
      }
    });
  });
}

test("scale-out as the bench measures it: 2 gateways, 2 workspace pods, every caller sees every pod", () => {
  requireTools();
  const r = helmTemplate([
    "--set",
    "gateway.autoscaling.enabled=false",
    "--set",
    "gateway.replicas=2",
    "--set",
    "services.workspace.autoscaling.enabled=false",
    "--set",
    "services.workspace.replicas=2",
  ]);
  assert.equal(r.code, 0, r.out);
  const docs = parseDocs(r.stdout);
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name);
  assert.equal(find("Deployment", `${FULLNAME}-gateway`)!.spec.replicas, 2);
  assert.equal(find("Deployment", `${FULLNAME}-workspace`)!.spec.replicas, 2);
  assert.equal(find("HorizontalPodAutoscaler", `${FULLNAME}-workspace`), undefined);
  assert.equal(find("HorizontalPodAutoscaler", `${FULLNAME}-keys`)?.spec.maxReplicas, 4, "the others still autoscale");
  assert.equal(find("Service", `${FULLNAME}-workspace-headless`)!.spec.clusterIP, "None");
  const gw = find("ConfigMap", `${FULLNAME}-gateway`)!.data;
  assert.equal(gw.WORKSPACE_ADDR, `${FULLNAME}-workspace-headless:50057`);
  assert.ok(find("Deployment", `${FULLNAME}-redis`), "Redis is on by default");
  const v = kubeconform(r.stdout);
  assert.equal(v.code, 0, v.problems.join("\n"));
});

test("the blob store: Postgres by default for content and web, nothing on the pod's disk; S3 with its Secret and egress", () => {
  requireTools();
  const docsOf = (args: string[]) => {
    const r = helmTemplate(args);
    assert.equal(r.code, 0, r.out);
    return parseDocs(r.stdout);
  };
  const find = (docs: Obj[], kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata?.name === `${FULLNAME}-${name}`)!;
  const byDefault = docsOf([]);
  for (const name of ["content", "web"]) {
    const env = find(byDefault, "ConfigMap", name).data;
    assert.equal(env.BLOB_STORE, "postgres");
    assert.equal(env.CONTENT_DATA_DIR, undefined);
    assert.equal(env.BLOB_S3_BUCKET, undefined);
  }
  assert.equal(find(byDefault, "ConfigMap", "keys").data.BLOB_STORE, undefined, "only the workloads that keep blobs");

  const s3 = docsOf(["-f", join(CI_DIR, "external-values.yaml")]);
  const env = find(s3, "ConfigMap", "content").data;
  assert.deepEqual(
    [env.BLOB_STORE, env.BLOB_S3_BUCKET, env.BLOB_S3_PREFIX, env.BLOB_S3_ENDPOINT, env.BLOB_S3_FORCE_PATH_STYLE],
    ["s3", "gantry-blobs", "prod/", "https://s3.storage.example.com:9000", "true"],
  );
  // The external value set runs without web; content stands for both.
  const keeping = ["content", "web"].filter((n) => find(s3, "Deployment", n));
  assert.ok(keeping.includes("content"));
  for (const name of keeping) {
    const c = find(s3, "Deployment", name).spec.template.spec.containers[0];
    const creds = c.env.filter((e: Obj) => e.name.startsWith("AWS_"));
    assert.deepEqual(
      creds.map((e: Obj) => [e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key]),
      [
        ["AWS_ACCESS_KEY_ID", "gantry-s3-credentials", "AWS_ACCESS_KEY_ID"],
        ["AWS_SECRET_ACCESS_KEY", "gantry-s3-credentials", "AWS_SECRET_ACCESS_KEY"],
      ],
    );
    const egress = find(s3, "NetworkPolicy", name).spec.egress as Obj[];
    assert.ok(
      egress.some((e) => e.ports?.[0]?.port === 9000 && e.to?.[0]?.ipBlock?.cidr === "10.20.3.0/28"),
      `${name} may reach the S3 server`,
    );
  }
  const keys = find(s3, "Deployment", "keys").spec.template.spec.containers[0];
  assert.ok(!(keys.env ?? []).some((e: Obj) => e.name.startsWith("AWS_")), "other workloads get no S3 credentials");

  const refused = helmTemplate(["--set", "blobStore.driver=s3"]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.out, /\/blobStore\/s3\/bucket/);
});

test("Chromium: web and content run it without its sandbox only inside a confined pod; no other workload is told to", () => {
  requireTools();
  const r = helmTemplate([]);
  assert.equal(r.code, 0, r.out);
  const docs = parseDocs(r.stdout);
  const find = (kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata?.name === `${FULLNAME}-${name}`)!;
  for (const name of ["gateway", "keys", "connections", "payments", "memory", "trust", "workspace"])
    assert.equal(find("ConfigMap", name).data.GANTRY_CHROMIUM_NO_SANDBOX, undefined, name);
  for (const name of ["content", "web"]) {
    // The one switch kit/src/chromium.ts knows; the pod is what confines the browser instead.
    assert.equal(find("ConfigMap", name).data.GANTRY_CHROMIUM_NO_SANDBOX, "1", name);
    const pod = find("Deployment", name).spec.template.spec;
    assert.equal(pod.securityContext.runAsNonRoot, true, name);
    assert.equal(pod.securityContext.seccompProfile?.type, "RuntimeDefault", name);
    for (const c of pod.containers) {
      assert.equal(c.securityContext.allowPrivilegeEscalation, false, `${name}/${c.name}`);
      assert.equal(c.securityContext.readOnlyRootFilesystem, true, `${name}/${c.name}`);
      assert.equal(c.securityContext.privileged, false, `${name}/${c.name}`);
      assert.deepEqual(c.securityContext.capabilities?.drop, ["ALL"], `${name}/${c.name}`);
      assert.equal(c.securityContext.capabilities?.add, undefined, `${name}/${c.name}`);
    }
  }
});

test("the bundled Postgres: a login per schema and its owner, made in the Postgres pod; the superuser's password stays there", () => {
  requireTools();
  const r = helmTemplate([]);
  assert.equal(r.code, 0, r.out);
  const docs = parseDocs(r.stdout);
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name)!;
  const admin = find("Secret", `${FULLNAME}-postgres`).stringData;
  const roles = JSON.parse(admin["roles.json"]) as Record<string, string>;
  const schemas = AREA_SERVICES.filter((s) => s.database).map((s) => s.name);
  for (const schema of schemas) {
    const names = schemaRoleNames(schema);
    const own = find("Secret", `${FULLNAME}-${schema}-database`).stringData;
    const url = new URL(own.DATABASE_URL);
    const owner = new URL(own.MIGRATION_DATABASE_URL);
    assert.deepEqual([url.username, url.password], [names.service, roles[names.service]], schema);
    assert.deepEqual([owner.username, owner.password], [names.owner, roles[names.owner]], schema);
    assert.match(roles[names.service], /^[A-Za-z0-9]{32}$/);
    assert.notEqual(roles[names.service], roles[names.owner]);
    assert.equal(url.host, `${FULLNAME}-postgres:5432`);
  }
  // The roles pod applies exactly these schemas' roles, as the superuser; the database's own pod
  // does not run Gantry's image (an upgrade of Gantry must not restart Postgres).
  const rolesPod = find("Deployment", `${FULLNAME}-postgres-roles`).spec.template.spec;
  assert.deepEqual(rolesPod.containers[0].args, ["postgres-roles", "--watch", ...[...schemas].sort()]);
  assert.deepEqual(rolesPod.containers[0].env.find((e: Obj) => e.name === "DATABASE_URL").valueFrom.secretKeyRef, {
    name: `${FULLNAME}-postgres`,
    key: "DATABASE_URL",
  });
  assert.equal(new URL(admin.DATABASE_URL).username, "gantry");
  assert.ok(rolesPod.containers[0].readinessProbe, "ready only once the logins exist");
  const postgres = find("StatefulSet", `${FULLNAME}-postgres`).spec.template.spec;
  assert.ok(!postgres.containers.some((c: Obj) => String(c.image).includes("gantry")), "Postgres runs no Gantry image");
  // Only the roles pod reaches Postgres besides the database services.
  const ingress = find("NetworkPolicy", `${FULLNAME}-postgres`).spec.ingress[0].from.map(
    (f: Obj) => f.podSelector.matchLabels["app.kubernetes.io/component"],
  );
  assert.deepEqual([...ingress].sort(), [...schemas, "postgres-roles"].sort());
  // No other Gantry pod gets the superuser's Secret; each database pod only its own schema's.
  for (const d of docs.filter(
    (x) => (x.kind === "Deployment" || x.kind === "Job") && !x.metadata.name.endsWith("-postgres-roles"),
  )) {
    const spec = d.spec.template.spec;
    const refs = [...(spec.initContainers ?? []), ...spec.containers]
      .flatMap((c: Obj) => c.env ?? [])
      .map((e: Obj) => e.valueFrom?.secretKeyRef?.name)
      .filter(Boolean);
    assert.ok(!refs.includes(`${FULLNAME}-postgres`), `${d.metadata.name} reads the superuser's Secret`);
    const component = d.metadata.labels?.["app.kubernetes.io/component"];
    for (const ref of refs.filter((n: string) => n.endsWith("-database")))
      assert.equal(ref, `${FULLNAME}-${component}-database`, `${d.metadata.name} reads another schema's login`);
  }
});

test("the bundled NATS takes only workload logins, with npm start's rights; each workload gets only its own", () => {
  requireTools();
  const r = helmTemplate([]);
  assert.equal(r.code, 0, r.out);
  const docs = parseDocs(r.stdout);
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name)!;
  const secret = find("Secret", `${FULLNAME}-nats`).stringData;
  const passwords = JSON.parse(secret["users.json"]) as Record<string, string>;
  const workloads = ["gateway", ...AREA_SERVICES.map((s) => s.name)];
  assert.deepEqual(Object.keys(passwords).sort(), [...workloads].sort());
  // The values' rights are the runner's tables.
  const chartValues = parse(readFileSync(join(CHART, "values.yaml"), "utf8")) as Obj;
  for (const w of workloads) {
    const rights = workload(chartValues, w).nats;
    assert.deepEqual(rights.publish, NATS_PUBLISHES[w] ?? [], `${w} nats.publish`);
    assert.deepEqual(rights.streams, NATS_STREAMS[w] ?? [], `${w} nats.streams`);
    assert.deepEqual(rights.reads, NATS_READS[w] ?? [], `${w} nats.reads`);
    assert.deepEqual(rights.subscribe, NATS_SUBSCRIBES[w] ?? [], `${w} nats.subscribe`);
  }
  // One set of rules: each user's as npm start's natsConfig makes them (order aside).
  const users = (conf: string) =>
    new Map(
      [
        ...conf.matchAll(
          /\{ user: "([a-z]+)", password: "([^"]*)"(?:, permissions: \{ publish: \{ allow: \[">"\], deny: (\[[^\]]*\]) \}, subscribe: \{ allow: (\[[^\]]*\]) \} \})? \}/g,
        ),
      ].map((m) => [
        m[1],
        {
          password: m[2],
          deny: m[3] ? (JSON.parse(m[3]) as string[]).sort() : [],
          subscribe: m[4] ? (JSON.parse(m[4]) as string[]).sort() : [],
        },
      ]),
    );
  const chart = users(secret["nats.conf"]);
  const runner = users(natsConfig(new Map(workloads.map((w) => [w, passwords[w]]))));
  assert.equal(chart.size, workloads.length);
  assert.deepEqual(chart, runner);
  assert.ok(chart.get("web")!.deny.includes("payments.>"), "a workload may not publish another's events");
  assert.deepEqual(chart.get("web")!.subscribe, ["_INBOX.web.>"], "web subscribes only to its inbox");
  assert.ok(chart.get("web")!.deny.includes("$JS.API.CONSUMER.*.*.AUDIT.>"), "web may not read the audit stream");
  const nats = find("StatefulSet", `${FULLNAME}-nats`).spec.template.spec;
  assert.ok(nats.containers[0].args.includes("--config=/etc/nats/nats.conf"));
  for (const w of workloads) {
    const url = new URL(find("Secret", `${FULLNAME}-${w}-nats`).stringData.NATS_URL);
    assert.deepEqual([url.username, url.password, url.host], [w, passwords[w], `${FULLNAME}-nats:4222`]);
  }
});

test("the bundled Redis takes only the gateway's login, with npm start's ACL; only the gateway gets its URL", () => {
  requireTools();
  const r = helmTemplate([]);
  assert.equal(r.code, 0, r.out);
  const docs = parseDocs(r.stdout);
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name)!;
  const secret = find("Secret", `${FULLNAME}-redis`).stringData;
  assert.match(secret.REDIS_PASSWORD, /^[A-Za-z0-9]{32}$/);
  assert.equal(secret.REDIS_URL, `redis://gateway:${secret.REDIS_PASSWORD}@${FULLNAME}-redis:6379`);
  // One ACL: what the local runner gives redis-server is what the chart gives it.
  assert.equal(secret["redis.conf"], redisConfig(secret.REDIS_PASSWORD));
  const redis = find("Deployment", `${FULLNAME}-redis`).spec.template.spec;
  assert.equal(redis.containers[0].args[0], "/etc/gantry-redis/redis.conf");
  assert.equal(
    redis.volumes.find((v: Obj) => v.name === "acl")?.secret?.secretName,
    `${FULLNAME}-redis`,
    "the ACL file comes from the Secret",
  );
  for (const d of docs.filter((x) => x.kind === "Deployment" && x.metadata.name !== `${FULLNAME}-gateway`)) {
    const env = d.spec.template.spec.containers.flatMap((c: Obj) => c.env ?? []);
    assert.equal(
      env.find((e: Obj) => e.name === "REDIS_URL"),
      undefined,
      d.metadata.name,
    );
  }
  for (const cm of docs.filter((x) => x.kind === "ConfigMap"))
    assert.equal(cm.data?.REDIS_URL, undefined, cm.metadata.name);
});

test("OpenTelemetry: off by default; with an OTLP endpoint every workload gets the OTEL_* variables and the egress", () => {
  requireTools();
  const docsOf = (args: string[]) => {
    const r = helmTemplate(args);
    assert.equal(r.code, 0, r.out);
    return parseDocs(r.stdout);
  };
  const configMaps = (docs: Obj[]) =>
    docs.filter((d) => d.kind === "ConfigMap" && d.metadata?.labels?.["app.kubernetes.io/component"]);
  for (const cm of configMaps(docsOf([])))
    assert.ok(
      !Object.keys(cm.data ?? {}).some((k) => k.startsWith("OTEL_")),
      `${cm.metadata.name}: telemetry off by default`,
    );

  const on = docsOf(["-f", join(CI_DIR, "all-features-values.yaml")]);
  const workloads = ["gateway", ...AREA_SERVICES.map((a) => a.name)].filter((w) =>
    on.some((d) => d.kind === "Deployment" && d.metadata?.name === `${FULLNAME}-${w}`),
  );
  assert.ok(workloads.includes("gateway") && workloads.length > 1);
  for (const w of workloads) {
    const env = on.find((d) => d.kind === "ConfigMap" && d.metadata?.name === `${FULLNAME}-${w}`)!.data;
    assert.deepEqual(
      [
        env.OTEL_EXPORTER_OTLP_ENDPOINT,
        env.OTEL_EXPORTER_OTLP_PROTOCOL,
        env.OTEL_SERVICE_NAME,
        env.OTEL_TRACES_SAMPLER,
        env.OTEL_TRACES_SAMPLER_ARG,
        env.OTEL_METRICS_EXPORTER,
      ],
      ["http://otel-collector.observability:4317", "grpc", w, "parentbased_traceidratio", "0.25", "otlp"],
      `${w}'s ConfigMap`,
    );
    const egress = on.find((d) => d.kind === "NetworkPolicy" && d.metadata?.name === `${FULLNAME}-${w}`)!.spec
      .egress as Obj[];
    assert.ok(
      egress.some(
        (e) =>
          e.ports?.[0]?.port === 4317 &&
          e.to?.[0]?.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] === "observability",
      ),
      `${w} may reach the collector`,
    );
  }
  const refused = helmTemplate(["--set", "telemetry.protocol=thrift"]);
  assert.notEqual(refused.code, 0, "an unknown protocol is refused");
});

function renderedDocs(args: string[]): Obj[] {
  requireTools();
  const r = helmTemplate(args);
  assert.equal(r.code, 0, r.out);
  return parseDocs(r.stdout);
}

test("connections: the memory limit holds the sentence model's child above the idle request; the model on by default", () => {
  const docs = renderedDocs([]);
  const dep = docs.find((d) => d.kind === "Deployment" && d.metadata.name === `${FULLNAME}-connections`)!;
  const { requests, limits } = dep.spec.template.spec.containers[0].resources;
  const mi = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1]);
  // integration.search's model child (src/tool-meaning.ts) measured 267 MiB while alive; it ends
  // when idle, so the request leaves it out and the limit must not (the pod is OOM-killed otherwise).
  assert.ok(mi(limits.memory) - mi(requests.memory) >= 267, `${requests.memory} → ${limits.memory}`);
  const config = docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === `${FULLNAME}-connections`)!.data;
  assert.equal(config.CONNECTIONS_TOOL_MEANING, undefined, "the service's default (on) applies");
});

test("the keys the services cannot start without are generated in the chart's Secret, kept on uninstall; given ones win", () => {
  const secretOf = (docs: Obj[]) => docs.find((d) => d.kind === "Secret" && d.metadata.name === FULLNAME)!;
  const generated = secretOf(renderedDocs([]));
  const data = generated.stringData;
  assert.equal(Buffer.from(data.CONNECTIONS_MASTER_KEY, "base64").length, 32, "CONNECTIONS_MASTER_KEY: 32 bytes");
  assert.equal(Buffer.from(data.TRUST_SIGNING_KEY, "base64").length, 32, "TRUST_SIGNING_KEY: a 32-byte seed");
  assert.match(data.CONTENT_SIGNING_KEY, /^[A-Za-z0-9]{64}$/);
  assert.match(data.WEB_SIGNING_KEY, /^[A-Za-z0-9]{64}$/);
  assert.notEqual(data.CONTENT_SIGNING_KEY, data.WEB_SIGNING_KEY);
  assert.notEqual(
    secretOf(renderedDocs([])).stringData.CONNECTIONS_MASTER_KEY,
    data.CONNECTIONS_MASTER_KEY,
    "fresh per install (helm upgrade keeps the live one: k8s/e2e.ts checks it on a cluster)",
  );
  assert.equal(generated.metadata.annotations["helm.sh/resource-policy"], "keep");
  // The workloads read them from that Secret: each the keys it needs, no other.
  const deployment = renderedDocs([]).find((d) => d.kind === "Deployment" && d.metadata.name === `${FULLNAME}-trust`)!;
  const ref = deployment.spec.template.spec.containers[0].env.find((e: Obj) => e.name === "TRUST_SIGNING_KEY");
  assert.equal(ref.valueFrom.secretKeyRef.name, FULLNAME);
  const given = secretOf(renderedDocs(["--set", "secrets.providers.TRUST_SIGNING_KEY=bXkgb3duIGtleQ=="])).stringData;
  assert.equal(given.TRUST_SIGNING_KEY, "bXkgb3duIGtleQ==");
});

test("internal call keys: each pod gets only its own caller→service keys, derived from the master as the kit derives them", () => {
  const docs = renderedDocs([]);
  const secret = (name: string) => docs.find((d) => d.kind === "Secret" && d.metadata.name === name)!.stringData;
  const master = secret(FULLNAME).GANTRY_CALL_KEY;
  assert.equal(Buffer.from(master, "base64").length, 32);
  for (const name of ["gateway", ...AREA_SERVICES.map((a) => a.name)] as const) {
    const keys = secret(`${FULLNAME}-${name}-calls`);
    const incoming = JSON.parse(keys.GANTRY_CALL_KEYS_IN);
    const outgoing = JSON.parse(keys.GANTRY_CALL_KEYS_OUT);
    // Exactly the pairs of kit/src/topology.ts INTERNAL_CALLS: what a process insists on at start
    // (kit/src/call-auth.ts loadCallKeys), and no key for a call the kit would refuse anyway.
    assert.deepEqual(Object.keys(outgoing).sort(), calleesOf(name).sort(), `${name} calls`);
    if (name !== "gateway") assert.deepEqual(Object.keys(incoming).sort(), callersOf(name).sort(), `${name}'s callers`);
    if (name !== "gateway")
      for (const caller of callersOf(name))
        assert.equal(incoming[caller], deriveCallKey(master, caller, name), `${name} ← ${caller}`);
    for (const callee of calleesOf(name))
      assert.equal(outgoing[callee], deriveCallKey(master, name, callee), `${name} → ${callee}`);
    const env = docs
      .find((d) => d.kind === "Deployment" && d.metadata.name === `${FULLNAME}-${name}`)!
      .spec.template.spec.containers[0].env.map((e: Obj) => e.name);
    assert.ok(env.includes("GANTRY_CALL_KEYS_IN") && env.includes("GANTRY_CALL_KEYS_OUT"), name);
    assert.ok(!env.includes("GANTRY_CALL_KEY"), `${name} does not hold the master`);
  }
  // The same master every time the Secret is rendered within one release's render.
  assert.equal(
    JSON.parse(secret(`${FULLNAME}-keys-calls`).GANTRY_CALL_KEYS_IN).gateway,
    deriveCallKey(master, "gateway", "keys"),
  );
  const own = renderedDocs(["-f", join(CI_DIR, "external-values.yaml")]);
  const trust = own.find((d) => d.kind === "Deployment" && d.metadata.name === `${FULLNAME}-trust`)!;
  const ref = trust.spec.template.spec.containers[0].env.find((e: Obj) => e.name === "GANTRY_CALL_KEY");
  assert.deepEqual(
    ref.valueFrom.secretKeyRef,
    { name: "gantry-credentials", key: "GANTRY_CALL_KEY" },
    "with your Secret: its master",
  );
});

test("grpcTls: a CA and a certificate for every name the pods dial, mounted in every workload, TCP probes", () => {
  const docs = renderedDocs(["--set", "grpcTls.enabled=true"]);
  const tls = docs.find((d) => d.kind === "Secret" && d.metadata.name === `${FULLNAME}-grpc-tls`)!.stringData;
  const ca = new X509Certificate(tls["ca.crt"]);
  const cert = new X509Certificate(tls["tls.crt"]);
  assert.ok(cert.verify(ca.publicKey), "the certificate is signed by the CA");
  assert.ok(cert.checkPrivateKey(createPrivateKey(tls["tls.key"])), "the key is the certificate's");
  for (const { name } of AREA_SERVICES) {
    // Every host a *_ADDR names (the kit checks the server's certificate against it).
    const host = docs
      .find((d) => d.kind === "ConfigMap" && d.metadata.name === `${FULLNAME}-gateway`)!
      .data[`${name.toUpperCase()}_ADDR`].split(":")[0];
    assert.equal(cert.checkHost(host), host, `the certificate holds ${host}`);
    assert.equal(cert.checkHost(`${host}.${NAMESPACE}.svc.cluster.local`), `${host}.${NAMESPACE}.svc.cluster.local`);
  }
  for (const d of docs.filter(
    (x) => x.kind === "Deployment" && x.metadata.labels?.["app.kubernetes.io/part-of"] === "gantry",
  )) {
    const name = d.metadata.name.replace(`${FULLNAME}-`, "");
    if (["postgres", "postgres-roles", "nats", "redis"].includes(name)) continue;
    const pod = d.spec.template.spec;
    const env = docs.find((x) => x.kind === "ConfigMap" && x.metadata.name === d.metadata.name)!.data;
    assert.equal(env.GRPC_TLS_CA_FILE, "/etc/gantry/grpc-tls/ca.crt", name);
    assert.ok(
      pod.containers[0].volumeMounts.some((m: Obj) => m.mountPath === "/etc/gantry/grpc-tls"),
      name,
    );
    assert.equal(pod.volumes.find((v: Obj) => v.name === "grpc-tls").secret.secretName, `${FULLNAME}-grpc-tls`);
    const probe = pod.containers[0].readinessProbe;
    assert.ok(name === "gateway" ? probe.httpGet : probe.tcpSocket && !probe.grpc, `${name}: ${JSON.stringify(probe)}`);
  }
  const own = renderedDocs(["--set", "grpcTls.enabled=true", "--set", "grpcTls.existingSecret=mine"]);
  assert.ok(!own.some((d) => d.kind === "Secret" && d.metadata.name === `${FULLNAME}-grpc-tls`));
  const off = renderedDocs([]);
  assert.ok(!off.some((d) => d.kind === "Secret" && d.metadata.name === `${FULLNAME}-grpc-tls`));
});

test("content and web run the image with Chromium (<repository>-web, same tag); the others the plain one", () => {
  const images = (args: string[]) =>
    new Map(
      renderedDocs(args)
        .filter((d) => d.kind === "Deployment" && d.metadata.labels?.["app.kubernetes.io/name"] === "gantry")
        .map((d) => [d.metadata.name.replace(`${FULLNAME}-`, ""), d.spec.template.spec.containers[0].image]),
    );
  const byDefault = images(["--set", "image.repository=r.example/gantry", "--set", "image.tag=1.2.3"]);
  for (const [name, image] of byDefault) {
    if (["postgres", "postgres-roles", "nats", "redis"].includes(name)) continue;
    const browser = name === "content" || name === "web";
    assert.equal(image, browser ? "r.example/gantry-web:1.2.3" : "r.example/gantry:1.2.3", name);
  }
  const chosen = images([
    "--set",
    "image.browserRepository=r.example/browser",
    "--set",
    `image.browserDigest=sha256:${"a".repeat(64)}`,
    "--set",
    "services.web.image.repository=r.example/own-web",
  ]);
  assert.equal(chosen.get("content"), `r.example/browser@sha256:${"a".repeat(64)}`);
  assert.equal(chosen.get("web"), `r.example/own-web@sha256:${"a".repeat(64)}`, "a workload's own image keys win");
  assert.match(chosen.get("keys")!, /^gantry:/);
});

test("Prometheus: off by default; on, every workload serves its metrics on a named port the pods announce", () => {
  const off = renderedDocs([]);
  assert.ok(!off.some((d) => d.kind === "NetworkPolicy" && d.metadata.name === `${FULLNAME}-metrics`));
  const on = renderedDocs(["--set", "telemetry.prometheus.enabled=true"]);
  const deployments = on.filter(
    (d) => d.kind === "Deployment" && d.metadata.labels?.["app.kubernetes.io/name"] === "gantry",
  );
  const ours = deployments.filter(
    (d) => !["postgres", "postgres-roles", "nats", "redis"].some((x) => d.metadata.name.endsWith(x)),
  );
  assert.equal(ours.length, 9);
  for (const d of ours) {
    const name = d.metadata.name.replace(`${FULLNAME}-`, "");
    const env = on.find((x) => x.kind === "ConfigMap" && x.metadata.name === d.metadata.name)!.data;
    assert.equal(env.OTEL_METRICS_EXPORTER, "prometheus", name);
    assert.equal(env.OTEL_TRACES_EXPORTER, "none", `${name}: no collector, no traces`);
    assert.equal(env.OTEL_EXPORTER_PROMETHEUS_PORT, "9464", name);
    assert.equal(env.OTEL_SERVICE_NAME, name);
    const pod = d.spec.template;
    assert.equal(pod.metadata.annotations["prometheus.io/scrape"], "true", name);
    assert.ok(
      pod.spec.containers[0].ports.some((p: Obj) => p.name === "metrics" && p.containerPort === 9464),
      name,
    );
  }
  const policy = on.find((d) => d.kind === "NetworkPolicy" && d.metadata.name === `${FULLNAME}-metrics`)!;
  assert.deepEqual(policy.spec.ingress, [{ ports: [{ protocol: "TCP", port: 9464 }] }]);
  const both = renderedDocs([
    "-f",
    join(CI_DIR, "all-features-values.yaml"),
    "--set",
    "telemetry.prometheus.enabled=true",
  ]);
  const gw = both.find((d) => d.kind === "ConfigMap" && d.metadata.name === `${FULLNAME}-gateway`)!.data;
  assert.equal(gw.OTEL_METRICS_EXPORTER, "otlp,prometheus");
  assert.equal(gw.OTEL_TRACES_EXPORTER, undefined, "with a collector, traces go to it");
});

test("NOTES.txt warns when gateway replicas would each count rate limits on their own", () => {
  requireTools();
  assert.match(
    renderNotes(["--set", "redis.enabled=false"]),
    /WARNING: redis\.enabled is false while the gateway runs more than one replica/,
  );
  assert.doesNotMatch(renderNotes([]), /WARNING/);
  assert.doesNotMatch(
    renderNotes([
      "--set",
      "redis.enabled=false",
      "--set",
      "gateway.autoscaling.enabled=false",
      "--set",
      "gateway.replicas=1",
    ]),
    /WARNING/,
    "one gateway needs no shared counter",
  );
});

describe("the chart refuses bad values with a message naming them", () => {
  const refuse = (args: string[], pattern: RegExp) => {
    requireTools();
    const r = helmTemplate(args);
    assert.notEqual(r.code, 0, `helm template ${args.join(" ")} should fail`);
    assert.match(r.out, pattern);
  };
  test("an external Postgres without its URL", () =>
    refuse(["--set", "postgres.bundled.enabled=false"], /postgres\.url .*is required/));
  test("an admin key that is not a Gantry key", () => refuse(["--set", "secrets.adminKey=hunter2"], /adminKey/));
  test("a misspelled setting", () =>
    refuse(["--set", "services.keys.replica=2"], /additional properties 'replica' not allowed/));
  test("minReplicas above maxReplicas", () =>
    refuse(
      ["--set", "gateway.autoscaling.minReplicas=9", "--set", "gateway.autoscaling.maxReplicas=3"],
      /minReplicas \(9\) is above maxReplicas \(3\)/,
    ));
  test("a call to a service that does not exist", () =>
    refuse(["--set", "services.trust.calls={billing}"], /trust\.calls: "billing" is not an area service/));
  test("a disabled service that an enabled one calls", () =>
    refuse(
      ["--set", "services.connections.enabled=false"],
      /services\.connections\.enabled is false, but (content|payments) calls it/,
    ));
  test("an external Weaviate without its URL (values.schema.json)", () =>
    refuse(["--set", "weaviate.enabled=true", "--set", "weaviate.bundled.enabled=false"], /weaviate[\s\S]*url/));
  test("an external NATS without its URL", () =>
    refuse(["--set", "nats.bundled.enabled=false"], /nats\.url is required/));
});

test("the validator is real: broken manifests fail kubeconform", () => {
  requireTools();
  const r = helmTemplate([]);
  assert.equal(r.code, 0, r.out);
  const docs = parseDocs(r.stdout);
  const dep = docs.find((d) => d.kind === "Deployment" && d.metadata.name === `${FULLNAME}-keys`)!;
  const broken = structuredClone(dep);
  broken.spec.template.spec.containers[0].readinessProbe.grpc.port = "fifty";
  broken.spec.template.spec.containers[0].securityContext.readOnlyRootFilesytem = true; // misspelled
  const removedApi = {
    apiVersion: "policy/v1beta1",
    kind: "PodDisruptionBudget",
    metadata: { name: "old" },
    spec: { maxUnavailable: 1 },
  };
  const v = kubeconform([broken, removedApi].map((d) => JSON.stringify(d)).join("\n---\n"));
  assert.notEqual(v.code, 0);
  assert.equal(v.summary.invalid + v.summary.errors, 2, v.problems.join("\n"));
  const text = v.problems.join("\n");
  assert.match(text, /readinessProbe\/grpc\/port.*want integer/);
  assert.match(text, /readOnlyRootFilesytem/);
  assert.match(text, /could not find schema for PodDisruptionBudget/);
});

/**
 * NOTES.txt as Helm renders it. `helm template` leaves NOTES out and `helm install --dry-run`
 * wants a reachable cluster, so a copy of the chart gets one more template that includes
 * NOTES.txt into a ConfigMap.
 */
function renderNotes(args: string[]): string {
  const copy = join(mkdtempSync(join(tmpdir(), "gantry-chart-")), "gantry");
  try {
    cpSync(CHART, copy, { recursive: true });
    writeFileSync(
      join(copy, "templates", "zz-notes.yaml"),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include (print $.Template.BasePath "/NOTES.txt") . | quote }}\n',
    );
    const r = exec(HELM, [
      "template",
      RELEASE,
      copy,
      "--namespace",
      NAMESPACE,
      "--kube-version",
      KUBERNETES_VERSION,
      "--show-only",
      "templates/zz-notes.yaml",
      ...args,
    ]);
    assert.equal(r.code, 0, r.out);
    return (parse(r.stdout) as Obj).data.notes as string;
  } finally {
    rmSync(dirname(copy), { recursive: true, force: true });
  }
}

test("gateway.trustedProxies reaches the gateway alone as TRUSTED_PROXIES; an Ingress without it is warned about", () => {
  const configOf = (docs: Obj[], w: string) =>
    docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === `${FULLNAME}-${w}`)?.data ?? {};
  const set = renderedDocs(["--set-string", "gateway.trustedProxies=10.0.0.0/8\\,loopback"]);
  assert.equal(configOf(set, "gateway").TRUSTED_PROXIES, "10.0.0.0/8,loopback");
  for (const s of AREA_SERVICES) assert.equal(configOf(set, s.name).TRUSTED_PROXIES, undefined, s.name);
  assert.equal(configOf(renderedDocs([]), "gateway").TRUSTED_PROXIES, undefined, "unset: the socket's address");
  const ingress = ["--set", "ingress.enabled=true"];
  assert.match(renderNotes(ingress), /gateway\.trustedProxies is empty/);
  assert.doesNotMatch(
    renderNotes([...ingress, "--set", "gateway.trustedProxies=10.0.0.0/8"]),
    /trustedProxies is empty/,
  );
});

test("NOTES.txt tells the operator the URL and how to get the admin key", () => {
  requireTools();
  const plain = renderNotes([]);
  assert.match(plain, /port-forward service\/gantry-gateway 8080:80/);
  assert.match(plain, /logs deployment\/gantry-keys \| grep '"adminKey"'/);
  assert.match(plain, /new-key/, "says how to choose the key instead");
  const chosen = renderNotes(["-f", join(CI_DIR, "all-features-values.yaml")]);
  assert.match(chosen, /https:\/\/api\.gantry\.example\.com/);
  assert.match(chosen, /get secret gantry -o jsonpath='\{\.data\.GANTRY_ADMIN_KEY\}' \| base64 -d/);
  const existing = renderNotes(["-f", join(CI_DIR, "external-values.yaml")]);
  assert.match(existing, /get secret gantry-credentials -o jsonpath='\{\.data\.GANTRY_ADMIN_KEY\}'/);
  assert.match(existing, /get service gantry-gateway -o jsonpath/, "a LoadBalancer gateway: how to read its address");
});

test("the Dockerfile passes hadolint and builds a non-root Node 24 image without dev dependencies", () => {
  requireTools();
  const r = exec(HADOLINT, ["--no-color", join(ROOT, "Dockerfile")]);
  assert.equal(r.code, 0, r.out);
  const text = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  assert.match(text, /^ARG NODE_IMAGE=node:24-slim$/m);
  assert.match(text, /npm ci --omit=dev --omit=optional/);
  assert.match(text, /^USER 1000:1000$/m);
  assert.match(text, /node infra\/scripts\/generate\.ts/, "the Prisma clients are generated in the image build");
  // Every process in the image runs with the local runner's memory options (infra/README.md, "Memory").
  const imageOptions = /^\s+NODE_OPTIONS="([^"]*)"/m.exec(text)?.[1].split(" ");
  const runnerOptions = NODE_PROCESS_ARGS.map((arg) =>
    arg.replace(/^--import=file:\/\/.*?\/kit\//, "--import=/app/kit/"),
  );
  assert.deepEqual(imageOptions, runnerOptions, "the image's NODE_OPTIONS are the runner's NODE_PROCESS_ARGS");
  for (const [name, value] of Object.entries(NODE_PROCESS_ENV))
    assert.match(text, new RegExp(`^\\s+${name}=${value}\\b`, "m"));
  const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
  for (const entry of ["**/node_modules", ".git", ".gantry", "services/*/src/generated"])
    assert.ok(ignore.includes(entry), `.dockerignore: ${entry}`);
});

test("infra/compose.yaml is a valid Compose file running the whole stack", () => {
  requireTools();
  const compose = parse(readFileSync(join(ROOT, "infra", "compose.yaml"), "utf8"), { merge: true }) as Obj;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(COMPOSE_SCHEMA, "utf8")));
  assert.ok(validate(compose), JSON.stringify(validate.errors, null, 1));
  const services = compose.services as Record<string, Obj>;
  for (const dep of ["postgres", "nats", "redis", "weaviate", "migrate", "gateway"]) assert.ok(services[dep], dep);
  assert.ok(services.nats.command.includes("--jetstream"));
  for (const s of AREA_SERVICES) {
    const svc = services[s.name];
    assert.ok(svc, s.name);
    assert.equal(svc.environment.SERVICE, s.name);
    assert.equal(svc.environment.GRPC_PORT, String(s.defaultPort));
    assert.equal(svc.environment.DATABASE_URL !== undefined, s.database, `${s.name} DATABASE_URL`);
    assert.equal(svc.read_only, true);
    assert.deepEqual(svc.cap_drop, ["ALL"]);
    assert.equal(svc.depends_on.migrate.condition, "service_completed_successfully");
    for (const other of AREA_SERVICES)
      assert.equal(svc.environment[other.addrEnv], `${other.name}:${other.defaultPort}`);
  }
  assert.equal(services.gateway.environment.REDIS_URL, "redis://redis:6379");
  assert.deepEqual(services.migrate.command, ["migrate", "all"]);
});
