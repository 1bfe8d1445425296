/**
 * @module kit/validation
 * Input validation against the catalogue's JSON Schemas. Compiled once per process; every error is
 * reported (not only the first), each with a JSON Pointer to the offending field and a message that
 * says what would be accepted.
 *
 * Compiling every input schema takes about a second of CPU (docs/benchmarks.md, *Cold start*). Where
 * `GANTRY_VALIDATOR_CACHE` names a directory (the local runner sets it), the gateway's start writes
 * every compiled validator there once per catalogue, as Ajv's standalone code in a file named after
 * a digest of what was compiled; later starts of any process load that file instead of compiling.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormatsModule from "ajv-formats";
import { abilityById, catalogue } from "@gantry/proto/catalogue";
import { GantryError, type ErrorDetail } from "./errors.ts";
import * as lengthFirstModule from "./length-first.ts";
import { addLengthKeywords, asLengthErrors, LENGTH_FIRST_MODULE, lengthFirst } from "./length-first.ts";

// ajv-formats is CommonJS; under ESM its callable is the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
// Also CommonJS: the function is the module itself.
const toStandalone = standaloneCode as unknown as typeof standaloneCode.default;

const INPUT_OPTIONS = { strict: true, allErrors: true, useDefaults: true, allowUnionTypes: true } as const;

export function createAjv(options: { source?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...INPUT_OPTIONS, code: { source: options.source === true } });
  addFormats(ajv);
  return addLengthKeywords(ajv);
}

const CACHE_PREFIX = "input-validators-";

/** The directory of cached validators, when this process has one. */
export const VALIDATOR_CACHE_ENV = "GANTRY_VALIDATOR_CACHE";

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();
/** The cached validators of this catalogue (loaded once), or null without a cache or file. */
let fromCache: Record<string, ValidateFunction> | null | undefined;

/** The compiled validator of one ability (compiled on first use), or undefined for an unknown id. */
function validatorOf(abilityId: string): ValidateFunction | undefined {
  let validate = validators.get(abilityId);
  if (!validate) {
    const def = abilityById.get(abilityId);
    if (!def) return undefined;
    validate = cachedValidators()?.[abilityId];
    if (!validate) {
      ajv ??= createAjv();
      validate = ajv.compile(lengthFirst(def.input));
    }
    validators.set(abilityId, validate);
  }
  return validate;
}

/**
 * What the cached file's name is made from: every schema as compiled, the options, the versions of
 * Ajv and its formats, and the length keywords' source file, so a change to any of them is a new file.
 */
function cacheFile(dir: string): string {
  const require = createRequire(import.meta.url);
  const versions = ["ajv/package.json", "ajv-formats/package.json"].map(
    (p) => (require(p) as { version: string }).version,
  );
  const hash = createHash("sha256").update(JSON.stringify([versions, INPUT_OPTIONS]));
  hash.update(readFileSync(new URL("./length-first.ts", import.meta.url)));
  for (const a of catalogue) hash.update(JSON.stringify([a.id, lengthFirst(a.input)]));
  return join(dir, `${CACHE_PREFIX}${hash.digest("hex").slice(0, 24)}.js`);
}

/** Runs cached standalone code: `require` answers the length keywords' module and what Ajv's code asks for. */
function loadStandalone(code: string): Record<string, ValidateFunction> {
  const nodeRequire = createRequire(import.meta.url);
  const require = (id: string) => (id === LENGTH_FIRST_MODULE ? lengthFirstModule : nodeRequire(id));
  const exports: Record<string, ValidateFunction> = {};
  new Function("require", "exports", code)(require, exports);
  return exports;
}

function cachedValidators(): Record<string, ValidateFunction> | null {
  if (fromCache !== undefined) return fromCache;
  fromCache = null;
  const dir = process.env[VALIDATOR_CACHE_ENV];
  if (!dir) return null;
  try {
    fromCache = loadStandalone(readFileSync(cacheFile(dir), "utf8"));
  } catch {
    // Not written yet (or unreadable): compiled here, as without a cache.
  }
  return fromCache;
}

/** Compiles every input schema and writes them to the cache as one standalone module; returns them. */
function writeCache(dir: string): Record<string, ValidateFunction> {
  const generator = createAjv({ source: true });
  const refs: Record<string, string> = {};
  for (const a of catalogue) {
    generator.addSchema(lengthFirst(a.input), a.id);
    refs[a.id] = a.id;
  }
  const code = toStandalone(generator, refs);
  const file = cacheFile(dir);
  mkdirSync(dir, { recursive: true });
  // Written whole under another name, then renamed: a process starting beside never reads half a file.
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, code);
  renameSync(tmp, file);
  // One file per catalogue: those of earlier catalogues would only pile up (about 1 MiB each).
  for (const name of readdirSync(dir))
    if (name.startsWith(CACHE_PREFIX) && name.endsWith(".js") && join(dir, name) !== file)
      rmSync(join(dir, name), { force: true });
  return loadStandalone(code);
}

/**
 * Compiles schemas now so no call pays for it: every ability's (the gateway) or just the ones a
 * service owns. With a validator cache, the whole catalogue's are loaded from it instead, and the
 * gateway (which asks for all) writes it when this catalogue has none yet.
 */
export function warmValidators(abilityIds: readonly string[] = catalogue.map((a) => a.id)): void {
  const dir = process.env[VALIDATOR_CACHE_ENV];
  if (dir && !cachedValidators() && abilityIds.length === catalogue.length) {
    try {
      fromCache = writeCache(dir);
    } catch {
      // A read-only directory: compiled below, as without a cache.
    }
  }
  for (const id of abilityIds) validatorOf(id);
}

/**
 * What each pattern of the catalogue accepts, in words: a message never shows a raw regex (an API
 * user should not have to read one). kit/src/validation.test.ts checks that every pattern in the
 * catalogue's input schemas is here; an unknown pattern falls back to a sentence without it.
 */
export const PATTERN_WORDS: Readonly<Record<string, string>> = {
  "^[^\\r\\n]+$": "must be a single line (no line breaks)",
  "^https?://": "must be a URL starting with http:// or https://",
  "^/": "must be a path starting with /",
  "^[A-Za-z0-9][A-Za-z0-9_.:-]*$":
    "must be an id: letters, digits, _ . : or -, starting with a letter or digit (as Gantry returned it)",
  "^[A-Za-z0-9][A-Za-z0-9_.@-]*$": "must be letters, digits, _ . @ or -, starting with a letter or digit",
  "^[A-Za-z0-9][A-Za-z0-9._-]*$": "must be letters, digits, _ . or -, starting with a letter or digit",
  "^[A-Za-z0-9][A-Za-z0-9_.-]*$": "must be letters, digits, _ . or -, starting with a letter or digit",
  "^[A-Za-z0-9][A-Za-z0-9_-]*$": "must be letters, digits, _ or -, starting with a letter or digit",
  "^[A-Za-z0-9][A-Za-z0-9 ._-]*$": "must be letters, digits, spaces, _ . or -, starting with a letter or digit",
  "^[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*$":
    "must be a tenant name (letters, digits, _ . or -), with / between nested tenants (acme/shop1)",
  "^[a-z][a-z0-9_-]*$": "must be lowercase letters, digits, _ or -, starting with a letter",
  "^[a-z0-9][a-z0-9_-]*$": "must be lowercase letters, digits, _ or -, starting with a letter or digit",
  "^[a-z0-9]+(?:-[a-z0-9]+)*$": "must be a lowercase slug: letters and digits in words joined by single hyphens",
  "^(?:\\*|[a-z0-9]+(?:-[a-z0-9]+)*)$":
    "must be * (every one) or a lowercase slug: letters and digits in words joined by single hyphens",
  "^(?:\\*|[A-Za-z0-9][A-Za-z0-9._-]*)$":
    "must be * (every one) or letters, digits, _ . or -, starting with a letter or digit",
  "^\\+?[0-9][0-9 ().-]*[0-9]$": "must be a phone number: digits, optionally with +, spaces, (), . or -",
  "^\\+[1-9][0-9]{6,14}$": "must be a phone number in international form: + and 7 to 15 digits, e.g. +2348031234567",
  "^(?:\\+[1-9][0-9]{6,14}|[A-Za-z0-9 ]{1,11})$":
    "must be a phone number in international form (+ and 7 to 15 digits) or a sender name of up to 11 letters, digits or spaces",
  "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$":
    "must be a field name: up to 64 letters, digits, _ . or -, starting with a letter or _",
  "^[A-Za-z_][A-Za-z0-9_]{0,63}$": "must be a name of up to 64 letters, digits or _, starting with a letter or _",
  "^D-[0-9]{3,}$": "must be a decision id: D- and at least three digits (D-001)",
  "^#[0-9A-Fa-f]{6}$": "must be a colour as # and six hex digits (#1a2b3c)",
  "^[A-Z]{3}$": "must be a three-letter uppercase code (ISO 4217 currency, e.g. USD)",
  "^[A-Z]{2}$": "must be a two-letter uppercase country code (ISO 3166-1, e.g. NG)",
  "^[A-Za-z0-9]+$": "must be letters and digits only",
  "^[A-Za-z0-9-]+$": "must be letters, digits or -",
  "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*$": "must be words of letters, digits, _ or - joined by single dots",
  "^[a-z]{2,3}(?:-[A-Z]{2})?$":
    "must be a language tag: 2 or 3 lowercase letters, optionally - and a region (en, pt-BR)",
  "^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*(?:\\.\\*)?)$":
    "must be a scope: *, an ability id (contact.get) or a prefix ending in .* (contact.*)",
  "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$": "must be an ability id: lowercase words joined by dots (contact.get)",
  "^key_[A-Za-z0-9_-]+$": "must be a key id (key_…, as key.list returns it; not the secret gk_… key)",
  "^[^<>\\r\\n]{1,100} <[^<>\\s@]+@[^<>\\s@.]+(?:\\.[^<>\\s@.]+)+>$":
    "must be a name and an email address in angle brackets: Ada Obi <ada@example.com>",
  "^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$":
    "must be a domain name (example.com), without scheme or path",
};

const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: "must be an email address",
  uri: "must be a URL starting with http:// or https://",
  date: "must be a date as YYYY-MM-DD",
  "date-time": "must be a date and time in RFC 3339 form, e.g. 2026-05-01T12:00:00Z",
};

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  null: "null",
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return `is required (missing "${p.missingProperty}")`;
    case "additionalProperties":
      return `has unknown field "${p.additionalProperty}"; remove it or check its spelling`;
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case "type": {
      const types = String(p.type).split(",");
      return `must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(" or ")}`;
    }
    case "minLength":
      return p.limit === 1 ? "must not be empty" : `must be at least ${plural(Number(p.limit), "character")} long`;
    case "maxLength":
      return `must be at most ${plural(Number(p.limit), "character")} long`;
    case "pattern":
      return PATTERN_WORDS[String(p.pattern)] ?? "is not in the form this field accepts (see its description)";
    case "format":
      return FORMAT_WORDS[String(p.format)] ?? `must be in ${String(p.format)} format`;
    case "minimum":
      return `must be at least ${p.limit}`;
    case "maximum":
      return `must be at most ${p.limit}`;
    case "exclusiveMinimum":
      return `must be greater than ${p.limit}`;
    case "exclusiveMaximum":
      return `must be less than ${p.limit}`;
    case "minItems":
      return `must have at least ${plural(Number(p.limit), "item")}`;
    case "maxItems":
      return `must have at most ${plural(Number(p.limit), "item")}`;
    case "uniqueItems":
      return `must not hold duplicates (items ${p.j} and ${p.i} are the same)`;
    case "minProperties":
      return `must have at least ${plural(Number(p.limit), "field")}`;
    case "maxProperties":
      return `must have at most ${plural(Number(p.limit), "field")}`;
    case "dependentRequired":
      return `must have "${p.missingProperty}" when it has "${p.property}"`;
    case "propertyNames":
      return `has a field name that is not allowed ("${p.propertyName}")`;
    case "anyOf":
    case "oneOf":
      return "does not match any of the accepted shapes (see the ability's input schema)";
    default:
      return e.message ?? "is invalid";
  }
}

/**
 * Which error speaks for a field when several fail at one place: the most basic problem first
 * (missing, unknown, wrong type, empty), then what the value must look like, then its bounds;
 * a failed `anyOf`/`oneOf` last, since a branch's own error says more. `name: ""` fails both
 * minLength and the single-line pattern; the user gets one message: "must not be empty".
 */
const PRIORITY = [
  "required",
  "additionalProperties",
  "type",
  "minLength",
  "const",
  "enum",
  "pattern",
  "format",
  "maxLength",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "propertyNames",
];
const rank = (keyword: string) => {
  const i = PRIORITY.indexOf(keyword);
  return i === -1 ? PRIORITY.length : i;
};

/** `…/anyOf/2` or `…/oneOf/0` when `path` ends in a union branch, else null. */
function unionBranch(path: string): { union: string; branch: string } | null {
  const cut = path.lastIndexOf("/");
  const union = path.slice(0, cut);
  const n = path.slice(cut + 1);
  if (n === "" || Number.isNaN(Number(n)) || !(union.endsWith("/anyOf") || union.endsWith("/oneOf"))) return null;
  return { union, branch: path };
}

/**
 * The errors of union branches the value was plainly not meant for: a branch whose discriminator
 * (`channel: "email"`) or root type (a list where a string was given) does not match is left out
 * when a sibling branch matched those, so an SMS with a bad number hears about its number, not that
 * an email would need a subject. When no branch matched, every error stays.
 */
function withoutUnmeantBranches(errors: ErrorObject[]): ErrorObject[] {
  const unmeant = new Set<string>();
  const tried = new Map<string, Set<string>>();
  for (const e of errors) {
    const parts = e.schemaPath.split("/");
    for (let i = parts.length - 1; i > 0; i--) {
      const b = unionBranch(parts.slice(0, i + 1).join("/"));
      if (!b) continue;
      const set = tried.get(b.union) ?? new Set<string>();
      tried.set(b.union, set.add(b.branch));
      const rest = parts.slice(i + 1);
      const discriminator = e.keyword === "const" && rest.length === 3 && rest[0] === "properties";
      if ((e.keyword === "type" && rest.length === 1) || discriminator) unmeant.add(b.branch);
    }
  }
  const dropped = new Set<string>();
  for (const branches of tried.values())
    if ([...branches].some((b) => !unmeant.has(b))) for (const b of branches) if (unmeant.has(b)) dropped.add(b);
  if (dropped.size === 0) return errors;
  const pruned = new Set([...tried.keys()].filter((u) => [...(tried.get(u) ?? [])].some((b) => dropped.has(b))));
  return errors.filter((e) => {
    if ((e.keyword === "anyOf" || e.keyword === "oneOf") && pruned.has(e.schemaPath)) return false;
    const parts = e.schemaPath.split("/");
    for (let i = parts.length - 1; i > 0; i--) if (dropped.has(parts.slice(0, i + 1).join("/"))) return false;
    return true;
  });
}

/**
 * One detail per field (JSON Pointer), in words, in the order Ajv found the fields: `code` is the
 * failing keyword and `params` its parameters. Several `type` failures at one place (the branches
 * of a nullable or union field) become one "must be a string or null".
 */
export function toDetails(errors: ErrorObject[], root = "/input"): ErrorDetail[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of withoutUnmeantBranches(asLengthErrors(errors))) {
    let path = root + e.instancePath;
    if (e.keyword === "required") path += `/${e.params.missingProperty}`;
    if (e.keyword === "additionalProperties") path += `/${e.params.additionalProperty}`;
    byPath.set(path, [...(byPath.get(path) ?? []), e]);
  }
  return [...byPath].map(([path, list]) => {
    const types = [...new Set(list.filter((e) => e.keyword === "type").map((e) => String(e.params.type)))];
    const chosen = [...list].sort((a, b) => rank(a.keyword) - rank(b.keyword))[0];
    const e =
      chosen.keyword === "type" && types.length > 1
        ? { ...chosen, params: { ...chosen.params, type: types.join(",") } }
        : chosen;
    // Inside propertyNames Ajv reports the failing name beside the rule: say which name.
    const name = (e as ErrorObject & { propertyName?: string }).propertyName;
    const words = name === undefined ? describe(e) : `has field name "${name}", which ${describe(e)}`;
    return { path, message: `${path} ${words}`, code: e.keyword, params: e.params };
  });
}

/**
 * Validates (and defaults, in place) the input of an ability. Throws `validation_failed` with every
 * schema error as `details`.
 */
export function validateInput(abilityId: string, input: unknown): void {
  const validate = validatorOf(abilityId);
  if (!validate) throw new GantryError("unknown_ability", `No ability has the id "${abilityId}".`);
  if (!validate(input)) {
    const details = toDetails(validate.errors ?? []);
    throw new GantryError(
      "validation_failed",
      `Input does not match the schema of ${abilityId}: ${details[0]?.message ?? "invalid"}${details.length > 1 ? ` (and ${details.length - 1} more)` : ""}.`,
      {
        details,
      },
    );
  }
}

const resultValidators = new Map<string, ValidateFunction | null>();

/**
 * The result contract, checked where tests can see it (the gateway's dispatcher and the one-service
 * harness, when `GANTRY_CHECK_RESULTS=1`): a result that does not match its ability's `output`
 * schema is a fault of the service, answered as 500 `internal` so the test that made the call fails,
 * with every mismatch in the log. Abilities without an output schema pass.
 */
export function checkResult(abilityId: string, result: unknown): void {
  let validate = resultValidators.get(abilityId);
  if (validate === undefined) {
    const output = abilityById.get(abilityId)?.output;
    ajv ??= createAjv();
    validate = output ? ajv.compile(output) : null;
    resultValidators.set(abilityId, validate);
  }
  if (validate && !validate(result)) {
    const details = toDetails(validate.errors ?? [], "/result");
    throw new GantryError("internal", `The result of ${abilityId} does not match its output schema.`, {
      details,
      cause: new Error(`${abilityId} result mismatch: ${details.map((d) => d.message).join("; ")}`),
    });
  }
}
