// Prisma CLI config for the memory service. The URL is only used by CLI commands that talk to a
// database; `prisma generate` does not connect.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: `${process.env.DATABASE_URL ?? "postgresql://localhost/gantry"}${process.env.DATABASE_URL?.includes("?") ? "&" : "?"}schema=memory` },
});
