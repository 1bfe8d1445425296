/**
 * @module payments/ids
 * Record id prefixes of the payments service (unique across Gantry).
 */
import { idMaker } from "@gantry/kit";

export const newId = idMaker({ payment: "pay", payout: "po", batch: "pob", recipient: "rcp" } as const);
