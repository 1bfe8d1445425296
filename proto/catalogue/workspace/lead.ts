/**
 * @module catalogue/workspace/lead
 * The workspace service's abilities of the `lead` area (Leads: sales leads).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import {
  cursor,
  email,
  id,
  idempotencyKey,
  limit,
  line,
  money,
  nullable,
  object,
  oneOfValues,
  text,
} from "../schema.ts";
import { enumOf, fields, int, list, nullableStr, nullableTimestamp, num, page, str, timestamp } from "../output.ts";
import { listQuery, ownerTenant, recordVertical, created, updated } from "./shared.ts";

/** Lead statuses (ours, issue 5): new → contacted → qualified → won | lost. */
export const LEAD_STATUSES = ["new", "contacted", "qualified", "won", "lost"] as const;

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

export const abilities = [
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
] as const satisfies readonly AbilityEntry[];
