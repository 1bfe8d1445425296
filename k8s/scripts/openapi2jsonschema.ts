/**
 * @module k8s/scripts/openapi2jsonschema
 * Turns the Kubernetes OpenAPI v2 document (`api/openapi-spec/swagger.json` of the
 * `k8s.io/kubernetes` module, i.e. the API server's own published schema) into the JSON Schema
 * layout kubeconform reads from a local folder:
 *
 *   <out>/v<version>-standalone-strict/_definitions.json         every definition, strict
 *   <out>/v<version>-standalone-strict/<kind>-<group>-<ver>.json  one per group/version/kind,
 *                                                                 a $ref into _definitions.json
 *
 * File names follow kubeconform's `{{ .ResourceKind }}{{ .KindSuffix }}` (kind lower-cased; the
 * suffix is the first label of the API group and the version: deployment-apps-v1,
 * networkpolicy-networking-v1, service-v1). The same adjustments as the openapi2jsonschema tool
 * kubeconform's schemas come from:
 *  - "strict": objects with `properties` and no `additionalProperties` get `false`, so unknown or
 *    misspelled fields fail (what `kubectl apply --validate=strict` refuses);
 *  - `format: int-or-string` becomes `oneOf: [string, integer]` (ports, maxUnavailable, …);
 *  - resource quantities accept strings and numbers (`cpu: 1`, `memory: 512Mi`), as the API does;
 *  - each per-kind file also pins `apiVersion` and `kind`.
 *
 * Usage: node k8s/scripts/openapi2jsonschema.ts <swagger.json> <out dir> <version, e.g. 1.36.3>
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/** Applies the strict, int-or-string and quantity adjustments to one schema (recursively). */
export function adjust(node: Json): Json {
  if (Array.isArray(node)) return node.map(adjust);
  if (node === null || typeof node !== "object") return node;
  if (node.format === "int-or-string") {
    const { type: _t, format: _f, ...rest } = node;
    return { ...rest, oneOf: [{ type: "string" }, { type: "integer" }] };
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(node)) {
    // `properties` maps names to schemas: its keys are not keywords (a field may be called "format").
    out[k] =
      k === "properties" && v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, adjust(s)]))
        : adjust(v);
  }
  if (out.properties && typeof out.properties === "object" && !("additionalProperties" in out))
    out.additionalProperties = false;
  return out;
}

/** kubeconform's file name for a group/version/kind. */
export function fileName(gvk: Gvk): string {
  const suffix = gvk.group ? `-${gvk.group.split(".")[0]}-${gvk.version}` : `-${gvk.version}`;
  return `${`${gvk.kind}${suffix}`.toLowerCase()}.json`;
}

export function apiVersion(gvk: Gvk): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

export interface ConvertResult {
  dir: string;
  kinds: number;
  definitions: number;
}

export function convert(swaggerPath: string, outDir: string, version: string): ConvertResult {
  const swagger = JSON.parse(readFileSync(swaggerPath, "utf8")) as { definitions: Record<string, Schema> };
  if (!swagger.definitions || typeof swagger.definitions !== "object")
    throw new Error(`${swaggerPath}: no "definitions" (not an OpenAPI v2 document)`);
  const definitions: Record<string, Json> = {};
  for (const [name, def] of Object.entries(swagger.definitions)) {
    if (name === QUANTITY) {
      definitions[name] = {
        description: (def.description as string) ?? "",
        oneOf: [{ type: "string" }, { type: "number" }],
      };
    } else {
      definitions[name] = adjust(def);
    }
  }

  const final = join(outDir, `v${version}-standalone-strict`);
  const tmp = `${final}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "_definitions.json"), JSON.stringify({ definitions }));
  let kinds = 0;
  for (const [name, def] of Object.entries(swagger.definitions)) {
    const gvks = def["x-kubernetes-group-version-kind"] as unknown as Gvk[] | undefined;
    if (!Array.isArray(gvks)) continue;
    for (const gvk of gvks) {
      const schema = {
        $schema: "http://json-schema.org/draft-04/schema#",
        description: `${apiVersion(gvk)} ${gvk.kind} (Kubernetes ${version}, strict)`,
        allOf: [
          { $ref: `_definitions.json#/definitions/${name}` },
          {
            properties: { apiVersion: { enum: [apiVersion(gvk)] }, kind: { enum: [gvk.kind] } },
            required: ["apiVersion", "kind"],
          },
        ],
      };
      writeFileSync(join(tmp, fileName(gvk)), JSON.stringify(schema, null, 1));
      kinds++;
    }
  }
  if (kinds === 0) throw new Error(`${swaggerPath}: no definition carries x-kubernetes-group-version-kind`);
  writeFileSync(join(tmp, ".complete"), `${new Date().toISOString()} from ${swaggerPath}\n`);
  rmSync(final, { recursive: true, force: true });
  renameSync(tmp, final);
  return { dir: final, kinds, definitions: Object.keys(definitions).length };
}

if (import.meta.main) {
  const [swaggerPath, outDir, version] = process.argv.slice(2);
  if (!swaggerPath || !outDir || !version) {
    process.stderr.write(
      "usage: node k8s/scripts/openapi2jsonschema.ts <swagger.json> <out dir> <kubernetes version>\n",
    );
    process.exit(64);
  }
  const r = convert(swaggerPath, outDir, version);
  process.stdout.write(`${r.kinds} kinds, ${r.definitions} definitions → ${r.dir}\n`);
}
