/**
 * @module bench/lib/format
 * Number formats shared by the bench's reports and log lines ("–" where there is no number).
 */

/** 12,345 */
export const fmtInt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");

/** 2.86× / 19.4× */
export const fmtX = (n: number) => (Number.isFinite(n) && n > 0 ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)}×` : "–");

/** A collection size: 1k, 100k, 1500 */
export const fmtSize = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
