/**
 * @module catalogue/payments
 * Payments in and payouts out, owned by the payments service (spec §4.3 payment.initiate; the rest
 * of the shapes are ours). Money inputs are major units + ISO 4217 code; the service stores integer
 * minor units and checks the amount's precision against the currency. Money in results is
 * `{amount, currency, minor}`: `minor` (integer minor units) is the exact value, `amount` the same in
 * major units for display (the shape workspace uses for a lead's value).
 */
import type { AbilityEntry } from "./types.ts";
import { abilities as payment } from "./payments/payment.ts";
import { abilities as payout } from "./payments/payout.ts";

export { PAYMENT_PROVIDERS } from "./payments/shared.ts";
export { PAYMENT_STATUSES, PAYMENT_RESULT_STATUSES } from "./payments/payment.ts";
export { PAYOUT_STATUSES, PAYOUT_BATCH_STATUSES } from "./payments/payout.ts";

/** The service's entries, area by area (one file per area under `./payments/`). */
export const abilities = [...payment, ...payout] as const satisfies readonly AbilityEntry[];
