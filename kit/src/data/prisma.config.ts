// The one Prisma CLI config, for every service: `infra/scripts/generate.ts` runs the CLI in
// services/<name>/ with `--config` pointing here, so the service is the working directory's name.
// The URL is only read by CLI commands that talk to a database; `prisma generate` does not connect.
import path from "node:path";
import { defineConfig } from "prisma/config";

const dir = process.cwd();
const service = path.basename(dir);
const url = process.env.DATABASE_URL ?? "postgresql://localhost/gantry";

export default defineConfig({
  schema: path.join(dir, "prisma", "schema.prisma"),
  migrations: { path: path.join(dir, "prisma", "migrations") },
  datasource: { url: `${url}${url.includes("?") ? "&" : "?"}schema=${service}` },
});
