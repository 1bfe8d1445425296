/**
 * @module kit/data/ids
 * Prefixed record ids, one way for every service: `<prefix>_` + a 26-character ULID (48-bit
 * millisecond time + 80 random bits, Crockford base32), so ids sort roughly by creation and never
 * collide across replicas. Each service names its prefixes once; prefixes are unique across Gantry
 * (`con_` a connection, `ctc_` a contact, `run_` a trust run).
 *
 * @example
 * export const newId = idMaker({ contact: "ctc", lead: "lead" });
 * newId("contact"); // "ctc_01JA2B3C4D5E6F7G8H9J0KMNPQ"
 */
import { randomBytes } from "node:crypto";

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

/** The id function of a service: record kind → `<prefix>_<ulid>`. */
export function idMaker<const P extends Record<string, string>>(prefixes: P): (kind: keyof P, now?: number) => string {
  return (kind, now) => `${prefixes[kind]}_${ulid(now)}`;
}
