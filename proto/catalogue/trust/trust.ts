/**
 * @module catalogue/trust/trust
 * The trust service's abilities of the `trust` area (Trust: time-bounded runs, single-use permits and labelled claims).
 * `proto/catalogue/trust.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { enumOf, fields, int, list, nullableStr, nullableTimestamp, str, timestamp } from "../output.ts";
import { ABILITY_ID_PATTERN, array, freeObject, id, integer, nullable, object, oneOfValues, text } from "../schema.ts";
import { receiptIds, prefixedId, nullableRunId } from "./shared.ts";

/** Claim statuses (spec §2.5, §4.3 trust.publish). */
export const CLAIM_STATUSES = ["observed", "inference", "unverified"] as const;

// ---- Results ----------------------------------------------------------------------------------

/** Run statuses: `active` until `expires`; `exhausted` once every permit is used; `expired` after. */
export const RUN_STATUSES = ["active", "exhausted", "expired"] as const;

/** Permit statuses: `issued` (unused), `used` (consumed by one call), `expired` (its run expired first). */
export const PERMIT_STATUSES = ["issued", "used", "expired"] as const;

const SHA256_HEX = "^[0-9a-f]{64}$";

function sha256(description: string) {
  return str(description, { pattern: SHA256_HEX });
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
] as const satisfies readonly AbilityEntry[];
