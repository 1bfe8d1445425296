/**
 * @module kit/validation
 * Input validation against the catalogue's JSON Schemas. Compiled once per process; every error is
 * reported (not only the first), each with a JSON Pointer to the offending field and a message that
 * says what would be accepted.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { abilityById, catalogue } from "@gantry/proto/catalogue";
import { GantryError, type ErrorDetail } from "./errors.ts";

// ajv-formats is CommonJS; under ESM its callable is the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, useDefaults: true, allowUnionTypes: true });
  addFormats(ajv);
  return ajv;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** The compiled validator of one ability (compiled on first use), or undefined for an unknown id. */
function validatorOf(abilityId: string): ValidateFunction | undefined {
  let validate = validators.get(abilityId);
  if (!validate) {
    const def = abilityById.get(abilityId);
    if (!def) return undefined;
    ajv ??= createAjv();
    validate = ajv.compile(def.input);
    validators.set(abilityId, validate);
  }
  return validate;
}

/**
 * Compiles schemas now so no call pays for it: every ability's (the gateway) or just the ones a
 * service owns — compiling all 79 takes about a second of CPU, too much for each of nine processes.
 */
export function warmValidators(abilityIds: readonly string[] = catalogue.map((a) => a.id)): void {
  for (const id of abilityIds) validatorOf(id);
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
