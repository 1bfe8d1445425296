/**
 * @module catalogue/workspace/contact
 * The workspace service's abilities of the `contact` area (Contacts: people and companies of a tenant).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { cursor, email, id, idempotencyKey, limit, line, metadata, nullable, object, phone } from "../schema.ts";
import { fields, metadataOut, nullableStr, page, str } from "../output.ts";
import { listQuery, ownerTenant, recordVertical, created, updated } from "./shared.ts";

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

export const abilities = [
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
] as const satisfies readonly AbilityEntry[];
