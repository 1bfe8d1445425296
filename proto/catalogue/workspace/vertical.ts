/**
 * @module catalogue/workspace/vertical
 * The workspace service's abilities of the `vertical` area (Verticals: vertical manifests).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { constant, cursor, limit, object, oneOfValues, slug, union } from "../schema.ts";
import { bool, enumOf, fields, int, json, list, nullableStr, num, page, record, str } from "../output.ts";

/** Record kinds a vertical noun maps onto. */
export const VERTICAL_RECORDS = ["contact", "lead", "task", "doc"] as const;

/** Field types of a vertical noun field (the manifest lint, services/workspace/src/verticals/lint.ts, reads these). */
export const VERTICAL_FIELD_TYPES = [
  "text",
  "longtext",
  "number",
  "money",
  "date",
  "datetime",
  "phone",
  "email",
  "enum",
  "boolean",
] as const;

/** Capture types of a vertical (lint.ts). */
export const VERTICAL_CAPTURE_TYPES = ["form", "photo", "voice", "document", "signature", "barcode"] as const;

/** Methods of a vertical's host actions (lint.ts). */
export const VERTICAL_HOST_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const verticalSummary = () =>
  fields(
    {
      id: str("Vertical slug (the manifest's file name)."),
      name: nullableStr("Display name, or null when the manifest does not parse."),
      version: nullableStr("Manifest version (semver), or null when the manifest does not parse."),
      summary: nullableStr("One-line summary, or null when the manifest does not parse."),
      nouns: list("Ids of the nouns of its surface.", str("Noun id.")),
      status: enumOf("`ok`: the surface passes lint and is served; `invalid`: it is refused.", ["ok", "invalid"]),
      findings: int("Number of lint findings in the whole manifest (vertical.manifest_get names them)."),
    },
    [],
    { description: "A vertical this Gantry serves, linted as listed." },
  );

const strings = (description: string, item: string) => list(description, str(item));

const verticalSurface = () => {
  const nounField = fields(
    {
      id: str("Field id, unique in the noun."),
      label: str("Display label."),
      type: enumOf("Field type.", VERTICAL_FIELD_TYPES),
      maps: str("Column of the record it maps onto, or `metadata.<key>`."),
      required: bool("Whether the field must be filled in; present when the manifest says."),
      options: strings("Allowed values; present exactly when type is `enum`.", "An allowed value."),
      description: str("What the field is; present when the manifest gives one."),
    },
    ["required", "options", "description"],
    { description: "A field of a noun." },
  );
  const noun = fields(
    {
      id: str("Noun id (e.g. `patient`)."),
      label: str("Display label, singular."),
      plural: str("Display label, plural."),
      record: enumOf("Record kind the noun is stored as.", VERTICAL_RECORDS),
      fields: list("The noun's fields.", nounField),
      description: str("What the noun is; present when the manifest gives one."),
    },
    ["description"],
    { description: "A business noun of the vertical, stored as a workspace record." },
  );
  const screen = fields(
    {
      id: str("Screen id."),
      title: str("Screen title."),
      root: json(
        "Root node of the screen's generated UI: an object with `type` (stack, row, list, table, kanban, card, detail, metric, form, text, button) and that type's props; containers nest nodes in `children` or `item`, data nodes bind a `source` {ability, noun, input}.",
      ),
      description: str("What the screen is for; present when the manifest gives one."),
    },
    ["description"],
    { description: "A screen of the generated UI." },
  );
  const action = fields(
    {
      id: str("Action id."),
      label: str("Display label."),
      ability: str("Catalogue ability the action calls; present for ability actions (exactly one of ability, host)."),
      input: record(
        "Preset input of the ability (values may hold `{{capture.<field>}}` placeholders); present when given.",
        json("A preset input value."),
      ),
      host: fields(
        {
          method: enumOf("HTTP method.", VERTICAL_HOST_METHODS),
          path: str("Path on the host, starting with `/` (may hold `{id}` placeholders)."),
          guard: fields(
            {
              scopes: strings("Scopes the caller's key must grant; present when given.", "A scope."),
              confirm: bool("Whether the user must confirm first; present when given."),
              roles: strings("Roles the user must have; present when given.", "A role."),
            },
            ["scopes", "confirm", "roles"],
            { description: "What the host must check before running the endpoint (scopes and/or confirm)." },
          ),
          description: str("What the endpoint does; present when given."),
        },
        ["description"],
        { description: "A guarded endpoint of the host app; present for host actions (exactly one of ability, host)." },
      ),
      confirm: bool("Whether the UI asks for confirmation first; present when given."),
      description: str("What the action does; present when given."),
    },
    ["ability", "input", "host", "confirm", "description"],
    { description: "Something a user can do: call a catalogue ability or a guarded host endpoint." },
  );
  const capture = fields(
    {
      id: str("Capture id."),
      type: enumOf("What is captured.", VERTICAL_CAPTURE_TYPES),
      noun: str("Noun the capture fills in."),
      action: str("Action the capture submits to."),
      label: str("Display label; present when given."),
      fields: strings("Noun fields the capture collects; present when given.", "A field id of the noun."),
    },
    ["label", "fields"],
    { description: "A way to capture data (form, photo, voice, …) for a noun." },
  );
  const signal = fields(
    {
      id: str("Signal id."),
      event: str("Event name emitted with event.emit."),
      noun: str("Noun the event is about."),
      description: str("When the event is emitted; present when given."),
    },
    ["description"],
    { description: "An event the vertical emits." },
  );
  return fields(
    {
      nouns: list("The vertical's nouns.", noun),
      screens: list("The screens of its generated UI.", screen),
      actions: list("What users can do.", action),
      captures: list("Data captures; present when the manifest declares any.", capture),
      signals: list("Events the vertical emits; present when the manifest declares any.", signal),
    },
    ["captures", "signals"],
    { description: "The runtime surface: nouns, screens, actions, captures and signals." },
  );
};

const verticalProvisioning = () =>
  fields(
    {
      keys: list(
        "API key templates to provision (never raw keys); present when given.",
        fields(
          {
            name: str("Template name."),
            scopes: strings("Scopes of keys made from it.", "A scope."),
            subTenants: bool("Whether such keys may act for sub-tenants; present when given."),
            collections: strings("Memory collections such keys may use; present when given.", "A collection name."),
            description: str("What the key is for; present when given."),
          },
          ["subTenants", "collections", "description"],
          { description: "A key template." },
        ),
      ),
      workflows: list(
        "Workflows the vertical expects; present when given.",
        fields(
          {
            workflow: str("Workflow name for workflow.trigger."),
            description: str("What the workflow does."),
            schedule: str("Five-field cron expression it runs on; present when scheduled."),
            signal: str("Signal id that triggers it; present when given."),
          },
          ["schedule", "signal"],
          { description: "A workflow of the vertical." },
        ),
      ),
      collections: strings("Memory collections to create; present when given.", "A collection name."),
    },
    ["keys", "workflows", "collections"],
    { description: "What provisioning a tenant for the vertical sets up; present when the manifest has it." },
  );

const verticalSim = () =>
  record(
    "Vocabularies sim.generate draws from, by noun id; present when the manifest has them.",
    fields(
      {
        titles: strings("Record titles or names; present when given.", "A title."),
        companies: strings("Company names; present when given.", "A company."),
        sources: strings("Lead sources; present when given.", "A source."),
        assignees: strings("Task assignees; present when given.", "An assignee."),
        value: fields(
          {
            min: num("Smallest value, in major units."),
            max: num("Largest value, in major units."),
            currency: str("ISO 4217 currency code."),
          },
          [],
          { description: "Range of lead values; present when given." },
        ),
      },
      ["titles", "companies", "sources", "assignees", "value"],
      { description: "The vocabulary of one noun." },
    ),
  );

/** vertical.manifest_get: the surface (default) or the whole manifest. */
function manifestOutput() {
  const head = () => ({
    id: str("Vertical slug."),
    name: str("Display name."),
    version: str("Manifest version (semver)."),
    summary: str("One-line summary."),
  });
  return union(
    [
      fields(
        {
          ...head(),
          section: constant("`surface`.", "surface"),
          lint: fields({ ok: bool("Always true: a surface that fails lint is refused (409).") }, [], {
            description: "Lint outcome of the surface on this serve.",
          }),
          surface: verticalSurface(),
        },
        [],
        { title: "surface", description: "The runtime surface (section `surface`)." },
      ),
      fields(
        {
          section: constant("`all`.", "all"),
          lint: fields(
            {
              ok: bool("Always true: a manifest with any finding is refused (409)."),
              findings: int("Always 0."),
            },
            [],
            { description: "Lint outcome of the whole manifest on this serve." },
          ),
          ...head(),
          description: str("Longer description; present when the manifest gives one."),
          surface: verticalSurface(),
          provisioning: verticalProvisioning(),
          sim: verticalSim(),
        },
        ["description", "provisioning", "sim"],
        { title: "all", description: "The whole manifest (section `all`)." },
      ),
    ],
    { type: "object", description: "The manifest, linted on this serve; `section` tells which shape." },
  );
}

export const abilities = [
  {
    id: "vertical.list",
    summary: "List the verticals whose manifests this Gantry serves.",
    inputSource: "ours",
    input: object({ limit: limit(), cursor: cursor() }),
    output: page("Verticals, by id.", verticalSummary()),
    example: {},
  },
  {
    id: "vertical.manifest_get",
    summary: "Get a vertical's runtime surface manifest (lint-checked on every serve); `all` adds provisioning keys.",
    inputSource: "spec",
    input: object(
      {
        id: slug("Vertical slug (from vertical.list)."),
        section: oneOfValues(
          "`surface`: the runtime surface; `all`: the whole manifest including provisioning keys.",
          ["surface", "all"],
          "surface",
        ),
      },
      ["id"],
    ),
    output: manifestOutput(),
    example: { id: "clinic", section: "surface" },
  },
] as const satisfies readonly AbilityEntry[];
