/**
 * @module workspace/verticals/lint
 * The vertical manifest lint. Every serve (vertical.list, vertical.manifest_get, sim.generate) runs
 * it on the file as it is on disk; a manifest with findings in the section asked for is refused,
 * and every finding names its JSON Pointer path. The rules:
 *
 * - shape: `id` (= file name), `name`, `version` (semver), `summary`, `surface`, optional
 *   `provisioning` and `sim`; no unknown top-level or surface fields;
 * - nouns: unique ids; `record` is contact | lead | task | doc; fields have unique ids, a known type,
 *   `maps` onto a column of that record or `metadata.<key>`, and `options` exactly when type is enum;
 * - screens: nodes are of the closed set of generated-UI node types below, with exactly the props
 *   that type takes; `source` bindings call an existing read ability (`*.list`/`*.get`) with inputs
 *   that ability declares, for a declared noun whose record that ability serves; `{field: "noun.f"}`
 *   refers to a declared field of the bound noun; `action`/`capture` refer to declared ids;
 * - captures: known type, declared noun and fields, declared action;
 * - signals: event names valid for event.emit, declared noun;
 * - actions: exactly one of `ability` (a catalogue ability; `input` keys it declares) or `host`
 *   (a guarded host endpoint: method, relative path under `/`, and a guard with scopes and/or confirm);
 * - provisioning: key templates with well-formed scopes that grant at least one catalogue ability,
 *   never a raw key; workflows with valid names; collections with valid names;
 * - no secrets and no tenant data anywhere: no key-shaped or token-shaped strings, no private keys,
 *   no fields named like secrets or tenants, no email addresses outside the reserved example domains,
 *   no phone numbers.
 */
import { abilityById, isWellFormedScope, matchesScope, abilityIds } from "@gantry/proto/catalogue";
// Declared once, in the catalogue, whose result schema of vertical.manifest_get uses them too.
import {
  VERTICAL_CAPTURE_TYPES as CAPTURE_TYPES,
  VERTICAL_FIELD_TYPES as FIELD_TYPES,
  VERTICAL_HOST_METHODS as HOST_METHODS,
  VERTICAL_RECORDS as RECORDS,
} from "@gantry/proto/catalogue/workspace.ts";

export interface Finding {
  path: string;
  message: string;
  code: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** Columns a noun field may map onto, per record (besides `metadata.<key>`). */
const RECORD_COLUMNS: Record<string, string[]> = {
  contact: ["name", "email", "phone", "company"],
  lead: ["name", "email", "company", "source", "value", "notes", "status", "contactId"],
  task: ["title", "assignedTo", "dueAt", "priority", "status"],
  doc: ["title", "content", "status"],
};
/** The ability area that serves each record kind. */
const RECORD_AREA: Record<string, string> = { contact: "contact", lead: "lead", task: "task", doc: "workspace.doc" };

/** Generated-UI node types and their props: required, optional. `children`/`item` hold nodes. */
export const NODE_TYPES: Record<string, { required: string[]; optional: string[] }> = {
  stack: { required: ["children"], optional: ["title"] },
  row: { required: ["children"], optional: [] },
  list: { required: ["source", "item"], optional: ["title", "empty"] },
  table: { required: ["source", "columns"], optional: ["title"] },
  kanban: { required: ["source", "groupBy", "item"], optional: ["title"] },
  card: { required: ["title"], optional: ["subtitle", "meta", "badge", "action"] },
  detail: { required: ["source", "fields"], optional: ["title"] },
  metric: { required: ["label", "source"], optional: ["aggregate"] },
  form: { required: ["capture"], optional: ["title"] },
  text: { required: ["text"], optional: ["tone"] },
  button: { required: ["label", "action"], optional: ["variant"] },
};

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TOKEN = /^[a-z][a-zA-Z0-9_-]{0,63}$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
const EVENT = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
const WORKFLOW = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const COLLECTION = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const SECRET_VALUE_PATTERNS: Array<[RegExp, string]> = [
  [/\bgk_[0-9A-Za-z]{20,}/, "a Gantry API key"],
  [/\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{8,}/, "a payment provider secret key"],
  [/\bAKIA[0-9A-Z]{16}\b/, "an AWS access key id"],
  [/\bgh[pousr]_[0-9A-Za-z]{20,}/, "a GitHub token"],
  [/\bxox[abprs]-[0-9A-Za-z-]{10,}/, "a Slack token"],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, "a private key"],
  [/\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\./, "a JSON Web Token"],
  [/\bBearer\s+[0-9A-Za-z._~+/-]{16,}/i, "a bearer credential"],
  [/:\/\/[^/\s:@]+:[^/\s@]+@/, "a URL with embedded credentials"],
];
const SECRET_KEY_NAME =
  /^(?:password|passwd|secret|client_?secret|api_?key|apikey|access_?token|refresh_?token|token|private_?key|credentials?)$/i;
const TENANT_KEY_NAME = /^(?:tenant|tenant_?id|tenants)$/i;
const EMAIL = /[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)/;
const PHONE = /(?:^|[^\w])\+[1-9][0-9 ().-]{7,}[0-9]/;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

class Linter {
  findings: Finding[] = [];
  nouns = new Map<string, { record: string; fields: Set<string> }>();
  actions = new Set<string>();
  captures = new Set<string>();

  add(path: string, code: string, message: string): void {
    this.findings.push({ path, code, message: `${path || "/"}: ${message}` });
  }

  object(v: unknown, path: string, required: string[], optional: string[]): v is Obj {
    if (!isObj(v)) {
      this.add(path, "type", "must be an object");
      return false;
    }
    for (const k of required) if (!(k in v)) this.add(`${path}/${esc(k)}`, "required", "is required");
    for (const k of Object.keys(v))
      if (!required.includes(k) && !optional.includes(k))
        this.add(
          `${path}/${esc(k)}`,
          "unknown_field",
          `is not a field here (allowed: ${[...required, ...optional].join(", ")})`,
        );
    return true;
  }

  string(v: unknown, path: string, re?: RegExp, what?: string): v is string {
    if (typeof v !== "string" || v.length === 0) {
      this.add(path, "type", "must be a non-empty string");
      return false;
    }
    if (re && !re.test(v)) {
      this.add(path, "pattern", `must be ${what ?? `a string matching ${re}`}`);
      return false;
    }
    return true;
  }

  array(v: unknown, path: string, min = 0): v is Json[] {
    if (!Array.isArray(v)) {
      this.add(path, "type", "must be an array");
      return false;
    }
    if (v.length < min) this.add(path, "min_items", `must have at least ${min} item(s)`);
    return true;
  }

  uniqueIds(items: Json[], path: string, seen: Set<string>, re = TOKEN): void {
    items.forEach((item, i) => {
      if (!isObj(item)) return;
      const id = item.id;
      if (typeof id !== "string" || !re.test(id)) {
        this.add(`${path}/${i}/id`, "pattern", "must be a token: a lower-case letter, then letters, digits, _ or -");
        return;
      }
      if (seen.has(id)) this.add(`${path}/${i}/id`, "duplicate_id", `duplicates id "${id}"`);
      seen.add(id);
    });
  }

  // ── surface ────────────────────────────────────────────────────────────────────────────────
  nounsSection(v: unknown, path: string): void {
    if (!this.array(v, path, 1)) return;
    const ids = new Set<string>();
    this.uniqueIds(v, path, ids);
    v.forEach((n, i) => {
      const p = `${path}/${i}`;
      if (!this.object(n, p, ["id", "label", "plural", "record", "fields"], ["description"])) return;
      this.string(n.label, `${p}/label`);
      this.string(n.plural, `${p}/plural`);
      const record = n.record;
      if (typeof record !== "string" || !(RECORDS as readonly string[]).includes(record))
        this.add(`${p}/record`, "enum", `must be one of ${RECORDS.join(", ")}`);
      const fields = new Set<string>();
      if (this.array(n.fields, `${p}/fields`, 1)) {
        this.uniqueIds(n.fields, `${p}/fields`, fields);
        n.fields.forEach((f, j) => {
          this.field(f, `${p}/fields/${j}`, typeof record === "string" ? record : "");
        });
      }
      if (typeof n.id === "string") this.nouns.set(n.id, { record: String(record), fields });
    });
  }

  field(f: unknown, p: string, record: string): void {
    if (!this.object(f, p, ["id", "label", "type", "maps"], ["required", "options", "description"])) return;
    this.string(f.label, `${p}/label`);
    if (typeof f.type !== "string" || !(FIELD_TYPES as readonly string[]).includes(f.type))
      this.add(`${p}/type`, "enum", `must be one of ${FIELD_TYPES.join(", ")}`);
    if (f.type === "enum") {
      if (this.array(f.options, `${p}/options`, 1))
        f.options.forEach((o, k) => {
          this.string(o, `${p}/options/${k}`);
        });
    } else if ("options" in f) this.add(`${p}/options`, "unknown_field", "only enum fields take options");
    if ("required" in f && typeof f.required !== "boolean") this.add(`${p}/required`, "type", "must be a boolean");
    if (typeof f.maps === "string") {
      const ok =
        (RECORD_COLUMNS[record] ?? []).includes(f.maps) || /^metadata\.[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(f.maps);
      if (!ok)
        this.add(
          `${p}/maps`,
          "unknown_column",
          `must be one of ${[...(RECORD_COLUMNS[record] ?? []), "metadata.<key>"].join(", ")} for a ${record} noun`,
        );
    } else this.add(`${p}/maps`, "type", "must be a string");
  }

  actionsSection(v: unknown, path: string): void {
    if (!this.array(v, path, 1)) return;
    this.uniqueIds(v, path, this.actions);
    v.forEach((a, i) => {
      const p = `${path}/${i}`;
      if (!isObj(a)) {
        this.add(p, "type", "must be an object");
        return;
      }
      const hasAbility = "ability" in a;
      const hasHost = "host" in a;
      if (hasAbility === hasHost)
        this.add(
          p,
          "action_kind",
          "must have exactly one of ability (a catalogue ability) or host (a guarded host endpoint)",
        );
      if (!this.object(a, p, ["id", "label"], ["ability", "input", "host", "confirm", "description"])) return;
      this.string(a.label, `${p}/label`);
      if (hasAbility) this.abilityCall(a.ability, a.input, `${p}/ability`, `${p}/input`, false);
      else if ("input" in a) this.add(`${p}/input`, "unknown_field", "only ability actions take input");
      if (hasHost && this.object(a.host, `${p}/host`, ["method", "path", "guard"], ["description"])) {
        const h = a.host;
        if (typeof h.method !== "string" || !(HOST_METHODS as readonly string[]).includes(h.method))
          this.add(`${p}/host/method`, "enum", `must be one of ${HOST_METHODS.join(", ")}`);
        if (typeof h.path !== "string" || !/^\/(?!\/)[A-Za-z0-9._~/{}-]*$/.test(h.path))
          this.add(
            `${p}/host/path`,
            "host_path",
            "must be a relative path on the host starting with a single / (no scheme, host or query)",
          );
        if (this.object(h.guard, `${p}/host/guard`, [], ["scopes", "confirm", "roles"])) {
          const g = h.guard;
          if (!("scopes" in g) && g.confirm !== true)
            this.add(`${p}/host/guard`, "unguarded", "a host endpoint needs scopes and/or confirm: true");
          if ("scopes" in g) this.scopes(g.scopes, `${p}/host/guard/scopes`);
          if ("confirm" in g && typeof g.confirm !== "boolean")
            this.add(`${p}/host/guard/confirm`, "type", "must be a boolean");
          if ("roles" in g && this.array(g.roles, `${p}/host/guard/roles`, 1))
            g.roles.forEach((r, k) => {
              this.string(r, `${p}/host/guard/roles/${k}`, TOKEN, "a role token");
            });
        }
      }
    });
  }

  abilityCall(
    ability: unknown,
    input: unknown,
    abilityPath: string,
    inputPath: string,
    readOnly: boolean,
    noun?: string,
  ): void {
    if (typeof ability !== "string" || !abilityById.has(ability)) {
      this.add(abilityPath, "unknown_ability", `must be a catalogue ability id (got ${JSON.stringify(ability)})`);
      return;
    }
    if (readOnly && !/\.(list|get|read)$/.test(ability))
      this.add(
        abilityPath,
        "not_a_read",
        `a binding source must be a read ability (*.list, *.get, *.read), not ${ability}`,
      );
    if (noun !== undefined) {
      const n = this.nouns.get(noun);
      const area = n ? RECORD_AREA[n.record] : undefined;
      if (n && area && !ability.startsWith(`${area}.`))
        this.add(abilityPath, "noun_mismatch", `${ability} does not serve ${n.record} records (noun ${noun})`);
    }
    if (input === undefined) return;
    if (!isObj(input)) {
      this.add(inputPath, "type", "must be an object");
      return;
    }
    const schema = abilityById.get(ability)!.input as {
      properties?: Record<string, unknown>;
      oneOf?: Array<{ properties?: Record<string, unknown> }>;
    };
    const props = new Set([
      ...Object.keys(schema.properties ?? {}),
      ...(schema.oneOf ?? []).flatMap((s) => Object.keys(s.properties ?? {})),
    ]);
    for (const k of Object.keys(input))
      if (!props.has(k)) this.add(`${inputPath}/${esc(k)}`, "unknown_input", `${ability} has no input field ${k}`);
  }

  scopes(v: unknown, path: string): void {
    if (!this.array(v, path, 1)) return;
    v.forEach((s, i) => {
      if (typeof s !== "string" || !isWellFormedScope(s)) {
        this.add(`${path}/${i}`, "scope", "must be a well-formed scope (*, an ability id, or <prefix>.*)");
        return;
      }
      if (!abilityIds.some((id) => matchesScope(s, id)))
        this.add(`${path}/${i}`, "scope_empty", `${s} grants no catalogue ability`);
    });
  }

  source(v: unknown, path: string): string | undefined {
    if (!this.object(v, path, ["ability", "noun"], ["input"])) return undefined;
    const noun = typeof v.noun === "string" ? v.noun : undefined;
    if (!noun || !this.nouns.has(noun))
      this.add(`${path}/noun`, "unknown_noun", `must be a declared noun (${[...this.nouns.keys()].join(", ")})`);
    this.abilityCall(
      v.ability,
      v.input,
      `${path}/ability`,
      `${path}/input`,
      true,
      noun && this.nouns.has(noun) ? noun : undefined,
    );
    return noun && this.nouns.has(noun) ? noun : undefined;
  }

  fieldRef(v: unknown, path: string, noun: string | undefined, allowLiteral: boolean): void {
    if (typeof v === "string" && allowLiteral) return;
    if (!isObj(v) || typeof v.field !== "string" || Object.keys(v).length !== 1) {
      this.add(
        path,
        "field_ref",
        allowLiteral ? 'must be a string or {"field": "<noun>.<field>"}' : 'must be {"field": "<noun>.<field>"}',
      );
      return;
    }
    const [n, f] = v.field.split(".", 2);
    if (!this.nouns.has(n) || !this.nouns.get(n)!.fields.has(f)) {
      this.add(`${path}/field`, "unknown_field_ref", `${v.field} is not a declared noun field`);
      return;
    }
    if (noun === undefined)
      this.add(`${path}/field`, "unbound_field_ref", `${v.field} is used outside a node bound to a noun`);
    else if (n !== noun)
      this.add(`${path}/field`, "wrong_noun", `${v.field} refers to noun ${n}, but this node is bound to ${noun}`);
  }

  node(v: unknown, path: string, noun: string | undefined, depth: number): void {
    if (depth > 12) {
      this.add(path, "too_deep", "screens may nest at most 12 levels");
      return;
    }
    if (!isObj(v)) {
      this.add(path, "type", "must be a node object");
      return;
    }
    const type = v.type;
    const spec = typeof type === "string" ? NODE_TYPES[type] : undefined;
    if (!spec) {
      this.add(`${path}/type`, "unknown_node_type", `must be one of ${Object.keys(NODE_TYPES).join(", ")}`);
      return;
    }
    this.object(v, path, ["type", ...spec.required], spec.optional);
    let bound = noun;
    if ("source" in v) bound = this.source(v.source, `${path}/source`);
    for (const key of ["title", "label", "text", "empty", "tone", "variant"] as const) {
      if (key in v && !(type === "card" && key === "title")) this.string(v[key], `${path}/${key}`);
    }
    if ("children" in v && this.array(v.children, `${path}/children`, 1))
      v.children.forEach((c, i) => {
        this.node(c, `${path}/children/${i}`, bound, depth + 1);
      });
    if ("item" in v) this.node(v.item, `${path}/item`, bound, depth + 1);
    if (type === "card") {
      this.fieldRef(v.title, `${path}/title`, bound, true);
      if ("subtitle" in v) this.fieldRef(v.subtitle, `${path}/subtitle`, bound, true);
      if ("badge" in v) this.fieldRef(v.badge, `${path}/badge`, bound, true);
      if ("meta" in v && this.array(v.meta, `${path}/meta`))
        v.meta.forEach((m, i) => {
          this.fieldRef(m, `${path}/meta/${i}`, bound, true);
        });
    }
    if (type === "table" && this.array(v.columns, `${path}/columns`, 1)) {
      v.columns.forEach((c, i) => {
        if (this.object(c, `${path}/columns/${i}`, ["label", "value"], [])) {
          this.string(c.label, `${path}/columns/${i}/label`);
          this.fieldRef(c.value, `${path}/columns/${i}/value`, bound, false);
        }
      });
    }
    if (type === "kanban") this.fieldRef(v.groupBy, `${path}/groupBy`, bound, false);
    if (type === "detail" && this.array(v.fields, `${path}/fields`, 1))
      v.fields.forEach((f, i) => {
        this.fieldRef(f, `${path}/fields/${i}`, bound, false);
      });
    if (type === "metric" && "aggregate" in v && v.aggregate !== "count")
      this.add(`${path}/aggregate`, "enum", "must be count");
    if ("action" in v && (typeof v.action !== "string" || !this.actions.has(v.action)))
      this.add(`${path}/action`, "unknown_action", "must be a declared action id");
    if (type === "form" && (typeof v.capture !== "string" || !this.captures.has(v.capture)))
      this.add(`${path}/capture`, "unknown_capture", "must be a declared capture id");
  }

  screens(v: unknown, path: string): void {
    if (!this.array(v, path, 1)) return;
    this.uniqueIds(v, path, new Set());
    v.forEach((s, i) => {
      const p = `${path}/${i}`;
      if (!this.object(s, p, ["id", "title", "root"], ["description"])) return;
      this.string(s.title, `${p}/title`);
      this.node(s.root, `${p}/root`, undefined, 0);
    });
  }

  capturesSection(v: unknown, path: string): void {
    if (!this.array(v, path)) return;
    v.forEach((c, i) => {
      const p = `${path}/${i}`;
      if (!this.object(c, p, ["id", "type", "noun", "action"], ["label", "fields"])) return;
      if (typeof c.type !== "string" || !(CAPTURE_TYPES as readonly string[]).includes(c.type))
        this.add(`${p}/type`, "enum", `must be one of ${CAPTURE_TYPES.join(", ")}`);
      const noun = typeof c.noun === "string" ? this.nouns.get(c.noun) : undefined;
      if (!noun) this.add(`${p}/noun`, "unknown_noun", "must be a declared noun");
      if ("fields" in c && this.array(c.fields, `${p}/fields`, 1)) {
        c.fields.forEach((f, j) => {
          if (typeof f !== "string" || (noun && !noun.fields.has(f)))
            this.add(`${p}/fields/${j}`, "unknown_field_ref", `must be a field of noun ${String(c.noun)}`);
        });
      }
      if (typeof c.action !== "string" || !this.actions.has(c.action))
        this.add(`${p}/action`, "unknown_action", "must be a declared action id");
    });
  }

  signals(v: unknown, path: string): void {
    if (!this.array(v, path)) return;
    this.uniqueIds(v, path, new Set());
    v.forEach((s, i) => {
      const p = `${path}/${i}`;
      if (!this.object(s, p, ["id", "event", "noun"], ["description"])) return;
      this.string(s.event, `${p}/event`, EVENT, "an event.emit name (dot-separated tokens, no wildcards)");
      if (typeof s.noun !== "string" || !this.nouns.has(s.noun))
        this.add(`${p}/noun`, "unknown_noun", "must be a declared noun");
    });
  }

  surface(v: unknown, path: string): void {
    if (!this.object(v, path, ["nouns", "screens", "actions"], ["captures", "signals"])) return;
    this.nounsSection(v.nouns, `${path}/nouns`);
    this.actionsSection(v.actions, `${path}/actions`);
    if ("captures" in v && Array.isArray(v.captures)) this.uniqueIds(v.captures, `${path}/captures`, this.captures);
    this.capturesSection(v.captures ?? [], `${path}/captures`);
    this.screens(v.screens, `${path}/screens`);
    this.signals(v.signals ?? [], `${path}/signals`);
  }

  provisioning(v: unknown, path: string): void {
    if (!this.object(v, path, [], ["keys", "workflows", "collections"])) return;
    if ("keys" in v && this.array(v.keys, `${path}/keys`)) {
      v.keys.forEach((k, i) => {
        const p = `${path}/keys/${i}`;
        if (!this.object(k, p, ["name", "scopes"], ["subTenants", "collections", "description"])) return;
        this.string(k.name, `${p}/name`, /^[a-z0-9][a-z0-9 _-]{0,63}$/, "a key template name");
        this.scopes(k.scopes, `${p}/scopes`);
        if ("subTenants" in k && typeof k.subTenants !== "boolean")
          this.add(`${p}/subTenants`, "type", "must be a boolean");
        if ("collections" in k && this.array(k.collections, `${p}/collections`))
          k.collections.forEach((c, j) => {
            this.string(c, `${p}/collections/${j}`, COLLECTION, "a collection name");
          });
      });
    }
    if ("workflows" in v && this.array(v.workflows, `${path}/workflows`)) {
      v.workflows.forEach((w, i) => {
        const p = `${path}/workflows/${i}`;
        if (!this.object(w, p, ["workflow", "description"], ["schedule", "signal"])) return;
        this.string(w.workflow, `${p}/workflow`, WORKFLOW, "a workflow.trigger name");
        this.string(w.description, `${p}/description`);
        if ("schedule" in w)
          this.string(w.schedule, `${p}/schedule`, /^(\S+\s+){4}\S+$/, "a five-field cron expression");
      });
    }
    if ("collections" in v && this.array(v.collections, `${path}/collections`))
      v.collections.forEach((c, i) => {
        this.string(c, `${path}/collections/${i}`, COLLECTION, "a collection name");
      });
  }

  sim(v: unknown, path: string): void {
    if (!isObj(v)) {
      this.add(path, "type", "must be an object keyed by noun id");
      return;
    }
    for (const [noun, spec] of Object.entries(v)) {
      const p = `${path}/${esc(noun)}`;
      if (!this.nouns.has(noun)) this.add(p, "unknown_noun", `${noun} is not a declared noun`);
      if (!this.object(spec, p, [], ["titles", "companies", "sources", "assignees", "value"])) continue;
      for (const k of ["titles", "companies", "sources", "assignees"] as const) {
        if (k in spec && this.array(spec[k], `${p}/${k}`, 1))
          (spec[k] as Json[]).forEach((s, i) => {
            this.string(s, `${p}/${k}/${i}`);
          });
      }
      if ("value" in spec && this.object(spec.value, `${p}/value`, ["min", "max", "currency"], [])) {
        const val = spec.value;
        if (typeof val.min !== "number" || typeof val.max !== "number" || val.min <= 0 || val.max < val.min)
          this.add(`${p}/value`, "range", "needs 0 < min ≤ max");
        this.string(val.currency, `${p}/value/currency`, /^[A-Z]{3}$/, "an ISO 4217 code");
      }
    }
  }

  /** No secrets or tenant data, anywhere in the manifest. */
  hygiene(v: unknown, path: string): void {
    if (typeof v === "string") {
      for (const [re, what] of SECRET_VALUE_PATTERNS)
        if (re.test(v)) this.add(path, "secret", `looks like ${what}; manifests must not carry secrets`);
      const email = EMAIL.exec(v);
      if (email && !/^example\.(com|org|net)$|\.example$|^example$/i.test(email[1]))
        this.add(
          path,
          "tenant_data",
          "contains an email address; manifests must not carry tenant data (use example.com)",
        );
      if (PHONE.test(v)) this.add(path, "tenant_data", "contains a phone number; manifests must not carry tenant data");
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        this.hygiene(x, `${path}/${i}`);
      });
      return;
    }
    if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) {
        const p = `${path}/${esc(k)}`;
        if (SECRET_KEY_NAME.test(k))
          this.add(p, "secret", `a field named ${k} is not allowed; manifests must not carry secrets`);
        if (TENANT_KEY_NAME.test(k))
          this.add(p, "tenant_data", `a field named ${k} is not allowed; manifests are tenant-independent`);
        this.hygiene(x, p);
      }
    }
  }
}

/** Lints a parsed manifest; `expectedId` is its file name's slug. */
export function lintManifest(manifest: unknown, expectedId?: string): Finding[] {
  const l = new Linter();
  if (!l.object(manifest, "", ["id", "name", "version", "summary", "surface"], ["provisioning", "sim", "description"]))
    return l.findings;
  const m = manifest as Obj;
  if (l.string(m.id, "/id", SLUG, "a kebab-case slug") && expectedId !== undefined && m.id !== expectedId) {
    l.add("/id", "id_mismatch", `is "${m.id}" but the file is ${expectedId}.json`);
  }
  l.string(m.name, "/name");
  l.string(m.version, "/version", SEMVER, "a semantic version (1.2.3)");
  l.string(m.summary, "/summary");
  l.surface(m.surface, "/surface");
  if ("provisioning" in m) l.provisioning(m.provisioning, "/provisioning");
  if ("sim" in m) l.sim(m.sim, "/sim");
  l.hygiene(m, "");
  return l.findings;
}

/**
 * Findings that make `section` unservable. `surface` is not held back by provisioning or sim
 * mistakes, except secrets and tenant data: those anywhere refuse the whole manifest.
 */
export function blocking(findings: Finding[], section: "surface" | "all"): Finding[] {
  if (section === "all") return findings;
  return findings.filter(
    (f) =>
      f.code === "secret" ||
      f.code === "tenant_data" ||
      (!f.path.startsWith("/provisioning") && !f.path.startsWith("/sim")),
  );
}
