/**
 * @module connections/ids
 * Prefixed record ids: `<prefix>_` + a 26-character ULID (48-bit millisecond time + 80 random bits,
 * Crockford base32), so ids sort roughly by creation and never collide across replicas. Prefixes are
 * unique across Gantry: `con_` a connection, `oas_` an OAuth consent session (never shown to callers).
 *
 * @example
 * newId("connection"); // "con_01JA2B3C4D5E6F7G8H9J0KMNPQ"
 */
import { randomBytes } from "node:crypto";

export const ID_PREFIXES = {
  connection: "con",
  session: "oas",
} as const;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = "";
  for (const b of randomBytes(16)) rand += CROCKFORD[b % 32];
  return time + rand;
}

export function newId(kind: keyof typeof ID_PREFIXES, now?: number): string {
  return `${ID_PREFIXES[kind]}_${ulid(now)}`;
}
