/**
 * @module bench/servers/express-gateway
 * Runs express-gateway 1.16 from the bench's cache directory (it is not a project dependency; see
 * bench/lib/express-gateway.ts, which installs it and writes its configuration).
 *
 * Env: EG_DIR (the npm prefix it was installed into), EG_CONFIG_DIR, EG_HTTP_PORT, EG_ADMIN_PORT,
 * EG_BACKEND_URL (read by the configuration). Prints `READY <http port>` once both the gateway and
 * its admin API listen.
 */
import path from "node:path";
import { createRequire } from "node:module";

const dir = process.env.EG_DIR;
const configDir = process.env.EG_CONFIG_DIR;
if (!dir || !configDir) throw new Error("EG_DIR and EG_CONFIG_DIR are required");
process.env.EG_DISABLE_CONFIG_WATCH = "true";

const require = createRequire(path.join(dir, "package.json"));
const eg = require("express-gateway") as () => { load: (dir: string) => { run: () => Promise<unknown> } };
await eg().load(configDir).run();
process.stdout.write(`READY ${process.env.EG_HTTP_PORT}\n`);
process.once("SIGTERM", () => process.exit(0));
