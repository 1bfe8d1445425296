/**
 * @module kit/scripts/generate
 * Writes what the kit and the services read from the contracts instead of retyping them:
 *
 * - `kit/src/generated/grpc.ts` (types only): an interface for every message of the .proto files
 *   under proto/gantry (and grpc.health.v1), as the kit's loader hands them over (kit/grpc-proto:
 *   keepCase, int64 as number, enums as their names, defaults filled in, an unset message field
 *   null, a oneof's members optional), its `…Init` twin (what a sender may write: every field
 *   optional, as proto3 allows), and `GrpcServices`, per service a method table
 *   `{ Method: { req, reqInit, res, resInit } }`, which types the kit's client
 *   (`makeClient(…).unary("Method", req)`).
 * - `services/<service>/src/generated/abilities.ts`: the service's ability index, a static import
 *   of every handler file `src/abilities/<id>.ts` the catalogue gives it, so "go to definition"
 *   leads from the index to each handler and the kit's bootstrap (kit/service.ts) reads no
 *   directory. A handler file named after an ability the service does not own stops the generator.
 *
 * Run by `npm run generate` and `postinstall` (infra/scripts/generate.ts), so a fresh clone has
 * both after `npm ci`. `--check` exits 1 when a file on disk differs from what the sources give
 * (kit/src/generated.test.ts runs it).
 *
 * Usage: `node kit/scripts/generate.ts [--check]`
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { protoPath as HEALTH_PROTO } from "grpc-health-check";
import { abilitiesOfService } from "@gantry/proto/catalogue";
import type { ServiceName } from "@gantry/proto/catalogue/types.ts";
import { PROTO_ROOT } from "@gantry/proto/paths";
import { AREA_SERVICES } from "../src/topology.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GRPC_OUT = path.join(ROOT, "kit", "src", "generated", "grpc.ts");

/** Every .proto under proto/gantry, as paths relative to PROTO_ROOT (how the kit names them). */
function protoFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".proto")) out.push(path.relative(PROTO_ROOT, full).split(path.sep).join("/"));
    }
  };
  walk(path.join(PROTO_ROOT, "gantry"));
  return out.sort();
}

const NUMBER_TYPES = new Set([
  "double",
  "float",
  "int32",
  "uint32",
  "sint32",
  "fixed32",
  "sfixed32",
  // longs: Number
  "int64",
  "uint64",
  "sint64",
  "fixed64",
  "sfixed64",
]);

/** `gantry.keys.v1.KeyRecord` → `KeyRecord`; a nested type keeps its parent: `HealthCheckResponse_ServingStatus`. */
function tsName(obj: protobuf.ReflectionObject): string {
  const parts: string[] = [];
  for (let o: protobuf.ReflectionObject | null = obj; o && !(o.parent === null); o = o.parent) {
    if (o instanceof protobuf.Type || o instanceof protobuf.Enum) parts.unshift(o.name);
    else break;
  }
  return parts.join("_");
}

function comment(text: string | null | undefined, indent: string): string {
  if (!text) return "";
  const lines = text.split("\n").map((l) => l.replace(/\*\//g, "* /"));
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

/** The TypeScript type of one value of `field` (not its repetition), decoded or as sent. */
function valueType(field: protobuf.Field, init: boolean): string {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) return init ? `${tsName(t)}Init` : tsName(t);
  if (t instanceof protobuf.Enum) return tsName(t);
  if (NUMBER_TYPES.has(field.type)) return "number";
  if (field.type === "bool") return "boolean";
  if (field.type === "string") return "string";
  if (field.type === "bytes") return init ? "Uint8Array" : "Buffer";
  throw new Error(`${field.fullName}: no TypeScript type for ${field.type}`);
}

function fieldLine(field: protobuf.Field, init: boolean): string {
  const value = valueType(field, init);
  let type: string;
  if (field instanceof protobuf.MapField) type = `Record<string, ${value}>`;
  else if (field.repeated) type = `${value}[]`;
  // defaults: true gives an unset message field as null; every scalar gets its default.
  else if (field.resolvedType instanceof protobuf.Type) type = `${value} | null`;
  else type = value;
  // A oneof's members get no default (only the one set is there); a sender may leave anything out.
  const optional = init || field.partOf ? "?" : "";
  return `${comment(field.comment, "  ")}  ${field.name}${optional}: ${type};\n`;
}

function renderType(type: protobuf.Type): string {
  const name = tsName(type);
  const doc = comment(type.comment ?? `\`${type.fullName.slice(1)}\` as the kit's loader hands it over.`, "");
  if (type.fieldsArray.length === 0) {
    // No fields: an object literal with any property is a mistake, which `{}` would let through.
    return (
      `${doc}export type ${name} = Record<string, never>;\n\n` +
      `/** \`${type.fullName.slice(1)}\` as a sender writes it. */\nexport type ${name}Init = Record<string, never>;\n\n`
    );
  }
  let out = `${doc}export interface ${name} {\n`;
  for (const field of type.fieldsArray) out += fieldLine(field, false);
  // oneofs: true names the member that is set.
  for (const oneof of type.oneofsArray)
    out += `  ${oneof.name}?: ${oneof.fieldsArray.map((f) => JSON.stringify(f.name)).join(" | ")};\n`;
  out += "}\n\n";
  out += `/** \`${type.fullName.slice(1)}\` as a sender writes it: proto3 gives every field left out its default. */\n`;
  out += `export interface ${name}Init {\n`;
  for (const field of type.fieldsArray) out += fieldLine(field, true);
  out += "}\n\n";
  return out;
}

function renderEnum(e: protobuf.Enum): string {
  // enums: String: a value travels in code as its name.
  const names = Object.keys(e.values).map((v) => JSON.stringify(v));
  return `${comment(e.comment, "")}export type ${tsName(e)} = ${names.join(" | ")};\n\n`;
}

/** Every type, enum and service in `ns`, depth first. */
function collect(ns: protobuf.NamespaceBase, out: protobuf.ReflectionObject[] = []): protobuf.ReflectionObject[] {
  for (const obj of ns.nestedArray) {
    if (obj instanceof protobuf.Type || obj instanceof protobuf.Enum || obj instanceof protobuf.Service) out.push(obj);
    if (obj instanceof protobuf.Namespace) collect(obj, out);
  }
  return out;
}

export function renderGrpcTypes(): string {
  const files = protoFiles();
  const root = new protobuf.Root();
  const fileOf = new Map<string, string>();
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(PROTO_ROOT, target));
  for (const file of files) root.loadSync(file, { keepCase: true, alternateCommentMode: true });
  root.loadSync(HEALTH_PROTO, { keepCase: true, alternateCommentMode: true });
  root.resolveAll();
  for (const obj of collect(root)) {
    if (!(obj instanceof protobuf.Service)) continue;
    const file = obj.filename ? path.relative(PROTO_ROOT, obj.filename).split(path.sep).join("/") : "";
    fileOf.set(obj.fullName.slice(1), file);
  }

  let body = "";
  const seen = new Map<string, string>();
  const services: protobuf.Service[] = [];
  for (const obj of collect(root)) {
    if (obj instanceof protobuf.Service) {
      services.push(obj);
      continue;
    }
    const name = tsName(obj);
    const other = seen.get(name);
    if (other)
      throw new Error(
        `${obj.fullName.slice(1)} and ${other} would both be ${name} in kit/src/generated/grpc.ts: rename one`,
      );
    seen.set(name, obj.fullName.slice(1));
    body += obj instanceof protobuf.Type ? renderType(obj) : renderEnum(obj as protobuf.Enum);
  }

  body +=
    "/**\n * Every gRPC service by full name, and per method what a server reads (`req`), a client sends\n" +
    " * (`reqInit`), a client reads (`res`) and a server answers (`resInit`).\n */\n";
  body += "export interface GrpcServices {\n";
  for (const service of services) {
    body += `${comment(service.comment, "  ")}  ${JSON.stringify(service.fullName.slice(1))}: {\n`;
    for (const m of service.methodsArray) {
      if (m.requestStream || m.responseStream) continue; // the kit's client makes unary calls only
      const req = tsName(m.resolvedRequestType!);
      const res = tsName(m.resolvedResponseType!);
      body += comment(m.comment, "    ");
      body += `    ${m.name}: { req: ${req}; reqInit: ${req}Init; res: ${res}; resInit: ${res}Init };\n`;
    }
    body += "  };\n";
  }
  body += "}\n\n";
  body += "/** The .proto file (under proto/) that declares each service, as `makeClient` is given it. */\n";
  body += "export interface GrpcServiceFiles {\n";
  for (const service of services) {
    const file = fileOf.get(service.fullName.slice(1)) ?? "";
    // grpc.health.v1 is loaded from its npm package, not by path under proto/.
    body += `  ${JSON.stringify(service.fullName.slice(1))}: ${file.startsWith("..") || !file ? "string" : JSON.stringify(file)};\n`;
  }
  body += "}\n";

  return (
    "// Generated by kit/scripts/generate.ts from proto/gantry/**/*.proto and grpc.health.v1: do not edit.\n" +
    "// `npm run generate` rewrites it.\n\n" +
    body
  );
}

/** The handler file of ability `id` in a service's `src/abilities/`, if there is one. */
function handlerFiles(service: string): string[] {
  const dir = path.join(ROOT, "services", service, "src", "abilities");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f.length > 3)
    .sort();
}

/** `contact.get` → `contact_get`, a name for its import. */
function importName(id: string): string {
  return id.replace(/[^A-Za-z0-9_]/g, "_");
}

export function renderAbilityIndex(service: ServiceName): string {
  const owned = new Set(abilitiesOfService(service).map((a) => a.id as string));
  const files = handlerFiles(service);
  const ids: string[] = [];
  for (const file of files) {
    const id = file.slice(0, -3);
    if (!owned.has(id))
      throw new Error(
        `services/${service}/src/abilities/${file} is named after ${id}, which the catalogue does not give to ${service}`,
      );
    ids.push(id);
  }
  let out =
    `// Generated by kit/scripts/generate.ts from the catalogue and services/${service}/src/abilities/: do not edit.\n` +
    "// The kit's bootstrap (kit/src/service.ts) serves these handlers; an owned ability missing here answers 501.\n" +
    'import type { AbilityIndex } from "@gantry/kit/ability.ts";\n';
  for (const id of ids) out += `import ${importName(id)} from "../abilities/${id}.ts";\n`;
  out += "\nexport default {\n";
  for (const id of ids) out += `  ${JSON.stringify(id)}: ${importName(id)},\n`;
  out += "} satisfies AbilityIndex;\n";
  return out;
}

/** Every generated file and its content. */
export function render(): Map<string, string> {
  const files = new Map<string, string>([[GRPC_OUT, renderGrpcTypes()]]);
  for (const { name } of AREA_SERVICES) {
    if (!fs.existsSync(path.join(ROOT, "services", name, "src"))) continue;
    files.set(path.join(ROOT, "services", name, "src", "generated", "abilities.ts"), renderAbilityIndex(name));
  }
  return files;
}

/** Writes the files that differ (or, with `check`, only lists them); returns them relative to the repo. */
export function write(check = false): string[] {
  const changed: string[] = [];
  for (const [file, content] of render()) {
    let current: string | undefined;
    try {
      current = fs.readFileSync(file, "utf8");
    } catch {
      /* not generated yet */
    }
    if (current === content) continue;
    changed.push(path.relative(ROOT, file));
    if (!check) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
  }
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const changed = write(check);
  if (check && changed.length > 0) {
    console.error(`kit: ${changed.join(", ")} out of date; run \`npm run generate\``);
    process.exit(1);
  }
}
