/**
 * @module catalogue/workspace
 * The tenant's working records: contacts, leads, tasks, workspace docs, events, workflows,
 * verticals and simulations, owned by the workspace service (spec §2.5, §4.3 contact.create,
 * task.create, event.emit, vertical.manifest_get, §6; issue 5). Every list is paginated with
 * `limit` (1..100, default 20) and `cursor`. Record ids are prefixed: contacts `ctc_`, leads `lead_`,
 * tasks `task_`, docs `doc_`, comments `cmt_`, events `evt_`, workflow runs `wfr_`, simulations `sim_`.
 */
import type { AbilityEntry } from "./types.ts";
import {
  array,
  constant,
  cursor,
  email,
  flag,
  freeObject,
  id,
  idempotencyKey,
  integer,
  limit,
  line,
  metadata,
  money,
  nullable,
  object,
  oneOfValues,
  phone,
  slug,
  text,
  typed,
  union,
} from "./schema.ts";
import {
  bool,
  enumOf,
  fields,
  int,
  json,
  list,
  metadataOut,
  nullableStr,
  nullableTimestamp,
  num,
  page,
  record,
  str,
  timestamp,
} from "./output.ts";

/** Task priorities (spec §2.5, §4.3 task.create). */
export const TASK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;
/** Task statuses (ours, issue 5). */
export const TASK_STATUSES = ["open", "in_progress", "blocked", "done", "cancelled"] as const;
/** Lead statuses (ours, issue 5): new → contacted → qualified → won | lost. */
export const LEAD_STATUSES = ["new", "contacted", "qualified", "won", "lost"] as const;
/** Workspace doc statuses (ours, issue 5). */
export const DOC_STATUSES = ["open", "closed"] as const;

/** Event names: dot-separated tokens of letters, digits, `_` and `-`; no wildcards (`*`, `>`). */
const EVENT_NAME_PATTERN = "^[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*$";
/** Workflow names are one NATS subject token: no dots. */
const WORKFLOW_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

function listQuery(what: string) {
  return text(`Case-insensitive search over ${what}.`, 200);
}

function docId() {
  return id("Workspace doc id returned by workspace.doc.create.");
}

/** One edit of workspace.doc.patch, anchored on exact text rather than offsets. */
function docOps() {
  const find = text("Exact text in the current version to anchor on; must occur exactly once.", 10_000);
  return array(
    "Edits applied in order to the current version; the patch fails as a whole if any anchor is missing or ambiguous.",
    union(
      [
        object(
          {
            op: constant("`replace`: replace the anchored text (an empty text deletes it).", "replace"),
            find,
            text: text("Replacement Markdown; empty to delete.", 500_000, { min: 0 }),
          },
          ["op", "find", "text"],
          { title: "replace", description: "Replace the anchored text." },
        ),
        object(
          {
            op: constant("`insert_after`: insert text right after the anchored text.", "insert_after"),
            find: text("Exact text in the current version to anchor on; must occur exactly once.", 10_000),
            text: text("Markdown to insert.", 500_000),
          },
          ["op", "find", "text"],
          { title: "insert_after", description: "Insert after the anchor." },
        ),
        object(
          {
            op: constant("`append`: add text at the end of the doc.", "append"),
            text: text("Markdown to append.", 500_000),
          },
          ["op", "text"],
          { title: "append", description: "Append to the end." },
        ),
      ],
      { type: "object", description: "One edit, selected by `op`." },
    ),
    100,
    1,
  );
}

// ── result shapes ─────────────────────────────────────────────────────────────────────────────
// Written once and reused by get/list/create/update (services/workspace/src/records.ts maps rows to
// these). Every record carries `tenant`, `vertical` (or null) and `created`/`updated` (RFC 3339, UTC).

/** Workflow run statuses (services/workspace/src/workflows/deliverer.ts). */
export const RUN_STATUSES = ["queued", "delivering", "delivered", "failed"] as const;

/** How a workflow run is delivered: to the tenant's endpoint, or only published on its subject. */
export const RUN_DELIVERIES = ["webhook", "subject"] as const;

/** Sizes of a simulation's synthetic data set. */
export const SIM_SIZES = ["small", "medium"] as const;
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

function ownerTenant(what: string) {
  return str(`Tenant that owns the ${what} (\`acme\`, or nested \`acme/shop1\`).`);
}

function recordVertical(what: string) {
  return nullableStr(`Vertical the ${what} belongs to (from the call's context.verticalId), or null.`);
}

function created(what: string) {
  return timestamp(`When the ${what} was created (RFC 3339, UTC).`);
}

function updated(what: string) {
  return timestamp(`When the ${what} last changed (RFC 3339, UTC).`);
}

const contact = () =>
  fields(
    {
      id: str("Contact id (`ctc_…`)."),
      tenant: ownerTenant("contact"),
      name: str("Person's or company's name, trimmed."),
      email: nullableStr("Email address (trimmed, domain lower-cased), or null."),
      phone: nullableStr("Phone number in E.164 form (`+2348031234567`), or null."),
      company: nullableStr("Company the person works for, or null."),
      metadata: metadataOut("Your key-value data about the contact; `{}` when there is none."),
      vertical: recordVertical("contact"),
      created: created("contact"),
      updated: updated("contact"),
    },
    [],
    { description: "A contact (person or company)." },
  );

const leadEvent = () =>
  fields(
    {
      from: nullable(enumOf("", LEAD_STATUSES), "Status before the move; null for the creation."),
      to: enumOf("Status after the move.", LEAD_STATUSES),
      reason: nullableStr("Reason given with the move, or null."),
      keyId: nullableStr("Id of the API key that made the move, or null."),
      requestId: nullableStr("Request id of the call that made the move, or null."),
      at: timestamp("When the move happened (RFC 3339, UTC)."),
    },
    [],
    { description: "One status change of a lead (the creation included)." },
  );

function leadFields() {
  return {
    id: str("Lead id (`lead_…`)."),
    tenant: ownerTenant("lead"),
    name: str("Lead name (the opportunity or the person)."),
    status: enumOf("Current status: new → contacted → qualified → won | lost.", LEAD_STATUSES),
    contactId: nullableStr("Contact the lead is about (`ctc_…`), or null."),
    email: nullableStr("Lead's email address (the contact's when not given), or null."),
    company: nullableStr("Lead's company (the contact's when not given), or null."),
    source: nullableStr("Where the lead came from, or null."),
    value: nullable(
      fields({
        amount: num("Amount in major units of the currency (e.g. 12000.5)."),
        currency: str("ISO 4217 currency code, upper case."),
        minor: int("The same amount in integer minor units of the currency (e.g. cents), as stored."),
      }),
      "Estimated deal value, or null.",
    ),
    notes: nullableStr("Free-form notes, or null."),
    vertical: recordVertical("lead"),
    created: created("lead"),
    updated: updated("lead"),
    closed: nullableTimestamp("When the lead was won or lost (RFC 3339, UTC); null while open."),
  };
}

/** A lead with its history (get, create, update_status). */
const lead = () =>
  fields(
    {
      ...leadFields(),
      history: list("Every status change, oldest first; the first entry is the creation.", leadEvent()),
    },
    [],
    { description: "A sales lead with its status history." },
  );

/** A lead as lists show it: no history (lead.get has it). */
const leadItem = () => fields(leadFields(), [], { description: "A sales lead (without its history)." });

const taskEvent = () =>
  fields(
    {
      from: nullable(enumOf("", TASK_STATUSES), "Status before the change; null for the creation."),
      to: enumOf("Status after the change.", TASK_STATUSES),
      note: nullableStr("Note given with the change, or null."),
      keyId: nullableStr("Id of the API key that made the change, or null."),
      requestId: nullableStr("Request id of the call that made the change, or null."),
      at: timestamp("When the change happened (RFC 3339, UTC)."),
    },
    [],
    { description: "One status change of a task (the creation included)." },
  );

function taskFields() {
  return {
    id: str("Task id (`task_…`)."),
    tenant: ownerTenant("task"),
    title: str("What needs doing."),
    status: enumOf("Current status.", TASK_STATUSES),
    priority: enumOf("Priority.", TASK_PRIORITIES),
    assignedTo: nullableStr("User or agent the task is assigned to, or null."),
    dueAt: nullableTimestamp("When the task is due (RFC 3339, UTC), or null when it has no due time."),
    overdue: bool("Past its due time and neither done nor cancelled, at the time of the call."),
    vertical: recordVertical("task"),
    created: created("task"),
    updated: updated("task"),
    closed: nullableTimestamp("When the task was done or cancelled (RFC 3339, UTC); null while not."),
  };
}

/** A task with its history (get, create, update_status). */
const task = () =>
  fields(
    {
      ...taskFields(),
      history: list("Every status change, oldest first; the first entry is the creation.", taskEvent()),
    },
    [],
    { description: "A task with its status history." },
  );

/** A task as lists show it: no history (task.get has it). */
const taskItem = () => fields(taskFields(), [], { description: "A task (without its history)." });

const comment = () =>
  fields(
    {
      id: str("Comment id (`cmt_…`)."),
      docId: str("Doc the comment is on (`doc_…`)."),
      text: str("The comment."),
      anchor: nullableStr("Exact passage of the doc the comment refers to, or null."),
      version: int("Version of the doc the comment was made on."),
      keyId: nullableStr("Id of the API key that commented, or null."),
      created: created("comment"),
    },
    [],
    { description: "A comment on a workspace doc." },
  );

function docFields() {
  return {
    id: str("Workspace doc id (`doc_…`)."),
    tenant: ownerTenant("doc"),
    title: str("Doc title."),
    version: int("Current version: 1 at creation, +1 on every patch."),
    status: enumOf("`open`, or `closed` (read-only).", DOC_STATUSES),
    length: int("Length of the content in characters (UTF-16 code units)."),
    vertical: recordVertical("doc"),
    created: created("doc"),
    updated: updated("doc"),
    closed: nullableTimestamp("When the doc was closed (RFC 3339, UTC); null while open."),
  };
}

const docContent = () => str("The Markdown content of the current version.");

/** A doc with content and comments (create, read, close). */
const doc = () =>
  fields(
    { ...docFields(), content: docContent(), comments: list("Comments on the doc, oldest first.", comment()) },
    [],
    { description: "A workspace doc with its content and comments." },
  );

/** A doc as lists show it: no content (only its length) and no comments. */
const docItem = () =>
  fields(docFields(), [], { description: "A workspace doc without its content (workspace.doc.read has it)." });

const simulation = () =>
  fields(
    {
      simId: str("Simulation id (`sim_…`)."),
      id: str("Simulation id again (the same as `simId`)."),
      tenant: str("The sandbox sub-tenant's full tenant id (`<tenant>/sim-…`) holding the synthetic records."),
      subTenant: str("The sandbox's sub-tenant name (`sim-…`): send it as `context.tenantId` to read the records."),
      vertical: str("Vertical whose nouns shaped the data."),
      seed: int("Seed the data was generated from (the given one, or the one drawn)."),
      size: enumOf("small: tens of records; medium: hundreds.", SIM_SIZES),
      counts: fields(
        {
          contacts: int("Contacts written."),
          leads: int("Leads written."),
          tasks: int("Tasks written."),
        },
        [],
        { description: "Number of records written into the sandbox, by kind." },
      ),
      created: created("simulation"),
      updated: updated("simulation"),
    },
    [],
    { description: "A simulation and its sandbox sub-tenant." },
  );

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
  // ── contacts ──────────────────────────────────────────────────────────────────────────────
  {
    id: "contact.create",
    summary: "Create a contact (person or company); an idempotencyKey makes retries return the same contact.",
    inputSource: "spec",
    input: object(
      {
        name: line("Person's or company's name.", 200),
        phone: phone("Phone number; normalised to E.164 (include the country code)."),
        email: email("Email address."),
        company: line("Company the person works for.", 200),
        metadata: metadata("Your key-value data about the contact."),
        idempotencyKey: idempotencyKey("the contact"),
      },
      ["name"],
    ),
    output: contact(),
    example: {
      name: "Ada Obi",
      phone: "+234 803 123 4567",
      email: "ada@northwind.example",
      company: "Northwind Studio",
      metadata: { source: "referral", vip: true },
      idempotencyKey: "signup-form-7f3a9c",
    },
  },
  {
    id: "contact.get",
    summary: "Get one contact of the tenant by id.",
    inputSource: "ours",
    input: object({ id: id("Contact id returned by contact.create.") }, ["id"]),
    output: contact(),
    example: { id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q" },
  },
  {
    id: "contact.list",
    summary: "List or search the tenant's contacts.",
    inputSource: "ours",
    input: object({ query: listQuery("name, email, company and phone"), limit: limit(), cursor: cursor() }),
    output: page("Contacts, newest first.", contact()),
    example: { query: "northwind", limit: 20 },
  },
  {
    id: "contact.update",
    summary: "Partially update a contact: only the given fields change; null clears a field; metadata is merged.",
    inputSource: "ours",
    input: object(
      {
        id: id("Contact id."),
        name: line("New name.", 200),
        phone: nullable(phone(""), "New phone number (normalised to E.164), or null to clear it."),
        email: nullable(email(""), "New email address, or null to clear it."),
        company: nullable(line("", 200), "New company, or null to clear it."),
        metadata: metadata("Keys to set, merged into the existing metadata; a key set to null is removed.", true),
      },
      ["id"],
      { minProperties: 2 },
    ),
    output: contact(),
    example: {
      id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q",
      company: "Northwind Studio Ltd",
      metadata: { vip: null, tier: "gold" },
    },
  },
  // ── leads ─────────────────────────────────────────────────────────────────────────────────
  {
    id: "lead.create",
    summary: "Create a sales lead (status new), optionally linked to a contact.",
    inputSource: "ours",
    input: object(
      {
        name: line("Lead name (the opportunity or the person).", 200),
        contactId: id("Contact the lead is about."),
        email: email("Lead's email address, when there is no contact yet."),
        company: line("Lead's company.", 200),
        source: line("Where the lead came from (e.g. website, referral, event).", 100),
        value: money("Estimated deal value."),
        notes: text("Free-form notes.", 20_000),
        idempotencyKey: idempotencyKey("the lead"),
      },
      ["name"],
    ),
    output: lead(),
    example: {
      name: "Contoso website redesign",
      contactId: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q",
      source: "referral",
      value: { amount: 12000, currency: "USD" },
      idempotencyKey: "lead-contoso-redesign",
    },
  },
  {
    id: "lead.get",
    summary: "Get one lead with its status history.",
    inputSource: "ours",
    input: object({ id: id("Lead id returned by lead.create.") }, ["id"]),
    output: lead(),
    example: { id: "lead_01J9ZE7F8G9H0J1K2M3N4P5Q6R" },
  },
  {
    id: "lead.list",
    summary: "List or search the tenant's leads, optionally by status.",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only leads in this status.", LEAD_STATUSES),
      query: listQuery("name, email, company and source"),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Leads, newest first (without history).", leadItem()),
    example: { status: "qualified" },
  },
  {
    id: "lead.update_status",
    summary:
      "Move a lead along new → contacted → qualified → won | lost (any open lead may be lost; won and lost are final).",
    inputSource: "ours",
    input: object(
      {
        id: id("Lead id."),
        status: oneOfValues("Target status. Illegal moves are refused (409) with the allowed next states.", [
          "contacted",
          "qualified",
          "won",
          "lost",
        ]),
        reason: text("Why; kept in the lead's history.", 1000),
      },
      ["id", "status"],
    ),
    output: lead(),
    example: { id: "lead_01J9ZE7F8G9H0J1K2M3N4P5Q6R", status: "qualified", reason: "Budget confirmed on call." },
  },
  // ── tasks ─────────────────────────────────────────────────────────────────────────────────
  {
    id: "task.create",
    summary: "Create a task for a human or agent; an idempotencyKey makes retries safe.",
    inputSource: "spec",
    input: object(
      {
        title: line("What needs doing.", 200),
        assignedTo: text("Who does it: a user or agent id or name.", 128),
        dueInHours: typed<number>({
          type: "number",
          description: "Due this many hours from now (stored as an absolute due time).",
          exclusiveMinimum: 0,
          maximum: 17_520,
        }),
        priority: oneOfValues("Priority.", TASK_PRIORITIES, "medium"),
        vertical: slug("Vertical the task belongs to."),
        idempotencyKey: idempotencyKey("the task"),
      },
      ["title"],
    ),
    output: task(),
    example: {
      title: "Call Contoso about the redesign quote",
      assignedTo: "ada",
      dueInHours: 24,
      priority: "high",
      idempotencyKey: "task-call-contoso-1",
    },
  },
  {
    id: "task.get",
    summary: "Get one task by id.",
    inputSource: "ours",
    input: object({ id: id("Task id returned by task.create.") }, ["id"]),
    output: task(),
    example: { id: "task_01J9ZF8G9H0J1K2M3N4P5Q6R7S" },
  },
  {
    id: "task.list",
    summary: "List the tenant's tasks with filters (status, assignee, priority, overdue).",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only tasks in this status.", TASK_STATUSES),
      assignedTo: text("Only tasks assigned to this user or agent.", 128),
      priority: oneOfValues("Only tasks of this priority.", TASK_PRIORITIES),
      overdue: flag(
        "true: only tasks past their due time and not done or cancelled; false: only tasks that are not overdue.",
      ),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Tasks, newest first (without history).", taskItem()),
    example: { assignedTo: "ada", overdue: true },
  },
  {
    id: "task.update_status",
    summary:
      "Change a task's status among open, in_progress, blocked, done, cancelled (done and cancelled only reopen to open).",
    inputSource: "ours",
    input: object(
      {
        id: id("Task id."),
        status: oneOfValues("Target status.", TASK_STATUSES),
        note: text("Note kept in the task's history.", 1000),
      },
      ["id", "status"],
    ),
    output: task(),
    example: { id: "task_01J9ZF8G9H0J1K2M3N4P5Q6R7S", status: "done", note: "Quote sent." },
  },
  // ── workspace docs ────────────────────────────────────────────────────────────────────────
  {
    id: "workspace.doc.close",
    summary: "Close a workspace doc; it becomes read-only (closing a closed doc returns it unchanged).",
    inputSource: "ours",
    input: object({ id: docId() }, ["id"]),
    output: doc(),
    example: { id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T" },
  },
  {
    id: "workspace.doc.comment",
    summary: "Comment on a workspace doc, optionally anchored on a passage.",
    inputSource: "ours",
    input: object(
      {
        id: docId(),
        text: text("The comment.", 10_000),
        anchor: text("Exact passage of the doc the comment refers to.", 1000),
      },
      ["id", "text"],
    ),
    output: comment(),
    example: {
      id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T",
      text: "Can we commit to this date?",
      anchor: "Live before 1 June",
    },
  },
  {
    id: "workspace.doc.create",
    summary: "Create a Markdown workspace doc (version 1, open).",
    inputSource: "ours",
    input: object(
      {
        title: line("Doc title.", 200),
        content: text("Initial Markdown content; may be empty.", 500_000, { min: 0 }),
        idempotencyKey: idempotencyKey("the doc"),
      },
      ["title"],
    ),
    output: doc(),
    example: { title: "Booking launch notes", content: "# Booking launch\n\n- Live before 1 June\n" },
  },
  {
    id: "workspace.doc.list",
    summary: "List or search the tenant's workspace docs.",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only docs in this status.", DOC_STATUSES),
      query: listQuery("titles and content"),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Docs, newest first (without content).", docItem()),
    example: { status: "open", query: "launch" },
  },
  {
    id: "workspace.doc.patch",
    summary:
      "Edit a workspace doc with optimistic concurrency: replace its content or apply anchored edits to baseVersion.",
    inputSource: "ours",
    input: union(
      [
        object(
          {
            id: docId(),
            baseVersion: integer(
              "The version you edited (from workspace.doc.read or the last patch).",
              1,
              2_147_483_647,
            ),
            content: text("The new full Markdown content; may be empty.", 500_000, { min: 0 }),
          },
          ["id", "baseVersion", "content"],
          { title: "replace content", description: "Replace the whole content." },
        ),
        object(
          {
            id: docId(),
            baseVersion: integer(
              "The version you edited (from workspace.doc.read or the last patch).",
              1,
              2_147_483_647,
            ),
            ops: docOps(),
          },
          ["id", "baseVersion", "ops"],
          { title: "edits", description: "Apply anchored edits in order." },
        ),
      ],
      {
        type: "object",
        description:
          "Either `content` (replace the whole doc) or `ops` (anchored edits), never both. A stale baseVersion is refused (409) with the current version.",
      },
    ),
    output: fields({ ...docFields(), content: docContent() }, [], {
      description: "The doc as patched, at its new version, with its content (comments: workspace.doc.read).",
    }),
    example: {
      id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T",
      baseVersion: 3,
      ops: [
        { op: "replace", find: "Live before 1 June", text: "Live before 15 June" },
        { op: "append", text: "\n- Deposit payment via payment.initiate\n" },
      ],
    },
  },
  {
    id: "workspace.doc.read",
    summary: "Read a workspace doc with its version, status and comments.",
    inputSource: "ours",
    input: object({ id: docId() }, ["id"]),
    output: doc(),
    example: { id: "doc_01J9ZG9H0J1K2M3N4P5Q6R7S8T" },
  },
  // ── events and workflows ──────────────────────────────────────────────────────────────────
  {
    id: "event.emit",
    summary: "Emit a named substrate event with an optional payload, durably, for other systems to react to.",
    inputSource: "spec",
    input: object(
      {
        event: text(
          "Event name: dot-separated tokens of letters, digits, _ and - (no wildcards), e.g. `booking.confirmed`.",
          128,
          { pattern: EVENT_NAME_PATTERN },
        ),
        payload: freeObject(
          "Event data (JSON object). At most 64 KiB serialized by default (the service's EVENT_MAX_PAYLOAD_BYTES); larger payloads are refused with 413.",
        ),
      },
      ["event"],
    ),
    output: fields(
      {
        id: str("Event id (`evt_…`); also the JetStream message id, so a retried publish is stored once."),
        subject: str("NATS subject the event was published on (`events.<tenant token>.<event>`)."),
        sequence: int("Sequence number of the event in the stream."),
        stream: str("JetStream stream that stored the event (`EVENTS`)."),
        emitted: timestamp("When the event was emitted (RFC 3339, UTC); also in the published envelope."),
      },
      [],
      { description: "Where the event was stored." },
    ),
    example: { event: "booking.confirmed", payload: { bookingId: "bk_1042", startsAt: "2026-06-03T09:30:00Z" } },
  },
  {
    id: "workflow.trigger",
    summary: "Trigger a named workflow run: queued, published durably and delivered to the tenant's workflow endpoint.",
    inputSource: "ours",
    input: object(
      {
        workflow: text("Workflow name (letters, digits, _ and -; no dots).", 64, { pattern: WORKFLOW_NAME_PATTERN }),
        input: freeObject("Input handed to the workflow."),
        idempotencyKey: idempotencyKey("the run"),
      },
      ["workflow"],
    ),
    output: fields(
      {
        runId: str("Workflow run id (`wfr_…`)."),
        status: enumOf(
          "Run status: `queued` when triggered; a replay returns the run as it is now (delivering, delivered, failed).",
          RUN_STATUSES,
        ),
        workflow: str("Workflow name."),
        subject: str("NATS subject the trigger was published on (`workflows.<tenant token>.<workflow>.triggered`)."),
        delivery: enumOf(
          "`webhook`: delivered to the tenant's workflow endpoint; `subject`: only published on the subject.",
          RUN_DELIVERIES,
        ),
        vertical: recordVertical("run"),
        created: created("run"),
      },
      [],
      { description: "The workflow run." },
    ),
    example: {
      workflow: "send-booking-reminders",
      input: { day: "2026-06-03" },
      idempotencyKey: "reminders-2026-06-03",
    },
  },
  // ── verticals and simulations ─────────────────────────────────────────────────────────────
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
  {
    id: "sim.generate",
    summary: "Generate deterministic synthetic records for a vertical into a sandbox sub-tenant.",
    inputSource: "ours",
    input: object(
      {
        vertical: slug("Vertical whose nouns shape the data (from vertical.list)."),
        seed: integer(
          "Seed; the same seed, vertical and size give the same data. Random when omitted (and returned).",
          0,
          2_147_483_647,
        ),
        size: oneOfValues("small: tens of records; medium: hundreds.", SIM_SIZES, "small"),
        idempotencyKey: idempotencyKey("the simulation"),
      },
      ["vertical"],
    ),
    output: simulation(),
    example: { vertical: "clinic", seed: 42, size: "small" },
  },
  {
    id: "sim.list",
    summary: "List the tenant's simulations and their sandbox sub-tenants.",
    inputSource: "ours",
    input: object({ vertical: slug("Only simulations of this vertical."), limit: limit(), cursor: cursor() }),
    output: page("Simulations, newest first.", simulation()),
    example: { vertical: "clinic" },
  },
] as const satisfies readonly AbilityEntry[];
