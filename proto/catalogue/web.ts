/**
 * @module catalogue/web
 * Web browsing, research and browser QA, owned by the web service (headless Chromium is isolated
 * there). Spec §4.3 gives research.verify as a two-variant union; every other shape is ours.
 */
import type { AbilityEntry } from "./types.ts";
import { abilities as web } from "./web/web.ts";
import { abilities as research } from "./web/research.ts";
import { abilities as qa } from "./web/qa.ts";

/** The service's entries, area by area (one file per area under `./web/`). */
export const abilities = [...web, ...research, ...qa] as const satisfies readonly AbilityEntry[];
