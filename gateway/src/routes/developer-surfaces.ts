/**
 * @module gateway/routes/developer-surfaces
 * Mounts what developers and agents use to find and reach abilities (issue 6): discovery
 * (`GET /v1/abilities`, `GET /v1/abilities/{id}`), `/openapi.json`, `/docs` (HTML, or Markdown for
 * `Accept: text/markdown` with a key; also `/docs.md`) and the MCP server at `/mcp`.
 * docs/developer-surfaces.md describes them.
 */
import type { Express } from "express";
import type { GatewayDeps } from "../deps.ts";
import { getAbilityRoute, listAbilitiesRoute } from "./discovery.ts";
import { openApiRoute } from "./openapi.ts";
import { docsAssetRoute, docsMarkdownRoute, docsRoute } from "./docs.ts";
import { mcpRoutes } from "./mcp.ts";

export function mountDeveloperSurfaces(app: Express, deps: GatewayDeps): void {
  app.get("/v1/abilities", listAbilitiesRoute(deps));
  app.get("/v1/abilities/:id", getAbilityRoute(deps));
  app.get("/openapi.json", openApiRoute(deps));
  app.get("/docs", docsRoute(deps));
  app.get("/docs.md", docsMarkdownRoute(deps));
  app.get("/docs/assets/:file", docsAssetRoute());
  const mcp = mcpRoutes(deps);
  app.post("/mcp", mcp.post);
  app.get("/mcp", mcp.get);
  app.delete("/mcp", mcp.delete);
}
