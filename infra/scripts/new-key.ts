/**
 * `npm run new-key`: prints a fresh, well-formed Gantry key, e.g. for GANTRY_ADMIN_KEY.
 * Nothing is stored: register it by starting the stack with GANTRY_ADMIN_KEY set.
 */
import { generateKey } from "@gantry/kit";

process.stdout.write(`${generateKey()}\n`);
