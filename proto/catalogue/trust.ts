/**
 * @module catalogue/trust
 * Trust runs, permits and labelled claims, plans and QA checklists, owned by the trust service
 * (spec §2.5 Claim, §4.3 trust.preflight, trust.publish, plan.create).
 */
import type { AbilityEntry } from "./types.ts";
import { LESSON_SEVERITIES } from "./memory.ts";
import { bool, enumOf, fields, int, list, nullableStr, nullableTimestamp, str, timestamp } from "./output.ts";
import {
  ABILITY_ID_PATTERN,
  array,
  freeObject,
  id,
  idempotencyKey,
  integer,
  line,
  nullable,
  object,
  oneOfValues,
  slug,
  text,
  typed,
} from "./schema.ts";

/** Claim statuses (spec §2.5, §4.3 trust.publish). */
export const CLAIM_STATUSES = ["observed", "inference", "unverified"] as const;

/** Outcomes plan.learn records (ours). */
export const PLAN_OUTCOMES = ["succeeded", "partial", "failed", "abandoned"] as const;

function receiptIds(description: string) {
  return array(description, id("A receipt: the X-Request-Id of an earlier Gantry call."), 50, 0, true);
}

function planId(description = "Plan id returned by plan.create.") {
  return id(description);
}

function phaseId(description: string) {
  return text(description, 64, { pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" });
}

// ---- Results ----------------------------------------------------------------------------------

/** Run statuses: `active` until `expires`; `exhausted` once every permit is used; `expired` after. */
export const RUN_STATUSES = ["active", "exhausted", "expired"] as const;

/** Permit statuses: `issued` (unused), `used` (consumed by one call), `expired` (its run expired first). */
export const PERMIT_STATUSES = ["issued", "used", "expired"] as const;

/** Plan statuses: planned → in_progress → verified (every phase verified) → closed (plan.learn). */
export const PLAN_STATUSES = ["planned", "in_progress", "verified", "closed"] as const;

/**
 * Phase statuses: blocked (a dependency is not verified) → ready → in_progress (plan.execute) →
 * verified | failed (plan.verify; a failed phase can be verified again with more evidence).
 */
export const PHASE_STATUSES = ["blocked", "ready", "in_progress", "verified", "failed"] as const;

/** Check statuses: pending (no evidence yet), passed, failed. */
export const CHECK_STATUSES = ["pending", "passed", "failed"] as const;

const SHA256_HEX = "^[0-9a-f]{64}$";

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

function sha256(description: string) {
  return str(description, { pattern: SHA256_HEX });
}

function nullableRunId(description: string) {
  return nullable(prefixedId("run", "Run id."), description);
}

/**
 * A receipt: the signed record of one call made under a run (issue 17), verifiable offline with the
 * public keys of the JWKS and the inclusion proof.
 */
function receipt() {
  return fields(
    {
      requestId: prefixedId(
        "req",
        "Request id (`req_…`, the call's X-Request-Id): the receipt's id, what claims cite.",
      ),
      ability: str("Ability the call ran."),
      inputHash: sha256("SHA-256 (hex) of the RFC 8785 canonical JSON of the call's input."),
      resultHash: nullable(
        sha256("Hash."),
        "SHA-256 (hex) of the RFC 8785 canonical JSON of the call's result; null when the call failed.",
      ),
      outcome: enumOf("Whether the call succeeded (HTTP 200) or failed.", ["succeeded", "failed"]),
      status: int("HTTP status the call answered."),
      runId: nullableRunId("Run the call was made under (`run_…`), or null."),
      permitId: nullable(prefixedId("pmt", "Permit id."), "Permit the call consumed (`pmt_…`), or null."),
      at: timestamp("When the call completed (RFC 3339)."),
      envelope: fields(
        {
          payloadType: str("Always `application/vnd.in-toto+json`."),
          payload: str(
            "Base64 of the in-toto Statement (JSON) whose subject is the request id with the input and result hashes.",
          ),
          signatures: list(
            "Signatures (one per signing key).",
            fields(
              {
                keyid: str("Id of the Ed25519 public key (the `kid` of the JWKS)."),
                sig: str(
                  "Base64 Ed25519 signature over the DSSE pre-authentication encoding of payloadType and payload.",
                ),
              },
              [],
              { description: "One signature." },
            ),
          ),
        },
        [],
        { description: "The DSSE envelope: what an offline verifier checks." },
      ),
      inclusion: nullable(
        fields(
          {
            logIndex: int("Position of the receipt in the tenant's Merkle log (0-based)."),
            treeSize: int("Size of the log at the checkpoint the proof is for."),
            rootHash: sha256("Root hash (hex) of the log at that size."),
            hashes: list("The audit path, leaf to root (RFC 6962 / RFC 9162).", sha256("A node hash (hex).")),
            checkpoint: str("The signed checkpoint (C2SP signed-note text) that commits to treeSize and rootHash."),
          },
          [],
          { description: "Inclusion proof." },
        ),
        "Proof that the receipt is in the tenant's append-only Merkle log; null until a checkpoint includes it.",
      ),
    },
    [],
    { description: "A signed receipt of one call." },
  );
}

/** A claim with its label and the receipts it rests on. */
function claim() {
  return fields(
    {
      id: prefixedId("clm", "Claim id (`clm_…`)."),
      text: str("The claim."),
      status: enumOf(
        "observed: seen in the cited receipts (checked: they exist, are the tenant's and were made under a run); inference: reasoned from observations; unverified: neither. trust.preflight claims are `observed`.",
        CLAIM_STATUSES,
      ),
      receiptIds: list("Receipts cited, as given.", str("A request id.")),
      receipts: list("The cited receipts, resolved, in `receiptIds` order.", receipt()),
      created: timestamp("When the claim was attached (RFC 3339)."),
    },
    [],
    { description: "A labelled claim." },
  );
}

/** A trust run with its permits and claims (trust.preflight, trust.status). */
function run(description: string) {
  return fields(runProps(), [], { description });
}

function runProps() {
  return {
    id: prefixedId("run", "Run id (`run_…`): send it as `context.runId` with each permitted call."),
    tenant: str("Tenant of the run; calls under it must be this tenant's."),
    task: str("What the run is for."),
    status: enumOf(
      "active: calls may use its permits; exhausted: every permit is used; expired: past `expires` (calls under it are refused with 403).",
      RUN_STATUSES,
    ),
    keyId: str("API key (`key_…`) that created the run; calls under it must use this key."),
    created: timestamp("When the run was created (RFC 3339)."),
    expires: timestamp(
      "When the run and its unused permits expire (RFC 3339): the deployment's run lifetime after creation (TRUST_RUN_TTL_SECONDS, 1 hour by default).",
    ),
    permits: list(
      "One single-use permit per action, in input order.",
      fields(
        {
          id: prefixedId("pmt", "Permit id (`pmt_…`)."),
          ability: str("Ability the permit allows."),
          inputHash: sha256(
            "SHA-256 (hex) of the RFC 8785 canonical JSON of the exact input allowed; any other input is refused.",
          ),
          status: enumOf(
            "issued: unused; used: consumed by one call (see `receipt`); expired: the run expired first.",
            PERMIT_STATUSES,
          ),
          used: nullableTimestamp("When a call consumed it (RFC 3339); null unless used."),
          receipt: nullable(receipt(), "The receipt of the call that consumed the permit; null unless used."),
        },
        [],
        { description: "A single-use permit." },
      ),
    ),
    claims: list("Claims attached to the run, oldest first.", claim()),
  };
}

/**
 * The tenant's receipt log as trust.status reads it: the signed checkpoint now and, with
 * `logFromSize`, the consistency proof from that earlier size (RFC 9162 §2.1.4).
 */
function logView() {
  return fields(
    {
      origin: str("The log's origin line: `gantry.trust/receipts/<tenant>`."),
      logId: nullableStr(
        "The log's public id: GET /v1/logs/{logId}/checkpoint, /tile/… and /tile/entries/… serve it as C2SP tlog-tiles without a key. Unguessable; whoever holds it reads the whole log. Null before the first receipt.",
      ),
      treeSize: int("Number of receipts in the log at the checkpoint."),
      rootHash: sha256("Root hash (hex) of the log at that size."),
      checkpoint: str("The signed checkpoint (C2SP signed-note text) for treeSize and rootHash: keep it."),
      consistency: nullable(
        fields(
          {
            fromSize: int("The earlier size, as sent in `logFromSize`."),
            hashes: list(
              "The consistency proof from fromSize to treeSize (RFC 9162 §2.1.4), empty when the sizes are equal or fromSize is 0.",
              sha256("A node hash (hex)."),
            ),
          },
          [],
          { description: "Consistency proof." },
        ),
        "Proof that the log at fromSize is a prefix of the log at treeSize; null without `logFromSize`.",
      ),
    },
    [],
    { description: "The receipt log's checkpoint." },
  );
}

/** A check of a plan phase. */
function checkProps() {
  return {
    id: str("Check id, unique within the plan (e.g. `p2-booking-widget.c1`)."),
    text: str("The check, phrased so it passes or fails."),
    source: enumOf("Where the check came from.", ["goal", "constraint", "template", "lesson"]),
    sourceRef: nullableStr("Template id or lesson id (`les_…`) it came from; null for goal and constraint checks."),
    status: enumOf("pending: no evidence yet; passed; failed (plan.verify says why).", CHECK_STATUSES),
    evidence: list(
      "Receipts (request ids) accepted as evidence for the check, in the order given.",
      str("A request id."),
    ),
  };
}

/** An execution plan with its phases. */
function plan(description: string) {
  return fields(
    {
      id: prefixedId("plan", "Plan id (`plan_…`)."),
      tenant: str("Tenant of the plan."),
      goal: str("The goal, as given."),
      constraints: list("Constraints, as given (empty when none).", str("A constraint.")),
      vertical: nullableStr(
        "Vertical the plan belongs to: the input's `vertical`, else the call's context.verticalId; null when neither.",
      ),
      type: nullableStr("Kind of plan, or null."),
      status: enumOf(
        "planned: no phase started; in_progress; verified: every phase verified; closed: outcome recorded by plan.learn.",
        PLAN_STATUSES,
      ),
      method: enumOf(
        "`deterministic`: built from templates and lessons by rules (the default; same input and lessons → same plan); `model`: drafted by the configured OpenAI-compatible model endpoint.",
        ["deterministic", "model"],
      ),
      model: nullableStr("Model that drafted the plan when `method` is `model`; null otherwise."),
      phases: list(
        "Phases in execution order (every phase comes after its dependencies).",
        fields(
          {
            id: str(
              "Phase id, unique within the plan (e.g. `p2-booking-widget`): the phaseId of plan.execute and plan.verify.",
            ),
            title: str("Short title."),
            description: str("What the phase delivers."),
            dependsOn: list("Phases that must be verified before this one can start.", str("A phase id.")),
            status: enumOf(
              "blocked: a dependency is not verified; ready; in_progress: started by plan.execute; verified; failed: plan.verify found a failing check (verify again with more evidence).",
              PHASE_STATUSES,
            ),
            checks: list(
              "What must hold for the phase to be verified.",
              fields(checkProps(), [], { description: "A check." }),
            ),
            actions: list(
              "Abilities the phase is expected to call. plan.execute issues one permit per action whose input is known.",
              fields(
                {
                  ability: str("Ability id."),
                  input: nullable(
                    typed<Record<string, unknown>>({ type: "object", description: "Input." }),
                    "The exact input when known (a permit is issued for it); null when only the ability is known.",
                  ),
                },
                [],
                { description: "An expected action." },
              ),
            ),
            runId: nullableRunId("Run plan.execute issued with permits for the phase's actions (`run_…`), or null."),
            started: nullableTimestamp("When plan.execute started the phase (RFC 3339); null before."),
            verified: nullableTimestamp("When plan.verify last passed the phase (RFC 3339); null before."),
          },
          [],
          { description: "A phase." },
        ),
      ),
      sources: fields(
        {
          templates: list("Checklist templates used (ids).", str("A template id.")),
          lessons: list("Lessons used (`les_…`).", str("A lesson id.")),
          decisions: list("Decisions respected (`D-NNN`).", str("A decision id.")),
        },
        [],
        { description: "What the plan drew on." },
      ),
      outcome: nullable(enumOf("Outcome.", PLAN_OUTCOMES), "Outcome recorded by plan.learn; null before."),
      created: timestamp("When the plan was created (RFC 3339)."),
      updated: timestamp("Last change of the plan or a phase (RFC 3339)."),
      closed: nullableTimestamp("When plan.learn closed it (RFC 3339); null before."),
    },
    [],
    { description },
  );
}

export const abilities = [
  {
    id: "trust.preflight",
    summary:
      "Create a time-bounded run with single-use permits for exact actions, and attach fresh receipts to claims.",
    inputSource: "spec",
    input: object(
      {
        task: text("What the run is for, in a sentence or two.", 2000),
        actions: array(
          "Exact actions to permit; each permit is single-use and matches only this ability with this input.",
          object(
            {
              ability: text("Ability id the permit is for (e.g. payout.send).", 128, { pattern: ABILITY_ID_PATTERN }),
              input: freeObject("The exact input the call will send."),
            },
            ["ability", "input"],
            { description: "One permitted action." },
          ),
          50,
        ),
        claims: array(
          "Consequential claims to back with receipts now.",
          object(
            {
              text: text("The claim.", 2000),
              receiptIds: receiptIds("Receipts (request ids) that support the claim."),
            },
            ["text", "receiptIds"],
            { description: "One claim." },
          ),
          50,
        ),
      },
      ["task"],
    ),
    output: run("The new run: send its `id` as `context.runId` with each permitted call; every permit is `issued`."),
    example: {
      task: "Refund order 1042 to the customer's verified account",
      actions: [
        {
          ability: "payout.send",
          input: { recipientId: "rcp_01J9Z6A", amount: 15000, currency: "NGN", idempotencyKey: "refund-order-1042" },
        },
      ],
      claims: [{ text: "Order 1042 was paid on 2 May", receiptIds: ["req_01J9Z8Q2W3E4R5T6Y7U8I9O0P1"] }],
    },
  },
  {
    id: "trust.publish",
    summary: "Publish a structured answer whose claims are labelled observed, inference or unverified.",
    inputSource: "spec",
    input: object(
      {
        claims: array(
          "The claims of the answer.",
          object(
            {
              text: text("The claim.", 2000),
              status: oneOfValues(
                "observed: seen in a receipt; inference: reasoned from observations; unverified: neither.",
                CLAIM_STATUSES,
              ),
              receiptIds: receiptIds("Receipts (request ids) the claim rests on."),
            },
            ["text", "status"],
            { description: "One labelled claim." },
          ),
          100,
          1,
        ),
      },
      ["claims"],
    ),
    output: fields(
      {
        id: prefixedId("pub", "Published answer id (`pub_…`)."),
        tenant: str("Tenant that published it."),
        runId: nullableRunId("Run it was published under (`context.runId`), or null."),
        claims: list("The claims, in input order.", claim()),
        counts: fields(
          {
            observed: int("Claims labelled observed."),
            inference: int("Claims labelled inference."),
            unverified: int("Claims labelled unverified."),
          },
          [],
          { description: "Claims by label." },
        ),
        requestId: prefixedId("req", "Request id (`req_…`) of this publish call: cite it to point at this answer."),
        created: timestamp("When it was published (RFC 3339)."),
      },
      [],
      { description: "The published answer with its labelled claims." },
    ),
    example: {
      claims: [
        {
          text: "Payout for order 1042 was accepted by the provider",
          status: "observed",
          receiptIds: ["req_01J9Z9A1S2D3F4G5H6J7K8L9Z0"],
        },
        { text: "The customer will see the funds within one business day", status: "inference" },
      ],
    },
  },
  {
    id: "trust.status",
    summary:
      "Get a trust run: its expiry, its permits (used or not), its claims with their receipts, and the receipt log's checkpoint.",
    inputSource: "ours",
    input: object(
      {
        runId: id("Run id returned by trust.preflight."),
        logFromSize: integer(
          "Size of an earlier checkpoint of the tenant's receipt log you kept (its second line): `log.consistency` then carries the RFC 9162 consistency proof that the current log extends it, which `node services/trust/scripts/verify.ts consistency` checks offline with both checkpoints and the JWKS (a log rewritten in the database fails it). At most the current size.",
          0,
          2_147_483_647,
        ),
      },
      ["runId"],
    ),
    output: fields({ ...runProps(), log: logView() }, [], {
      description:
        "The run with its permits (used or not, when, and the receipt of the call), its claims with their receipts, and the tenant's receipt log checkpoint.",
    }),
    example: { runId: "run_01J9ZA3B4C5D6E7F8G9H0J1K2M" },
  },
  {
    id: "plan.create",
    summary: "Create an execution plan from a goal: phases with dependencies, checking templates and lessons.",
    inputSource: "spec",
    input: object(
      {
        goal: text("What the plan must achieve.", 5000),
        constraints: array("Constraints the plan must respect.", text("One constraint.", 1000), 50),
        vertical: slug("Vertical the plan belongs to; defaults to the call's context.verticalId."),
        type: slug(
          "Kind of plan (free-form slug, e.g. launch, migration, incident); selects templates when one matches.",
        ),
      },
      ["goal"],
    ),
    output: plan("The new plan: phases with dependencies and checks; phases without dependencies are `ready`."),
    example: {
      goal: "Launch online booking for the clinic",
      constraints: ["No downtime for the current site", "Live before 1 June"],
      vertical: "clinic",
      type: "launch",
    },
  },
  {
    id: "plan.execute",
    summary: "Start the next ready phase of a plan (or a named phase whose dependencies are met).",
    inputSource: "ours",
    input: object(
      {
        planId: planId(),
        phaseId: phaseId("Phase to start; omit to start every phase whose dependencies are met."),
        idempotencyKey: idempotencyKey("the phase start"),
      },
      ["planId"],
    ),
    output: fields(
      {
        started: list(
          "Phases this call started, in plan order (a replay with the same idempotencyKey starts nothing and returns the phases the first call started, with the plan as it is now).",
          str("A phase id."),
        ),
        plan: plan("The plan after the start; started phases are `in_progress` and carry their `runId`."),
      },
      [],
      { description: "What was started." },
    ),
    example: { planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N", phaseId: "p2-booking-widget" },
  },
  {
    id: "plan.learn",
    summary: "Record how a plan turned out so its lessons feed future plans (through the lessons inbox).",
    inputSource: "ours",
    input: object(
      {
        planId: planId(),
        outcome: oneOfValues("How the plan ended.", PLAN_OUTCOMES),
        notes: text("What went well or badly, and why.", 20_000),
        lessons: array(
          "Lessons to append to the lessons inbox, linked to the plan.",
          object(
            {
              title: line("Short title.", 200),
              lesson: text("What was learnt.", 20_000),
              severity: oneOfValues("How much it matters.", LESSON_SEVERITIES),
            },
            ["title", "lesson"],
            { description: "One lesson." },
          ),
          20,
        ),
      },
      ["planId", "outcome"],
    ),
    output: fields(
      {
        planId: prefixedId("plan", "Plan id (`plan_…`)."),
        outcome: enumOf("Outcome recorded.", PLAN_OUTCOMES),
        notes: nullableStr("Notes, as given; null if none."),
        lessons: list(
          "Lessons appended to the lessons inbox (memory service), in input order.",
          fields(
            {
              id: prefixedId("les", "Lesson id (`les_…`)."),
              title: str("Title."),
              severity: nullable(enumOf("Severity.", LESSON_SEVERITIES), "Severity, or null when none was given."),
            },
            [],
            { description: "A recorded lesson." },
          ),
        ),
        status: enumOf("Plan status after recording: always `closed`.", ["closed"]),
        recorded: timestamp("When the outcome was recorded (RFC 3339)."),
      },
      [],
      { description: "The recorded outcome; the plan is closed." },
    ),
    example: {
      planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N",
      outcome: "partial",
      notes: "Booking went live on time; the payment step slipped a week.",
      lessons: [
        {
          title: "Connect payments before launch week",
          lesson: "Provider review takes 5 business days.",
          severity: "medium",
        },
      ],
    },
  },
  {
    id: "plan.verify",
    summary: "Check a plan (or one phase) against its checks and the receipts given as evidence.",
    inputSource: "ours",
    input: object(
      {
        planId: planId(),
        phaseId: phaseId("Phase to verify; omit to verify the whole plan."),
        receiptIds: receiptIds("Receipts (request ids) offered as evidence that the work was done."),
      },
      ["planId"],
    ),
    output: fields(
      {
        planId: prefixedId("plan", "Plan id (`plan_…`)."),
        phaseId: nullableStr("Phase verified, or null when the whole plan was."),
        passed: bool("Whether every check in scope passed."),
        checks: list(
          "Every check in scope, in plan order, with its status after this verification.",
          fields(
            {
              phaseId: str("Phase of the check."),
              ...checkProps(),
              reason: nullableStr(
                "Why it failed or is still pending (e.g. no receipt of the expected ability); null when passed.",
              ),
            },
            [],
            { description: "A check result." },
          ),
        ),
        receipts: list(
          "Every receipt given as evidence, in input order, accepted or not.",
          fields(
            {
              requestId: str("Request id, as given."),
              accepted: bool("Whether it counted as evidence."),
              reason: nullableStr(
                "Why it was not accepted (unknown, another tenant's, not made under a run, or its ability and input hash match no action of the phase); null when accepted.",
              ),
            },
            [],
            { description: "One receipt." },
          ),
        ),
        plan: plan("The plan after verification (phase and plan statuses updated)."),
        verified: timestamp("When the verification ran (RFC 3339)."),
      },
      [],
      { description: "The verification: each check with its evidence." },
    ),
    example: {
      planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N",
      phaseId: "p2-booking-widget",
      receiptIds: ["req_01J9ZC5D6E7F8G9H0J1K2M3N4P"],
    },
  },
  {
    id: "qa.checklist.create",
    summary: "Create a QA checklist for a change, from your items or derived from templates and lessons.",
    inputSource: "ours",
    input: object(
      {
        title: line("What is being checked.", 200),
        scope: text("Description of the change under test; used to derive items when none are given.", 5000),
        items: array(
          "Checklist items; omit to derive them from scope, templates and lessons.",
          object(
            {
              check: line("The check, phrased so it passes or fails.", 500),
              severity: oneOfValues("How much a failure matters.", LESSON_SEVERITIES),
            },
            ["check"],
            { description: "One item." },
          ),
          200,
          1,
        ),
        planId: planId("Plan this checklist belongs to."),
        vertical: slug("Vertical whose templates apply."),
        idempotencyKey: idempotencyKey("the checklist"),
      },
      ["title"],
      {
        anyOf: [
          { properties: { scope: true }, required: ["scope"] },
          { properties: { items: true }, required: ["items"] },
        ],
      },
    ),
    output: fields(
      {
        id: prefixedId("qac", "Checklist id (`qac_…`)."),
        tenant: str("Tenant of the checklist."),
        title: str("What is being checked."),
        scope: nullableStr("Description of the change, as given; null if none."),
        planId: nullable(prefixedId("plan", "Plan id."), "Plan the checklist belongs to (`plan_…`), or null."),
        vertical: nullableStr("Vertical whose templates applied, or null."),
        items: list(
          "Items: the given ones first, in input order, then derived ones by severity.",
          fields(
            {
              id: str("Item id, unique within the checklist (e.g. `i1`)."),
              check: str("The check, phrased so it passes or fails."),
              severity: enumOf("How much a failure matters; `medium` when a given item named none.", LESSON_SEVERITIES),
              source: enumOf("`given` (your items), or derived from a `template` or a `lesson`.", [
                "given",
                "template",
                "lesson",
              ]),
              sourceRef: nullableStr("Template id or lesson id (`les_…`) it was derived from; null for given items."),
            },
            [],
            { description: "An item." },
          ),
        ),
        created: timestamp("When the checklist was created (RFC 3339)."),
      },
      [],
      { description: "The checklist." },
    ),
    example: {
      title: "Online booking release",
      scope: "New booking widget on the public site, with deposit payment and confirmation email.",
      items: [{ check: "A booking with deposit sends exactly one confirmation email", severity: "high" }],
      vertical: "clinic",
    },
  },
] as const satisfies readonly AbilityEntry[];
