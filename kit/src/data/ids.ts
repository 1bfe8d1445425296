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
import { randomFillSync } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Random bytes drawn 4 KiB at a time: one call into the CSPRNG per 256 ids, not one per id. */
const entropy = Buffer.alloc(4096);
let used = entropy.length;

export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (used + 16 > entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  let rand = "";
  for (let i = used; i < used + 16; i++) rand += CROCKFORD[entropy[i] % 32];
  used += 16;
  return time + rand;
}

/** The id function of a service: record kind → `<prefix>_<ulid>`. */
export function idMaker<const P extends Record<string, string>>(prefixes: P): (kind: keyof P, now?: number) => string {
  return (kind, now) => `${prefixes[kind]}_${ulid(now)}`;
}
