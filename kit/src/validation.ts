/**
 * @module kit/validation
 * Input validation against the catalogue's JSON Schemas. Compiled once per process; every error is
 * reported (not only the first), each with a JSON Pointer to the offending field and a message that
 * says what would be accepted.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { catalogue } from "@gantry/proto/catalogue";
import { GantryError, type ErrorDetail } from "./errors.ts";

// ajv-formats is CommonJS; under ESM its callable is the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, useDefaults: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

let validators: Map<string, ValidateFunction> | undefined;

/** Compiles every schema now, so the first call of each ability does not pay for it (~1 s in all). */
export function warmValidators(): void {
  compiled();
}

function compiled(): Map<string, ValidateFunction> {
  if (!validators) {
    const ajv = createAjv();
    validators = new Map(catalogue.map((a) => [a.id, ajv.compile(a.input)]));
  }
  return validators;
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case "required":
      return `is required (missing "${e.params.missingProperty}")`;
    case "additionalProperties":
      return `has unknown field "${e.params.additionalProperty}"; remove it or check its spelling`;
    case "enum":
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `must be ${JSON.stringify(e.params.allowedValue)}`;
    default:
      return e.message ?? "is invalid";
  }
}

export function toDetails(errors: ErrorObject[], root = "/input"): ErrorDetail[] {
  return errors.map((e) => {
    let path = root + e.instancePath;
    if (e.keyword === "required") path += `/${e.params.missingProperty}`;
    if (e.keyword === "additionalProperties") path += `/${e.params.additionalProperty}`;
    return { path, message: `${path} ${describe(e)}`, code: e.keyword, params: e.params };
  });
}

/**
 * Validates (and defaults, in place) the input of an ability. Throws `validation_failed` with every
 * schema error as `details`.
 */
export function validateInput(abilityId: string, input: unknown): void {
  const validate = compiled().get(abilityId);
  if (!validate) throw new GantryError("unknown_ability", `No ability has the id "${abilityId}".`);
  if (!validate(input)) {
    const details = toDetails(validate.errors ?? []);
    throw new GantryError("validation_failed", `Input does not match the schema of ${abilityId}: ${details[0]?.message ?? "invalid"}${details.length > 1 ? ` (and ${details.length - 1} more)` : ""}.`, {
      details,
    });
  }
}
