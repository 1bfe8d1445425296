/**
 * @module connections/ids
 * The connections service's id prefixes (kit/src/data/ids.ts makes the ids): `con_` a connection,
 * `oas_` an OAuth consent session (never shown to callers), `shr_` a share, `exe_` a tool execution.
 *
 * @example
 * newId("connection"); // "con_01JA2B3C4D5E6F7G8H9J0KMNPQ"
 */
import { idMaker } from "@gantry/kit";

export const ID_PREFIXES = {
  connection: "con",
  session: "oas",
  share: "shr",
  execution: "exe",
} as const;

export const newId = idMaker(ID_PREFIXES);
