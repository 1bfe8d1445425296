/**
 * @module catalogue/content
 * Documents, email rendering and sending, help-centre guides and skills, owned by the content service
 * (spec §4.3 document.summarize, email.render, guide.*, message.send_markdown, skill.load).
 */
import type { AbilityEntry } from "./types.ts";
import { abilities as document } from "./content/document.ts";
import { abilities as email } from "./content/email.ts";
import { abilities as message } from "./content/message.ts";
import { abilities as guide } from "./content/guide.ts";
import { abilities as skill } from "./content/skill.ts";

export { EMAIL_TEMPLATES } from "./content/email.ts";
export { MESSAGE_STATUSES, RECIPIENT_STATUSES } from "./content/message.ts";

/** The service's entries, area by area (one file per area under `./content/`). */
export const abilities = [
  ...document,
  ...email,
  ...message,
  ...guide,
  ...skill,
] as const satisfies readonly AbilityEntry[];
